// The extension activated in an untrusted workspace (`capabilities.untrustedWorkspaces`
// is `limited`): the workspace's own settings name a binary and a compiler, which must
// not run — the server is the costline on the PATH and is told to run no compiler —
// until the user grants trust, which restarts the server with the workspace's binary.
//
// COSTLINE_BIN: the costline binary (required).

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { messages, wire } from './wire';
import * as mock from './vscode-mock';

const BIN = process.env.COSTLINE_BIN ?? '';
const FIXTURES = path.resolve(__dirname, '../../../../tests/fixtures');
const BUNDLE = path.resolve(__dirname, '../../dist/extension.js');
const WAIT_MS = Number(process.env.COSTLINE_TEST_WAIT_MS ?? '60000');

/** Polls `check` until it holds. */
async function eventually(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!check()) {
    if (Date.now() > deadline) {
      assert.fail(`${what}: not within ${WAIT_MS} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the extension in an untrusted workspace', { timeout: 10 * WAIT_MS }, () => {
  let root = '';
  let planted = '';
  let marker = '';
  let extension: { activate(c: unknown): Promise<void>; deactivate(): Promise<void> };

  before(async () => {
    assert.ok(BIN !== '' && fs.existsSync(BIN), `COSTLINE_BIN names the costline binary (got '${BIN}')`);
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'costline-vscode-untrusted-'));
    fs.copyFileSync(path.join(FIXTURES, 'free/triangular_update.f90'), path.join(root, 'triangular_update.f90'));
    // What a cloned repository could plant: a "costline" that leaves a mark, then
    // serves (so that the trusted case still talks to a server).
    marker = path.join(root, 'planted-binary-ran');
    planted = path.join(root, 'planted-costline.sh');
    fs.writeFileSync(planted, `#!/bin/sh\ntouch '${marker}'\nexec '${BIN}' "$@"\n`, { mode: 0o755 });
    const doc = mock.document(
      path.join(root, 'triangular_update.f90'),
      'FortranFreeForm',
      fs.readFileSync(path.join(root, 'triangular_update.f90'), 'utf8'),
    );
    mock.textDocuments.push(doc);
    mock.tabs.push(doc.uri);
    mock.activeEditor.document = doc;
    (mock.vscode.workspace as { workspaceFolders: unknown }).workspaceFolders = [
      { uri: mock.Uri.file(root), name: 'ws', index: 0 },
    ];
    mock.trust.trusted = false;
    mock.recorded.workspace.path = planted;
    mock.recorded.workspace.compiler = 'planted-compiler -O3';
    mock.recorded.workspace.askCompiler = true;
    process.env.PATH = `${path.dirname(BIN)}${path.delimiter}${process.env.PATH ?? ''}`;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    extension = require(BUNDLE) as typeof extension;
    await extension.activate({ subscriptions: [], globalStorageUri: mock.Uri.file(path.join(root, 'storage')) });
  });

  after(async () => {
    await extension.deactivate();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test("the workspace's costline.path is ignored: the costline on the PATH serves", () => {
    assert.deepEqual(wire.spawned, [[BIN, 'serve', '--stdio']]);
    assert.ok(!fs.existsSync(marker), 'the planted binary ran');
  });

  test('the server is told to run no compiler, whatever the workspace says', async () => {
    const init = messages(wire.toServer).find((m) => m.method === 'initialize');
    const options = (init?.params as { initializationOptions: Record<string, unknown> }).initializationOptions;
    assert.equal(options.askCompiler, false);
    assert.equal(options.compiler, undefined);
    await eventually('the answer to workspace/configuration', () => {
      const request = messages(wire.toClient).find((m) => m.method === 'workspace/configuration');
      return messages(wire.toServer).some((m) => request !== undefined && m.id === request.id && m.method === undefined);
    });
    const request = messages(wire.toClient).find((m) => m.method === 'workspace/configuration');
    const answer = messages(wire.toServer).find((m) => m.id === request?.id && m.method === undefined);
    assert.deepEqual(answer?.result, [options]);
  });

  test('Run profile is refused: it would build and run the workspace\'s program', async () => {
    await mock.vscode.commands.executeCommand('costline.profile');
    assert.ok(
      mock.recorded.errors.some((e) => e.includes('trust the workspace')),
      mock.recorded.errors.join('\n'),
    );
    const asked = messages(wire.toServer).filter(
      (m) => m.method === 'workspace/executeCommand' && (m.params as { command?: string }).command === 'costline.runProfile',
    );
    assert.deepEqual(asked, []);
  });

  test("granting trust restarts the server with the workspace's own binary", async () => {
    mock.trust.trusted = true;
    mock.trustGranted.fire();
    await eventually('a second server', () => wire.spawned.length === 2);
    assert.deepEqual(wire.spawned[1], [planted, 'serve', '--stdio']);
    await eventually('the planted binary ran', () => fs.existsSync(marker));
  });
});
