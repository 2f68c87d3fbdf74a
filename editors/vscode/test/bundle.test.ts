// The bundle the .vsix ships (dist/extension.js, from `npm run bundle` or `npm run
// package`) loads in Node with every import resolved but `vscode`, which the editor
// provides (here a stub), and exports the extension's entry points.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import Module from 'node:module';
import * as path from 'node:path';
import { test } from 'node:test';

test('dist/extension.js loads with only `vscode` external and exports activate and deactivate', () => {
  const bundle = path.resolve(__dirname, '../../dist/extension.js');
  assert.ok(fs.existsSync(bundle), `${bundle} exists (run npm run bundle first)`);
  // Any property of the stub is the stub; calling or constructing it gives it back.
  const stub: unknown = new Proxy(function () {}, {
    get: (_target, key) => (key === '__esModule' ? false : stub),
    apply: () => stub,
    construct: () => stub as object,
  });
  const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const load = loader._load;
  const requested: string[] = [];
  loader._load = function (this: unknown, request: string, ...rest: unknown[]) {
    requested.push(request);
    return request === 'vscode' ? stub : load.call(this, request, ...rest);
  };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const extension = require(bundle) as Record<string, unknown>;
    assert.equal(typeof extension.activate, 'function');
    assert.equal(typeof extension.deactivate, 'function');
  } finally {
    loader._load = load;
  }
  const external = requested.filter((r) => !r.startsWith('node:') && !Module.isBuiltin(r) && r !== bundle);
  assert.deepEqual([...new Set(external)], ['vscode'], 'everything but vscode is bundled');
});
