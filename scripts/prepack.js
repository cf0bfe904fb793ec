// `npm pack` and `npm publish` run this first: a clean build of dist/ (tsc, then the bundle) so that the package
// holds exactly the compiled sources of today (no output of a file since deleted), and no
// source maps, since the package ships no sources for them to point at.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');

fs.rmSync(path.join(ROOT, 'dist', 'src'), { recursive: true, force: true });
const tsc = require.resolve('typescript/bin/tsc', { paths: [ROOT] });
const run = spawnSync(
  process.execPath,
  [tsc, '-p', 'tsconfig.build.json', '--sourceMap', 'false'],
  { cwd: ROOT, stdio: 'inherit' },
);
if (run.status !== 0) {
  process.stderr.write(`prepack: the build failed (tsc exited ${run.status ?? run.signal})\n`);
  process.exit(1);
}
// The package's JavaScript is the bundle (dist/pkg); tsc's dist/src gives its declarations.
const bundled = spawnSync(process.execPath, [path.join(__dirname, 'bundle.js')], {
  cwd: ROOT,
  stdio: 'inherit',
});
if (bundled.status !== 0) {
  process.stderr.write(`prepack: the bundle failed (exited ${bundled.status ?? bundled.signal})\n`);
  process.exit(1);
}
