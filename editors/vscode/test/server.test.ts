// The extension's protocol side against the real server: the language client's protocol
// layer (vscode-languageserver-protocol over vscode-jsonrpc's node streams) talks to
// `costline serve` on stdio, initialized and configured with exactly the settings the
// extension builds (src/settings.ts) from the defaults its manifest contributes, on the
// shipped HPF examples. Also: the manifest (activation, untrusted workspaces), the
// parameter syntax, the binary an untrusted workspace may choose, the machine list of
// `costline machines --format json` and the server's `costline.compare`.
//
// COSTLINE_BIN: the costline binary (required).

import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  CodeActionRequest,
  CodeLensRequest,
  ConfigurationRequest,
  createMessageConnection,
  DidChangeConfigurationNotification,
  DidOpenTextDocumentNotification,
  DocumentDiagnosticRequest,
  ExecuteCommandRequest,
  ExitNotification,
  HoverRequest,
  InitializedNotification,
  InitializeRequest,
  InlayHintRequest,
  type ClientCapabilities,
  type CodeAction,
  type Command,
  type Diagnostic,
  type InlayHint,
  type MarkupContent,
  type MessageConnection,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver-protocol/node';
import manifest from '../package.json';
import {
  buildSettings,
  checkProcs,
  checkRange,
  compareArgument,
  compareResult,
  type ConfigLookup,
  configuredPath,
  documentSelector,
  FORTRAN_LANGUAGE_IDS,
  formatParams,
  machinesFromServer,
  parseMachinesJson,
  parseParams,
  profileResult,
  statusText,
} from '../src/settings';

const BIN = process.env.COSTLINE_BIN ?? '';
const REPO = path.resolve(__dirname, '../../../..');
const FIXTURES = path.join(REPO, 'tests/fixtures');
const WAIT_MS = Number(process.env.COSTLINE_TEST_WAIT_MS ?? '60000');

type Properties = Partial<Record<string, { default?: unknown; description?: string; markdownDescription?: string }>>;
const properties = manifest.contributes.configuration.properties as Properties;

/** `vscode.workspace.getConfiguration('costline').get` for a user's settings over the
 * defaults the manifest contributes. */
function vscodeConfig(user: Record<string, unknown> = {}): ConfigLookup {
  return (key) => (key in user ? user[key] : properties[`costline.${key}`]?.default);
}

describe('the manifest', () => {
  test('contributes the settings of DESIGN.md section 7 with descriptions and defaults', () => {
    const expected: Record<string, unknown> = {
      'costline.machine': null,
      'costline.params': {},
      'costline.imbalanceThreshold': 0.25,
      'costline.findingShare': 0.02,
      'costline.fixedLineLength': null,
      'costline.compiler': null,
      'costline.askCompiler': true,
      'costline.defines': {},
      'costline.sourceDirs': [],
      'costline.exclude': [],
      'costline.profileArguments': [],
      'costline.profileRanks': null,
      'costline.hints.enable': true,
      'costline.codeLens.enable': true,
      'costline.path': '',
    };
    for (const [key, value] of Object.entries(expected)) {
      const p = properties[key];
      assert.ok(p, `${key} is contributed`);
      assert.deepEqual(p.default, value, `${key}'s default`);
      assert.ok((p.markdownDescription ?? p.description ?? '').length > 20, `${key} has a description`);
    }
  });

  test('contributes the commands, free- and fixed-form Fortran, and the bundle as main', () => {
    const titles = manifest.contributes.commands.map((c) => `${c.category}: ${c.title}`);
    for (const t of ['costline: Select machine', 'costline: Set parameters', 'costline: Compare distributions', 'costline: Run profile']) {
      assert.ok(titles.includes(t), `${t} in ${titles.join(', ')}`);
    }
    const languages = manifest.contributes.languages;
    const free = languages.find((l) => l.extensions.includes('.f90'));
    const fixed = languages.find((l) => l.extensions.includes('.f'));
    assert.equal(free?.id, 'FortranFreeForm');
    assert.equal(fixed?.id, 'FortranFixedForm');
    assert.ok(fixed.extensions.includes('.for') && free.extensions.includes('.hpf'));
    const selected = documentSelector().map((s) => s.language);
    for (const l of languages) {
      assert.ok(selected.includes(l.id), `the client serves ${l.id}`);
    }
    // Every language id the client serves activates the extension.
    for (const id of FORTRAN_LANGUAGE_IDS) {
      assert.ok(selected.includes(id), `the client serves ${id}`);
      assert.ok(manifest.activationEvents.includes(`onLanguage:${id}`), `activates on ${id}`);
    }
    assert.equal(manifest.main, './dist/extension.js');
  });

  test('supports untrusted workspaces in part: what runs is not the workspace\'s to choose', () => {
    const untrusted = manifest.capabilities.untrustedWorkspaces;
    assert.equal(untrusted.supported, 'limited');
    assert.ok(untrusted.description.length > 40);
    assert.deepEqual([...untrusted.restrictedConfigurations].sort(), ['costline.askCompiler', 'costline.compiler', 'costline.path']);
    // The binary is a user (or remote) setting only.
    assert.equal(properties['costline.path'] && (manifest.contributes.configuration.properties['costline.path'] as { scope: string }).scope, 'machine');
  });
});

describe('settings', () => {
  test('the defaults send the threshold, the finding share and the switches, no machine and no params', () => {
    assert.deepEqual(buildSettings(vscodeConfig()), {
      imbalanceThreshold: 0.25,
      findingShare: 0.02,
      askCompiler: true,
      hints: { enable: true },
      codeLens: { enable: true },
    });
  });

  test("a user's values are sent; empty or mistyped ones are left out", () => {
    assert.deepEqual(
      buildSettings(
        vscodeConfig({
          machine: 'ipsc860',
          params: { N: 128, p: 4, x: 1.5 },
          imbalanceThreshold: 0.1,
          findingShare: 0,
          fixedLineLength: 132,
          compiler: ' gfortran -O3 ',
          askCompiler: false,
          defines: { USE_MPI: true, NX: 512, MODE: 'fast', 'bad name': 1, SPACE: 'a b', OFF: false },
          sourceDirs: ['src', ' '],
          exclude: ['legacy/'],
          profileArguments: ['-n', '8'],
          profileRanks: 2,
          'hints.enable': false,
        }),
      ),
      {
        machine: 'ipsc860',
        params: { n: 128, p: 4 },
        imbalanceThreshold: 0.1,
        findingShare: 0,
        fixedLineLength: 132,
        compiler: 'gfortran -O3',
        askCompiler: false,
        defines: { USE_MPI: '1', NX: '512', MODE: 'fast' },
        sourceDirs: ['src'],
        exclude: ['legacy/'],
        profileArguments: ['-n', '8'],
        profileRanks: 2,
        hints: { enable: false },
        codeLens: { enable: true },
      },
    );
    assert.equal(buildSettings(vscodeConfig({ machine: '  ', imbalanceThreshold: -1 })).machine, undefined);
    assert.equal(buildSettings(vscodeConfig({ imbalanceThreshold: -1 })).imbalanceThreshold, 0.25);
    assert.equal(buildSettings(vscodeConfig({ findingShare: 1.5 })).findingShare, 0.02);
    assert.equal(buildSettings(vscodeConfig({ profileRanks: 0 })).profileRanks, undefined);
    assert.equal(buildSettings(vscodeConfig({ profileArguments: ['a', 1] })).profileArguments, undefined);
    for (const columns of [40, 132.5, 2048, '132']) {
      assert.equal(buildSettings(vscodeConfig({ fixedLineLength: columns })).fixedLineLength, undefined);
    }
  });

  test('an untrusted workspace runs no compiler and cannot choose the binary', () => {
    const user = vscodeConfig({ compiler: 'gfortran -O3', askCompiler: true });
    assert.equal(buildSettings(user, false).askCompiler, false);
    assert.equal(buildSettings(user, false).compiler, undefined);
    assert.equal(buildSettings(user, true).compiler, 'gfortran -O3');
    const inspected = { defaultValue: '', globalValue: '/opt/costline', workspaceValue: './evil' };
    assert.equal(configuredPath(inspected, false), '/opt/costline');
    assert.equal(configuredPath(inspected, true), './evil');
    assert.equal(configuredPath({ defaultValue: '', workspaceValue: './evil' }, false), '');
    assert.equal(configuredPath({ defaultValue: '', workspaceFolderValue: ' ./f ' }, true), './f');
  });

  test('Set parameters reads NAME=VALUE words', () => {
    assert.deepEqual(parseParams('n=1000, P=16'), { n: 1000, p: 16 });
    assert.deepEqual(parseParams('  '), {});
    assert.equal(parseParams('n=1.5'), '`n=1.5` is not NAME=INTEGER');
    assert.equal(formatParams({ p: 16, n: 1000 }), 'n=1000 p=16');
    assert.equal(statusText('eth-25g', { n: 4 }), '$(dashboard) eth-25g · n=4');
    assert.equal(statusText(undefined, undefined), '$(dashboard) ib-hdr');
  });
});

describe('the costline binary', () => {
  before(() => {
    assert.ok(BIN !== '' && fs.existsSync(BIN), `COSTLINE_BIN names the costline binary (got '${BIN}')`);
  });

  test('`costline machines --format json` parses into the picker', () => {
    const list = parseMachinesJson(execFileSync(BIN, ['machines', '--format', 'json'], { encoding: 'utf8' }));
    const names = list.map((m) => m.name);
    for (const n of ['ib-hdr', 'eth-25g', 'multicore', 'ipsc860']) {
      assert.ok(names.includes(n), `${n} in ${names.join(', ')}`);
    }
    assert.deepEqual(
      list.filter((m) => m.current).map((m) => m.name),
      ['ib-hdr'],
    );
    assert.ok(list.every((m) => m.description.length > 10 && (m.detail === 'shipped' || m.detail.endsWith('.toml'))), JSON.stringify(list));
    // Not a listing, or another version: nothing.
    assert.deepEqual(parseMachinesJson('ib-hdr (default)  [shipped]'), []);
    assert.deepEqual(parseMachinesJson('{"version": 2, "machines": [{"name": "x"}]}'), []);
  });

  test('Compare distributions: the argument of costline.compare and what it answers', () => {
    assert.equal(checkRange('n=64..256'), undefined);
    assert.notEqual(checkRange('n=64'), undefined);
    assert.equal(checkProcs('2..8'), undefined);
    assert.notEqual(checkProcs('two'), undefined);
    assert.deepEqual(compareArgument('file:///a.f90', ' n=16..64 ', '2..8'), {
      uri: 'file:///a.f90',
      params: ['n=16..64'],
      procs: '2..8',
    });
    assert.deepEqual(compareArgument('file:///a.f90', '', ''), { uri: 'file:///a.f90', params: [] });
    assert.equal(compareResult(null), undefined);
    assert.equal(compareResult({ report: { version: 2, comparisons: [] }, text: '', svg: '' }), undefined);
  });

  test("Run profile: what costline.runProfile answers", () => {
    assert.deepEqual(profileResult({ ok: true, profile: '/w/.costline/profile.json', message: '3 statement(s) measured' }), {
      ok: true,
      message: '3 statement(s) measured',
    });
    assert.deepEqual(profileResult({ ok: false, message: 'the program failed' }), { ok: false, message: 'the program failed' });
    assert.equal(profileResult(null).ok, false);
  });
});

/** A language client's session with the real server. */
class Session {
  readonly connection: MessageConnection;
  readonly server: ChildProcess;
  /** `window/showMessage` and `window/logMessage` texts. */
  readonly messages: string[] = [];
  /** Methods of the requests the server sent. */
  readonly serverRequests: string[] = [];
  stderr = '';

  constructor(
    readonly root: string,
    public config: ConfigLookup,
  ) {
    this.server = spawn(BIN, ['serve'], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    this.server.stderr?.on('data', (d: Buffer) => {
      this.stderr += d.toString();
    });
    if (!this.server.stdout || !this.server.stdin) {
      throw new Error('no stdio to the server');
    }
    this.connection = createMessageConnection(
      new StreamMessageReader(this.server.stdout),
      new StreamMessageWriter(this.server.stdin),
    );
    // As the extension's middleware answers: the `costline` section is the settings it
    // builds.
    this.connection.onRequest(ConfigurationRequest.type, (params) => {
      this.serverRequests.push(ConfigurationRequest.method);
      return params.items.map((item) => (item.section === 'costline' ? buildSettings(this.config) : null));
    });
    this.connection.onRequest((method: string) => {
      this.serverRequests.push(method);
      return null;
    });
    this.connection.onNotification((method: string, params: unknown) => {
      if (method === 'window/showMessage' || method === 'window/logMessage') {
        this.messages.push((params as { message: string }).message);
      }
    });
    this.connection.listen();
  }

  uri(name: string): string {
    return `file://${path.join(this.root, name)}`;
  }

  async initialize(): Promise<void> {
    // What vscode-languageclient 9 announces, as far as the server reads it.
    const capabilities: ClientCapabilities = {
      general: { positionEncodings: ['utf-16'] },
      window: { workDoneProgress: true },
      workspace: {
        configuration: true,
        workspaceFolders: true,
        didChangeConfiguration: { dynamicRegistration: true },
        didChangeWatchedFiles: { dynamicRegistration: true },
        inlayHint: { refreshSupport: true },
        codeLens: { refreshSupport: true },
        diagnostics: { refreshSupport: true },
      },
      textDocument: {
        synchronization: { dynamicRegistration: true, didSave: true },
        hover: { contentFormat: ['markdown', 'plaintext'] },
        inlayHint: { dynamicRegistration: true },
        codeLens: { dynamicRegistration: true },
        codeAction: {
          codeActionLiteralSupport: { codeActionKind: { valueSet: ['', 'quickfix', 'refactor'] } },
          dataSupport: true,
        },
        diagnostic: { dynamicRegistration: true, relatedDocumentSupport: false },
      },
    };
    const result = await this.connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- VS Code sends it too
      rootUri: `file://${this.root}`,
      workspaceFolders: [{ uri: `file://${this.root}`, name: path.basename(this.root) }],
      capabilities,
      initializationOptions: buildSettings(this.config),
    });
    assert.ok(result.capabilities.inlayHintProvider, 'the server offers inlay hints');
    await this.connection.sendNotification(InitializedNotification.type, {});
  }

  async open(name: string, languageId: string): Promise<string> {
    const uri = this.uri(name);
    await this.connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId, version: 1, text: fs.readFileSync(path.join(this.root, name), 'utf8') },
    });
    return uri;
  }

  /** A request's result, or undefined while the server answers ContentModified. */
  async ask<R>(send: () => Promise<R>): Promise<R | undefined> {
    try {
      return await send();
    } catch (e) {
      if ((e as { code?: number }).code === -32801) {
        return undefined;
      }
      throw e;
    }
  }

  async close(): Promise<void> {
    await this.connection.sendRequest(ShutdownRequest.type);
    await this.connection.sendNotification(ExitNotification.type);
    await new Promise<void>((resolve) => {
      if (this.server.exitCode !== null) {
        resolve();
      } else {
        this.server.on('exit', () => {
          resolve();
        });
      }
    });
    this.connection.dispose();
  }
}

/** Polls `check` until it returns a value; fails with what it last saw. */
async function eventually<T>(what: string, check: () => Promise<{ ok: T | undefined; seen: unknown }>): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  let seen: unknown;
  for (;;) {
    const r = await check();
    if (r.ok !== undefined) {
      return r.ok;
    }
    seen = r.seen;
    if (Date.now() > deadline) {
      assert.fail(`${what}: not within ${WAIT_MS} ms; last seen: ${JSON.stringify(seen, null, 1)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function labels(hints: InlayHint[] | null | undefined): Partial<Record<number, string>> {
  const byLine: Partial<Record<number, string>> = {};
  for (const h of hints ?? []) {
    byLine[h.position.line] = typeof h.label === 'string' ? h.label : h.label.map((p) => p.value).join('');
  }
  return byLine;
}

/** The seconds of the `≈ X unit/run` in a lens title. */
function seconds(title: string): number | undefined {
  const m = /≈ ([\d.]+) (s|ms|µs|ns)\/run/.exec(title);
  const scale: Record<string, number> = { s: 1, ms: 1e-3, 'µs': 1e-6, ns: 1e-9 };
  return m ? Number(m[1]) * (scale[m[2]] ?? Number.NaN) : undefined;
}

const WHOLE = { start: { line: 0, character: 0 }, end: { line: 200, character: 0 } };

describe('the real server, as the extension configures it', { timeout: 10 * WAIT_MS }, () => {
  let root = '';
  let s: Session;
  let jacobi = '';
  let redblack = '';

  before(async () => {
    assert.ok(BIN !== '' && fs.existsSync(BIN), `COSTLINE_BIN names the costline binary (got '${BIN}')`);
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'costline-vscode-ws-'));
    for (const f of ['free/jacobi_hpf.f90', 'free/grid_params.f90', 'fixed/redblack.f', 'free/triangular_update.f90']) {
      fs.copyFileSync(path.join(FIXTURES, f), path.join(root, path.basename(f)));
    }
    // findingShare 0: every finding, the boundary row's imbalance too (at the default
    // share of 2% the one-element row does not warn).
    s = new Session(root, vscodeConfig({ findingShare: 0 }));
    await s.initialize();
    jacobi = await s.open('jacobi_hpf.f90', 'FortranFreeForm');
    redblack = await s.open('redblack.f', 'FortranFixedForm');
  });

  after(async () => {
    await s.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('pull diagnostics: the imbalance of row 0, with the module from the other file', async () => {
    const diags = await eventually('an imbalance warning on line 15', async () => {
      const report = await s.ask(() =>
        s.connection.sendRequest(DocumentDiagnosticRequest.type, { textDocument: { uri: jacobi } }),
      );
      const items: Diagnostic[] = report && report.kind === 'full' ? report.items : [];
      const hit = items.find((d) => d.range.start.line === 14 && d.code === 'imbalance');
      return { ok: hit ? items : undefined, seen: items.map((d) => `${d.range.start.line + 1}: ${d.message}`) };
    });
    const warning = diags.find((d) => d.range.start.line === 14);
    assert.ok(warning);
    assert.equal(warning.severity, 2);
    assert.equal(warning.source, 'costline');
    assert.match(warning.message, /unevenly spread over the 4 processors of `pr` \(wd 1\.73\)/);
    assert.ok(diags.some((d) => d.range.start.line === 9 && d.message.includes('this mapping of `u`')));
  });

  test('inlay hints: counts, wd, messages, time, in both source forms', async () => {
    await eventually('jacobi hints', async () => {
      const h = labels(
        await s.ask(() => s.connection.sendRequest(InlayHintRequest.type, { textDocument: { uri: jacobi }, range: WHOLE })),
      );
      const ok = h[14] === '×258 · wd 1.73' && h[19] === '×~6.6e6 · wd 0.02 · 600 msg · 1.2 MiB';
      return { ok: ok ? true : undefined, seen: h };
    });
    await eventually('redblack hints', async () => {
      const h = labels(
        await s.ask(() => s.connection.sendRequest(InlayHintRequest.type, { textDocument: { uri: redblack }, range: WHOLE })),
      );
      const ok = /^×6\.5e6 · wd 0\.01 · ≈ [\d.]+ \S+$/.test(h[13] ?? '') && (h[15] ?? '').startsWith('×6.5e6 · wd 0.01 · 2400 msg');
      return { ok: ok ? true : undefined, seen: h };
    });
  });

  test('code lenses: the program totals on the machine in use', async () => {
    await eventually('the jacobi lens', async () => {
      const lenses = (await s.ask(() => s.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri: jacobi } }))) ?? [];
      const title = lenses.find((l) => l.range.start.line === 1)?.command?.title ?? '';
      const ok = /^×1 run · 1\.3e7 assignments\/run · wd 0\.02 · 1200 msg · 1\.2 MiB · ≈ [\d.]+ \S+\/run \(compute .*\) on ib-hdr$/.test(title);
      return { ok: ok ? true : undefined, seen: lenses };
    });
  });

  test('hover: wd, and NT, TD of the halo reads', async () => {
    const hover = await s.ask(() =>
      s.connection.sendRequest(HoverRequest.type, { textDocument: { uri: jacobi }, position: { line: 19, character: 9 } }),
    );
    const value = (hover?.contents as MarkupContent | undefined)?.value ?? '';
    assert.match(value, /wd \*\*0\.02\*\* over 4 processors/);
    assert.match(value, /NT \*\*300\*\* · TD \*\*600 KiB\*\*/);
    const fixed = await s.ask(() =>
      s.connection.sendRequest(HoverRequest.type, { textDocument: { uri: redblack }, position: { line: 14, character: 16 } }),
    );
    const text = (fixed?.contents as MarkupContent | undefined)?.value ?? '';
    assert.match(text, /wd \*\*0\.01\*\* over 16 processors/);
    assert.match(text, /NT \*\*600\*\* · TD \*\*149 KiB\*\*/);
  });

  test('code actions: the faster distribution, with its promised time', async () => {
    const triangular = await s.open('triangular_update.f90', 'FortranFreeForm');
    // The program's time as written, from its lens.
    const written = await eventually('the triangular lens', async () => {
      const lenses = (await s.ask(() => s.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri: triangular } }))) ?? [];
      const title = lenses[0]?.command?.title ?? '';
      return { ok: seconds(title), seen: title };
    });
    const action = await eventually('a (CYCLIC, *) action', async () => {
      const r = (await s.ask(() =>
        s.connection.sendRequest(CodeActionRequest.type, {
          textDocument: { uri: triangular },
          range: { start: { line: 7, character: 20 }, end: { line: 7, character: 20 } },
          context: { diagnostics: [] },
        }),
      )) ?? [];
      const found = r.find((a): a is CodeAction => 'title' in a && /^DISTRIBUTE a\(CYCLIC, \*\) ONTO PR\(8\) — [\d.]+× faster/.test(a.title));
      return { ok: found, seen: r.map((a: Command | CodeAction) => a.title) };
    });
    const edits = action.edit?.changes?.[triangular] ?? [];
    const lines = fs.readFileSync(path.join(root, 'triangular_update.f90'), 'utf8').split('\n');
    for (const e of edits) {
      assert.equal(e.range.start.line, 7);
      assert.equal(e.range.end.line, 7);
      const line = lines[7] ?? '';
      lines[7] = line.slice(0, e.range.start.character) + e.newText + line.slice(e.range.end.character);
    }
    assert.equal(lines[7], '!HPF$ DISTRIBUTE (CYCLIC, *) ONTO pr :: a');
    const promised = (action.data as { predicted_time_s?: number } | undefined)?.predicted_time_s ?? 0;
    assert.ok(promised > 0 && promised < written, `promised ${String(promised)} s, as written ${String(written)} s`);
  });

  test('costline.compare: the server finds the module and answers the report, text and plot', async () => {
    const answer: unknown = await s.connection.sendRequest(ExecuteCommandRequest.type, {
      command: 'costline.compare',
      arguments: [compareArgument(jacobi, 'n=64..256', '2..8')],
    });
    const result = compareResult(answer);
    assert.ok(result, JSON.stringify(answer).slice(0, 400));
    assert.equal(result.report.comparisons.length, 1);
    const c = result.report.comparisons[0] as { path: string; param: string; procs: number[] };
    assert.equal(c.path, path.join(root, 'jacobi_hpf.f90'));
    assert.equal(c.param, 'n');
    assert.deepEqual(c.procs, [2, 4, 8]);
    assert.match(result.text, /DISTRIBUTE \(BLOCK, \*\) ONTO pr :: t/);
    assert.match(result.svg, /^<svg/);
  });

  test('the settings the extension sent were accepted', () => {
    assert.deepEqual(
      s.messages.filter((m) => m.includes('costline:') && !m.includes('files analyzed')),
      [],
      'no warnings about the settings',
    );
    assert.ok(s.serverRequests.includes(ConfigurationRequest.method), 'the server asked for the settings');
  });

  test('a settings change (machine and params, as the commands write them) reprices and rebinds', async () => {
    const machines = machinesFromServer(await s.connection.sendRequest('costline/machines', {}));
    assert.ok(machines.some((m) => m.name === 'ipsc860'));
    s.config = vscodeConfig({ machine: 'ipsc860', params: { n: 128 } });
    await s.connection.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
    await eventually('the lens on ipsc860 and ×130 on line 15', async () => {
      const lenses = (await s.ask(() => s.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri: jacobi } }))) ?? [];
      const title = lenses[0]?.command?.title ?? '';
      const h = labels(
        await s.ask(() => s.connection.sendRequest(InlayHintRequest.type, { textDocument: { uri: jacobi }, range: WHOLE })),
      );
      const ok = title.endsWith('on ipsc860') && h[14] === '×130 · wd 1.73';
      return { ok: ok ? true : undefined, seen: { title, hint: h[14] } };
    });
    assert.ok(s.serverRequests.includes('workspace/inlayHint/refresh'), 'the server asked for fresh hints');
    assert.ok(s.serverRequests.includes('workspace/codeLens/refresh'), 'the server asked for fresh lenses');
    // The server's own command (the language client registers it as a VS Code command).
    const picked: unknown = await s.connection.sendRequest(ExecuteCommandRequest.type, {
      command: 'costline.selectMachine',
      arguments: ['eth-25g'],
    });
    assert.equal(picked, 'eth-25g');
  });
});
