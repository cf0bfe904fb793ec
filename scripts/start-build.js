// Builds dist/ with tsc when a source is newer than its output (or has none), so that
// `npm start` and `npm run demo` work on a fresh clone and skip the build when nothing
// changed. Usage: node scripts/start-build.js [--quiet] [--allow-type-errors]
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const SOURCE_DIRS = ['src', 'samples'];
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json', 'package.json'];

function sources(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    const wanted =
      entry.name.endsWith('.ts') &&
      !entry.name.endsWith('.d.ts') &&
      !entry.name.endsWith('.test.ts');
    return wanted ? [full] : [];
  });
}

/** The sources whose output is missing or older than they are (or than a config file). */
function staleSources() {
  const configTime = Math.max(...CONFIGS.map((c) => fs.statSync(path.join(ROOT, c)).mtimeMs));
  return SOURCE_DIRS.flatMap((dir) => sources(path.join(ROOT, dir))).filter((source) => {
    const output = path.join(ROOT, 'dist', path.relative(ROOT, source)).replace(/\.ts$/, '.js');
    if (!fs.existsSync(output)) return true;
    const built = fs.statSync(output).mtimeMs;
    return built < fs.statSync(source).mtimeMs || built < configTime;
  });
}

/**
 * Runs `tsc -p tsconfig.build.json` when something is stale. Throws when tsc fails,
 * unless `allowTypeErrors` and every output was emitted anyway (tsc emits despite type
 * errors; useful while others' work in progress does not type-check).
 */
function ensureBuilt({ quiet = false, allowTypeErrors = false } = {}) {
  const stale = staleSources();
  if (stale.length === 0) return false;
  if (!quiet) {
    process.stderr.write(
      `Building (${stale.length} changed source files): tsc -p tsconfig.build.json\n`,
    );
  }
  const tsc = require.resolve('typescript/bin/tsc', { paths: [ROOT] });
  const run = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: ROOT,
    stdio: quiet ? 'pipe' : 'inherit',
    encoding: 'utf8',
  });
  if (run.status === 0) return true;
  const left = staleSources();
  if (allowTypeErrors && left.length === 0) {
    process.stderr.write('start-build: tsc reported type errors; continuing with its output\n');
    return true;
  }
  const output = quiet ? `${run.stdout}${run.stderr}` : '';
  throw new Error(`the build failed (tsc -p tsconfig.build.json exited ${run.status})\n${output}`);
}

module.exports = { ensureBuilt, staleSources, ROOT };

if (require.main === module) {
  try {
    ensureBuilt({
      quiet: process.argv.includes('--quiet'),
      allowTypeErrors: process.argv.includes('--allow-type-errors'),
    });
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}
