// Runs every compiled benchmark (dist/bench/*.bench.js) one after another, or those
// whose names contain the words given on the command line.
'use strict';
const { readdirSync } = require('node:fs');
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');

const dir = join(__dirname, '..', 'dist', 'bench');
const filters = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.js'))
  .filter((f) => filters.length === 0 || filters.some((word) => f.includes(word)))
  .sort();
let failed = 0;
for (const file of files) {
  console.log(`\n== ${file.replace(/\.bench\.js$/, '')} ==`);
  const run = spawnSync(process.execPath, ['--expose-gc', join(dir, file)], { stdio: 'inherit' });
  if (run.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
