// The costline extension: starts `costline serve` for Fortran documents with the
// language client, sends it the `costline` settings, shows the machine model and the
// bindings in the status bar, and adds the commands Select machine, Set parameters,
// Compare distributions and Run profile. In an untrusted workspace it runs nothing the
// workspace chooses (`capabilities.untrustedWorkspaces` is `limited`): the binary comes
// from the user's settings or the PATH, the server runs no compiler, and Run profile
// (which builds and runs the workspace's program) is refused; granting trust restarts it.

import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  TransportKind,
} from 'vscode-languageclient/node';
import {
  buildSettings,
  checkProcs,
  checkRange,
  compareArgument,
  compareResult,
  configuredPath,
  documentSelector,
  FORTRAN_LANGUAGE_IDS,
  formatParams,
  machinesFromServer,
  type MachineEntry,
  parseMachinesJson,
  parseParams,
  profileResult,
  statusText,
} from './settings';

const SECTION = 'costline';

let client: LanguageClient | undefined;
let status: vscode.StatusBarItem | undefined;
let output: vscode.OutputChannel | undefined;

function config(scope?: vscode.ConfigurationScope): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(SECTION, scope);
}

/** Whether the workspace is trusted to choose the programs that run. */
function trusted(): boolean {
  return vscode.workspace.isTrusted;
}

/** The settings the server receives, from the `costline` configuration. */
function currentSettings(scope?: vscode.ConfigurationScope): ReturnType<typeof buildSettings> {
  const c = config(scope);
  return buildSettings((key) => c.get(key), trusted());
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

/** The costline binary: the `costline.path` setting (a workspace's own value only when
 * it is trusted), or `costline` on the PATH. */
function serverBinary(): string | undefined {
  const configured = configuredPath(config().inspect<string>('path'), trusted());
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
  // Over stdio: the client appends `--stdio`, which `costline serve` accepts.
  const serverOptions: ServerOptions = {
    command: binary,
    args: ['serve'],
    transport: TransportKind.stdio,
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

/** The machine models: from the server (`costline/machines`), else `costline machines
 * --format json`. */
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
    execFile(binary, ['machines', '--format', 'json'], (_error, stdout) => {
      // An invalid machine file exits 1 but still lists the others.
      resolve(parseMachinesJson(stdout));
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

/** Compare distributions: the server compares the active document's DISTRIBUTEs (with
 * the workspace files that define the modules it uses, as the editor has them) over the
 * problem sizes and processor counts asked for; the table goes to the output channel,
 * the plot opens beside the document. */
async function compareDistributions(context: vscode.ExtensionContext): Promise<void> {
  const document = vscode.window.activeTextEditor?.document;
  if (!document || !(FORTRAN_LANGUAGE_IDS as readonly string[]).includes(document.languageId)) {
    void vscode.window.showErrorMessage('costline: open a Fortran file with a DISTRIBUTE directive first.');
    return;
  }
  if (!client?.isRunning()) {
    void vscode.window.showErrorMessage('costline: the server is not running (see `costline.path`).');
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
  const running = client;
  const argument = compareArgument(document.uri.toString(), range, procs);
  const channel = output ?? vscode.window.createOutputChannel('costline');
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'costline: comparing distributions' },
    async () => {
      let answer: unknown;
      try {
        answer = await running.sendRequest(ExecuteCommandRequest.type, {
          command: 'costline.compare',
          arguments: [argument],
        });
      } catch (e) {
        void vscode.window.showErrorMessage(`costline compare failed: ${e instanceof Error ? e.message : String(e)}`);
        return;
      }
      const result = compareResult(answer);
      channel.appendLine(`costline compare ${path.basename(document.fileName)} ${JSON.stringify(argument.params)} ${argument.procs ?? ''}`);
      if (!result) {
        channel.appendLine('no DISTRIBUTE directive with formats: nothing to compare');
        channel.show(true);
        return;
      }
      channel.append(result.text);
      channel.show(true);
      const dir = context.globalStorageUri.fsPath;
      fs.mkdirSync(dir, { recursive: true });
      const svg = path.join(dir, `compare-${path.basename(document.fileName)}.svg`);
      fs.writeFileSync(svg, result.svg);
      await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(svg), vscode.ViewColumn.Beside);
    },
  );
}

/** Run profile: the server builds and runs the workspace's program once with counters
 * (`costline.runProfile`: the arguments and ranks of `costline.profileArguments` and
 * `costline.profileRanks`), writes the profile and counts with it. The server shows its
 * summary or why it failed; the output channel keeps it. Refused in an untrusted
 * workspace: it runs the workspace's program. */
async function runProfile(): Promise<void> {
  if (!trusted()) {
    void vscode.window.showErrorMessage('costline: Run profile builds and runs the workspace\'s program; trust the workspace first.');
    return;
  }
  if (!client?.isRunning()) {
    void vscode.window.showErrorMessage('costline: the server is not running (see `costline.path`).');
    return;
  }
  const running = client;
  const channel = output ?? vscode.window.createOutputChannel('costline');
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: 'costline: running the profile' },
    async () => {
      let answer: unknown;
      try {
        answer = await running.sendRequest(ExecuteCommandRequest.type, { command: 'costline.runProfile', arguments: [] });
      } catch (e) {
        void vscode.window.showErrorMessage(`costline profile failed: ${e instanceof Error ? e.message : String(e)}`);
        return;
      }
      const result = profileResult(answer);
      channel.appendLine(`costline profile: ${result.ok ? '' : 'failed: '}${result.message}`);
    },
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
    vscode.commands.registerCommand('costline.profile', runProfile),
    vscode.commands.registerCommand('costline.restartServer', async () => {
      if (client) {
        const old = client;
        client = undefined;
        await old.dispose();
      }
      await startClient(context);
    }),
    vscode.window.onDidChangeActiveTextEditor(() => void updateStatus()),
    // Trusted now: the workspace's own binary and compiler settings count.
    vscode.workspace.onDidGrantWorkspaceTrust(() => vscode.commands.executeCommand('costline.restartServer')),
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
