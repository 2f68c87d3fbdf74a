// The costline extension: starts `costline serve` for Fortran documents with the
// language client, sends it the `costline` settings, shows the machine model and the
// bindings in the status bar, and adds the commands Select machine, Set parameters and
// Compare distributions.

import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import {
  buildSettings,
  checkProcs,
  checkRange,
  compareArgs,
  definedModules,
  documentSelector,
  FORTRAN_LANGUAGE_IDS,
  formatParams,
  machinesFromServer,
  type MachineEntry,
  parseMachinesOutput,
  parseParams,
  statusText,
  usedModules,
} from './settings';

const SECTION = 'costline';

let client: LanguageClient | undefined;
let status: vscode.StatusBarItem | undefined;
let output: vscode.OutputChannel | undefined;

function config(scope?: vscode.ConfigurationScope): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(SECTION, scope);
}

/** The settings the server receives, from the `costline` configuration. */
function currentSettings(scope?: vscode.ConfigurationScope): ReturnType<typeof buildSettings> {
  const c = config(scope);
  return buildSettings((key) => c.get(key));
}

/** Finds `name` on the PATH (with the Windows extensions there). */
function onPath(name: string): string | undefined {
  const exts = process.platform === 'win32' ? (process.env.PATHEXT ?? '.EXE').split(';') : [''];
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      try {
        fs.accessSync(candidate, fs.constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/** The costline binary: the `costline.path` setting, or `costline` on the PATH. */
function serverBinary(): string | undefined {
  const configured = config().get<string>('path')?.trim();
  if (configured) {
    return configured;
  }
  return onPath('costline');
}

async function startClient(context: vscode.ExtensionContext): Promise<void> {
  const binary = serverBinary();
  if (!binary) {
    const choice = await vscode.window.showErrorMessage(
      'costline: the `costline` binary is not on the PATH. Build it (`cargo build --release`) and set `costline.path`.',
      'Open settings',
    );
    if (choice) {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'costline.path');
    }
    return;
  }
  // No `transport`: with TransportKind.stdio the client would append `--stdio` to the
  // arguments, which `costline serve` rejects; without it, it talks over stdio as is.
  const serverOptions: ServerOptions = {
    command: binary,
    args: ['serve'],
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelector(),
    initializationOptions: currentSettings(),
    outputChannel: output,
    synchronize: {
      configurationSection: SECTION,
      fileEvents: vscode.workspace.createFileSystemWatcher('**/costline.toml'),
    },
    middleware: {
      workspace: {
        // The server asks for the `costline` section: it gets the settings as the
        // extension builds them (defaults filled in, empty values left out).
        configuration: async (params, token, next) => {
          const answers = await next(params, token);
          if (!Array.isArray(answers)) {
            return answers;
          }
          return params.items.map((item, i) => {
            if (item.section !== SECTION) {
              return answers[i] as unknown;
            }
            const scope = item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined;
            return currentSettings(scope);
          });
        },
      },
    },
  };
  client = new LanguageClient('costline', 'costline', serverOptions, clientOptions);
  context.subscriptions.push(client);
  await client.start();
  await updateStatus();
}

/** The machine models: from the server (`costline/machines`), else `costline machines`. */
async function listMachines(): Promise<MachineEntry[]> {
  if (client?.isRunning()) {
    try {
      const list = machinesFromServer(await client.sendRequest('costline/machines', {}));
      if (list.length > 0) {
        return list;
      }
    } catch {
      // fall back to the command line
    }
  }
  const binary = serverBinary();
  if (!binary) {
    return [];
  }
  return new Promise((resolve) => {
    execFile(binary, ['machines'], (error, stdout) => {
      resolve(error ? [] : parseMachinesOutput(stdout));
    });
  });
}

/** Where a setting the user changes from a command is written. */
function target(): vscode.ConfigurationTarget {
  return vscode.workspace.workspaceFolders?.length
    ? vscode.ConfigurationTarget.Workspace
    : vscode.ConfigurationTarget.Global;
}

async function updateStatus(): Promise<void> {
  if (!status) {
    return;
  }
  const settings = currentSettings();
  let machine = settings.machine;
  if (!machine && client?.isRunning()) {
    try {
      machine = machinesFromServer(await client.sendRequest('costline/machines', {})).find((m) => m.current)?.name;
    } catch {
      // the default name stays
    }
  }
  status.text = statusText(machine, settings.params);
  status.tooltip = new vscode.MarkdownString(
    `**costline**: machine model \`${machine ?? 'ib-hdr'}\`, bindings \`${formatParams(settings.params) || 'none'}\`\n\nClick to select the machine.`,
  );
  const editor = vscode.window.activeTextEditor;
  if (editor && (FORTRAN_LANGUAGE_IDS as readonly string[]).includes(editor.document.languageId)) {
    status.show();
  } else {
    status.hide();
  }
}

async function pickMachine(): Promise<void> {
  const machines = await listMachines();
  if (machines.length === 0) {
    void vscode.window.showErrorMessage('costline: no machine models found (`costline machines`).');
    return;
  }
  const configured = currentSettings().machine;
  const items = machines.map((m) => ({
    label: m.name,
    description: (configured ? m.name === configured : m.current) ? '(current) ' + m.description : m.description,
    detail: m.detail,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: 'costline: Select machine',
    placeHolder: 'The machine model that prices counts into seconds',
    matchOnDescription: true,
  });
  if (picked) {
    await config().update('machine', picked.label, target());
  }
}

async function setParameters(): Promise<void> {
  const current = formatParams(currentSettings().params);
  const text = await vscode.window.showInputBox({
    title: 'costline: Set parameters',
    prompt: 'Bindings of the program unknowns, NAME=VALUE separated by spaces (p: processors); empty clears them',
    placeHolder: 'n=1000 p=16',
    value: current,
    validateInput: (value) => {
      const parsed = parseParams(value);
      return typeof parsed === 'string' ? parsed : undefined;
    },
  });
  if (text === undefined) {
    return;
  }
  const parsed = parseParams(text);
  if (typeof parsed !== 'string') {
    await config().update('params', parsed, target());
  }
}

/** The file of a document and the files beside it that define the modules it uses. */
function compareFiles(document: vscode.TextDocument): string[] {
  const file = document.uri.fsPath;
  const used = usedModules(document.getText());
  const files = [file];
  if (used.size === 0) {
    return files;
  }
  const dir = path.dirname(file);
  for (const name of fs.readdirSync(dir)) {
    const other = path.join(dir, name);
    if (other === file || !/\.(f\w*|hpf)$/i.test(name)) {
      continue;
    }
    try {
      const defined = definedModules(fs.readFileSync(other, 'utf8'));
      if ([...defined].some((m) => used.has(m))) {
        files.push(other);
      }
    } catch {
      // unreadable: left out
    }
  }
  return files;
}

async function compareDistributions(context: vscode.ExtensionContext): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const document = editor?.document;
  if (!document || document.uri.scheme !== 'file') {
    void vscode.window.showErrorMessage('costline: open a Fortran file with a DISTRIBUTE directive first.');
    return;
  }
  const binary = serverBinary();
  if (!binary) {
    void vscode.window.showErrorMessage('costline: the `costline` binary is not found (setting `costline.path`).');
    return;
  }
  if (document.isDirty && !(await document.save())) {
    return;
  }
  const range = await vscode.window.showInputBox({
    title: 'costline: Compare distributions (1/2)',
    prompt: 'The problem size range, NAME=LO..HI (empty: as written)',
    placeHolder: 'n=16..1024',
    validateInput: checkRange,
  });
  if (range === undefined) {
    return;
  }
  const procs = await vscode.window.showInputBox({
    title: 'costline: Compare distributions (2/2)',
    prompt: 'Processor counts, LO..HI or a list (empty: as written)',
    placeHolder: '4..64',
    validateInput: checkProcs,
  });
  if (procs === undefined) {
    return;
  }
  const dir = context.globalStorageUri.fsPath;
  fs.mkdirSync(dir, { recursive: true });
  const svg = path.join(dir, `compare-${path.basename(document.fileName)}.svg`);
  const settings = currentSettings(document.uri);
  const args = compareArgs({
    files: compareFiles(document),
    params: settings.params,
    machine: settings.machine,
    range,
    procs,
    svg,
  });
  const channel = output ?? vscode.window.createOutputChannel('costline');
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'costline: comparing distributions' },
    () =>
      new Promise<void>((resolve) => {
        execFile(binary, args, { cwd: path.dirname(document.fileName), maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
          channel.appendLine(`$ costline ${args.join(' ')}`);
          channel.append(stdout);
          channel.append(stderr);
          channel.show(true);
          if (error) {
            void vscode.window.showErrorMessage(`costline compare failed: ${stderr.trim() || error.message}`);
          } else {
            void vscode.commands.executeCommand('vscode.open', vscode.Uri.file(svg), vscode.ViewColumn.Beside);
          }
          resolve();
        });
      }),
  );
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('costline');
  status = vscode.window.createStatusBarItem('costline.status', vscode.StatusBarAlignment.Right, 100);
  status.name = 'costline';
  status.command = 'costline.pickMachine';
  context.subscriptions.push(
    output,
    status,
    vscode.commands.registerCommand('costline.pickMachine', pickMachine),
    vscode.commands.registerCommand('costline.setParameters', setParameters),
    vscode.commands.registerCommand('costline.compareDistributions', () => compareDistributions(context)),
    vscode.commands.registerCommand('costline.restartServer', async () => {
      if (client) {
        const old = client;
        client = undefined;
        await old.dispose();
      }
      await startClient(context);
    }),
    vscode.window.onDidChangeActiveTextEditor(() => void updateStatus()),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('costline.path')) {
        await vscode.commands.executeCommand('costline.restartServer');
      } else if (e.affectsConfiguration(SECTION)) {
        await updateStatus();
      }
    }),
  );
  await startClient(context);
  await updateStatus();
}

export async function deactivate(): Promise<void> {
  if (client) {
    await client.stop();
  }
}
