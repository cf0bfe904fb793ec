// Compiles the framework fixtures (test/fixtures/frameworks: NestJS apps, agent loops)
// into dist/ against the declarations of dist/src, when one of its inputs changed (the
// fixtures, those declarations, the configs, the lock file) or an output is missing:
// six test files ask for it in one Jest run, and CI runs two. The compile is an
// incremental tsc. Run after dist/ is built (test/support/frameworks.ts does both).
'use strict';
const { spawnSync } = require('node:child_process');
const { readdirSync } = require('node:fs');
const { join } = require('node:path');
const { buildOnChange, filesUnder } = require('./build-stamp');

const root = join(__dirname, '..');
const folder = join(root, 'test', 'fixtures', 'frameworks');
const outputs = join(root, 'dist', 'test', 'fixtures', 'frameworks');
const config = join(folder, 'tsconfig.json');
const sources = readdirSync(folder).filter(
  (name) => name.endsWith('.ts') && !name.endsWith('.d.ts'),
);

buildOnChange({
  stamp: join(outputs, '.built'),
  inputs: [
    ...sources.map((name) => join(folder, name)),
    ...filesUnder(join(root, 'dist', 'src'), '.d.ts'),
    config,
    join(root, 'tsconfig.json'),
    join(root, 'package-lock.json'),
  ],
  outputs: sources.map((name) => join(outputs, name.replace(/\.ts$/, '.js'))),
  buildInfo: join(outputs, '.tsbuildinfo'),
  build: () => {
    const tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
    const run = spawnSync(process.execPath, [tsc, '-p', config], { cwd: root, stdio: 'inherit' });
    if (run.status !== 0) process.exit(run.status ?? 1);
  },
});
