// Bundles the extension (dist/extension.js, `vscode` left to the editor) or, with
// --tests, the node tests (out/test/*.test.js). --production minifies.
import * as esbuild from 'esbuild';
import { readdirSync } from 'node:fs';

const tests = process.argv.includes('--tests');
const production = process.argv.includes('--production');

const common = {
  bundle: true,
  platform: 'node',
  target: 'node18',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
};

if (tests) {
  await esbuild.build({
    ...common,
    entryPoints: readdirSync('test')
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => `test/${f}`),
    outdir: 'out/test',
  });
} else {
  await esbuild.build({
    ...common,
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    external: ['vscode'],
  });
}
