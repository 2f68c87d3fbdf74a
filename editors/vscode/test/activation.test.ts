// The extension's bundle activated as VS Code would activate it, with a stand-in for the
// `vscode` module (test/vscode-mock.ts): vscode-languageclient starts the real server
// (found on the PATH), and the test checks what went over the wire (initialization
// options, the answers to `workspace/configuration`), what the providers the client
// registered return (inlay hints, code lenses, hover), the status bar, and the commands
// Set parameters, Select machine and Compare distributions, end to end.
//
// COSTLINE_BIN: the costline binary (required).

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildSettings, type ConfigLookup } from '../src/settings';
import { messages, wire } from './wire';
import * as mock from './vscode-mock';

const BIN = process.env.COSTLINE_BIN ?? '';
const FIXTURES = path.resolve(__dirname, '../../../../tests/fixtures');
const BUNDLE = path.resolve(__dirname, '../../dist/extension.js');
const WAIT_MS = Number(process.env.COSTLINE_TEST_WAIT_MS ?? '60000');

/** Polls `check` until it returns a value other than undefined. */
async function eventually<T>(what: string, check: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) {
        return v;
      }
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      assert.fail(`${what}: not within ${WAIT_MS} ms (${String(last)})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const token = new mock.CancellationTokenSource().token;

function provider(name: string): Record<string, (...args: unknown[]) => unknown> {
  const p = mock.recorded.providers.get(name);
  assert.ok(p, `the client registered a ${name} (registered: ${[...mock.recorded.providers.keys()].join(', ')})`);
  return p;
}

async function hints(doc: mock.MockDocument): Promise<Partial<Record<number, string>>> {
  const list = (await provider('InlayHintsProvider').provideInlayHints(
    doc,
    new mock.Range(0, 0, doc.lineCount, 0),
    token,
  )) as mock.InlayHint[] | undefined;
  const byLine: Partial<Record<number, string>> = {};
  for (const h of list ?? []) {
    byLine[h.position.line] = typeof h.label === 'string' ? h.label : h.label.map((p) => p.value).join('');
  }
  return byLine;
}

async function lens(doc: mock.MockDocument): Promise<string> {
  const list = (await provider('CodeLensProvider').provideCodeLenses(doc, token)) as mock.CodeLens[] | undefined;
  return list?.[0]?.command?.title ?? '';
}

/** The `costline` configuration as the stand-in answers it. */
const lookup: ConfigLookup = (key) => mock.vscode.workspace.getConfiguration('costline').get(key);

describe('the extension, activated', { timeout: 10 * WAIT_MS }, () => {
  let root = '';
  let jacobi: mock.MockDocument;
  let redblack: mock.MockDocument;
  let extension: { activate(c: unknown): Promise<void>; deactivate(): Promise<void> };

  before(async () => {
    assert.ok(BIN !== '' && fs.existsSync(BIN), `COSTLINE_BIN names the costline binary (got '${BIN}')`);
    assert.ok(fs.existsSync(BUNDLE), `${BUNDLE} exists (run npm run bundle first)`);
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'costline-vscode-activate-'));
    for (const f of ['free/jacobi_hpf.f90', 'free/grid_params.f90', 'fixed/redblack.f']) {
      fs.copyFileSync(path.join(FIXTURES, f), path.join(root, path.basename(f)));
    }
    const read = (name: string): string => fs.readFileSync(path.join(root, name), 'utf8');
    jacobi = mock.document(path.join(root, 'jacobi_hpf.f90'), 'FortranFreeForm', read('jacobi_hpf.f90'));
    redblack = mock.document(path.join(root, 'redblack.f'), 'FortranFixedForm', read('redblack.f'));
    mock.textDocuments.push(jacobi, redblack);
    mock.tabs.push(jacobi.uri, redblack.uri);
    mock.activeEditor.document = jacobi;
    // Every finding, the boundary row's imbalance too (the default share hides it).
    mock.recorded.user.findingShare = 0;
    (mock.vscode.workspace as { workspaceFolders: unknown }).workspaceFolders = [
      { uri: mock.Uri.file(root), name: 'ws', index: 0 },
    ];
    // `costline.path` is empty: the extension finds the binary on the PATH.
    process.env.PATH = `${path.dirname(BIN)}${path.delimiter}${process.env.PATH ?? ''}`;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    extension = require(BUNDLE) as typeof extension;
    await extension.activate({ subscriptions: [], globalStorageUri: mock.Uri.file(path.join(root, 'storage')) });
  });

  after(async () => {
    await extension.deactivate();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('registers its commands, and the client the server command', () => {
    for (const c of [
      'costline.pickMachine',
      'costline.setParameters',
      'costline.compareDistributions',
      'costline.profile',
      'costline.restartServer',
      'costline.selectMachine',
    ]) {
      assert.ok(mock.recorded.commands.has(c), `${c} (have: ${[...mock.recorded.commands.keys()].join(', ')})`);
    }
    assert.deepEqual(mock.recorded.errors, []);
  });

  test('sends the settings it builds, at initialize and when the server asks', async () => {
    const expected = buildSettings(lookup, true);
    assert.deepEqual(expected, { imbalanceThreshold: 0.25, findingShare: 0, askCompiler: true, hints: { enable: true }, codeLens: { enable: true } });
    const init = messages(wire.toServer).find((m) => m.method === 'initialize');
    assert.deepEqual((init?.params as { initializationOptions?: unknown }).initializationOptions, expected);
    // The server's workspace/configuration request and the client's answer.
    const answer = await eventually('the answer to workspace/configuration', () => {
      const request = messages(wire.toClient).find((m) => m.method === 'workspace/configuration');
      return messages(wire.toServer).find((m) => request && m.id === request.id && m.method === undefined);
    });
    assert.deepEqual(answer.result, [expected]);
    const opened = messages(wire.toServer)
      .filter((m) => m.method === 'textDocument/didOpen')
      .map((m) => (m.params as { textDocument: { languageId: string } }).textDocument.languageId);
    assert.deepEqual(opened.sort(), ['FortranFixedForm', 'FortranFreeForm']);
    // The costline on the PATH, over stdio with the flag the client appends.
    assert.deepEqual(wire.spawned[0], [BIN, 'serve', '--stdio']);
  });

  test('diagnostics reach the editor through the client (pulled)', async () => {
    const found = await eventually('the imbalance warning on line 15 in the diagnostics collection', () =>
      mock.recorded.diagnostics
        .get(jacobi.uri.toString())
        ?.find((d) => d.range.start.line === 14 && d.message.includes('unevenly spread over the 4 processors')),
    );
    assert.equal(found.severity, mock.vscode.DiagnosticSeverity.Warning);
    assert.ok(messages(wire.toServer).some((m) => m.method === 'textDocument/diagnostic'));
  });

  test('the providers answer with hints, lenses and hover', async () => {
    await eventually('jacobi hints', async () => ((await hints(jacobi))[14] === '×258 · wd 1.73' ? true : undefined));
    await eventually('redblack hints', async () =>
      (await hints(redblack))[13]?.startsWith('×6.5e6 · wd 0.01 · ≈ ') ? true : undefined,
    );
    assert.match(await lens(jacobi), /^×1 run · 1\.3e7 assignments\/run · wd 0\.02 · .* on ib-hdr$/);
    const hover = (await provider('HoverProvider').provideHover(jacobi, new mock.Position(19, 9), token)) as mock.Hover;
    const text = hover.contents.map((c) => c.value).join('\n');
    assert.match(text, /wd \*\*0\.02\*\*/);
    assert.match(text, /NT \*\*300\*\* · TD \*\*600 KiB\*\*/);
    assert.equal(mock.recorded.statusText, '$(dashboard) ib-hdr');
  });

  test('Set parameters binds n and the hints follow', async () => {
    mock.recorded.inputs.push('n=128');
    await mock.recorded.commands.get('costline.setParameters')?.();
    assert.deepEqual(mock.recorded.updates.at(-1), ['params', { n: 128 }, 2]);
    await eventually('×130 on line 15', async () => ((await hints(jacobi))[14] === '×130 · wd 1.73' ? true : undefined));
    assert.equal(mock.recorded.statusText, '$(dashboard) ib-hdr · n=128');
  });

  test('Select machine picks from the server list and the lens follows', async () => {
    let offered: string[] = [];
    mock.recorded.pick = (items) => {
      offered = items.map((i) => i.label);
      return items.find((i) => i.label === 'ipsc860');
    };
    await mock.recorded.commands.get('costline.pickMachine')?.();
    assert.ok(offered.includes('ib-hdr') && offered.includes('eth-25g'), offered.join(', '));
    assert.deepEqual(mock.recorded.updates.at(-1), ['machine', 'ipsc860', 2]);
    await eventually('the lens on ipsc860', async () => ((await lens(jacobi)).endsWith('on ipsc860') ? true : undefined));
    assert.equal(mock.recorded.statusText, '$(dashboard) ipsc860 · n=128');
  });

  test('Compare distributions asks the server (costline.compare) and opens the plot', async () => {
    mock.recorded.inputs.push('n=64..256', '2..8');
    await mock.recorded.commands.get('costline.compareDistributions')?.();
    const output = mock.recorded.output.join('\n');
    assert.match(output, /costline compare jacobi_hpf\.f90 \["n=64\.\.256"\] 2\.\.8/);
    // The server found the module of the other file and priced on the machine picked.
    assert.match(output, /DISTRIBUTE \(BLOCK, \*\) ONTO pr :: t in `jacobi` on ipsc860/);
    const request = messages(wire.toServer).find(
      (m) => m.method === 'workspace/executeCommand' && (m.params as { command: string }).command === 'costline.compare',
    );
    assert.ok(request, 'the client sent costline.compare');
    const open = mock.recorded.opened.find((o) => Array.isArray(o) && o[0] === 'vscode.open') as [string, mock.Uri] | undefined;
    assert.ok(open, 'the plot was opened');
    assert.match(fs.readFileSync(open[1].fsPath, 'utf8'), /<svg/);
    assert.deepEqual(mock.recorded.errors, []);
  });
});
