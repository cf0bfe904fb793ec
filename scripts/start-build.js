// Builds dist/ with tsc when a source is newer than its output (or has none), then the
// bundle (dist/pkg) when it is older than a source, so that
// `npm start` and `npm run demo` work on a fresh clone and skip the build when nothing
// changed. Usage: node scripts/start-build.js [--quiet] [--allow-type-errors]; with
// --prune-only it only removes the outputs of sources that are gone (`npm run build`).
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
 * Deletes what tsc emitted for sources that no longer exist (moved or deleted): left in
 * dist/, `require('./x')` would find a stale `x.js` before a new `x/index.js`. Returns
 * how many files it removed.
 */
function pruneOrphans() {
  let removed = 0;
  const prune = (dir) => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        prune(full);
        if (fs.readdirSync(full).length === 0) fs.rmdirSync(full);
        continue;
      }
      const base = entry.name.match(/^(.*?)\.(js|js\.map|d\.ts|d\.ts\.map)$/);
      if (base === null) continue;
      const source = path.join(ROOT, path.relative(path.join(ROOT, 'dist'), dir), base[1]);
      if (!fs.existsSync(`${source}.ts`)) {
        fs.rmSync(full);
        removed++;
      }
    }
  };
  for (const dir of SOURCE_DIRS) prune(path.join(ROOT, 'dist', dir));
  return removed;
}

/**
 * Runs `tsc -p tsconfig.build.json` when something is stale, once outputs of sources
 * that are gone are removed. Throws when tsc fails,
 * unless `allowTypeErrors` and every output was emitted anyway (tsc emits despite type
 * errors; useful while others' work in progress does not type-check).
 */
function ensureBuilt({ quiet = false, allowTypeErrors = false } = {}) {
  pruneOrphans();
  const stale = staleSources();
  if (stale.length === 0) return ensureBundled({ quiet });
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
  if (run.status === 0) return ensureBundled({ quiet }) || true;
  const left = staleSources();
  if (allowTypeErrors && left.length === 0) {
    process.stderr.write('start-build: tsc reported type errors; continuing with its output\n');
    return ensureBundled({ quiet }) || true;
  }
  const output = quiet ? `${run.stdout}${run.stderr}` : '';
  throw new Error(`the build failed (tsc -p tsconfig.build.json exited ${run.status})\n${output}`);
}

/** The bundle's bin, written last by scripts/bundle.js: its age is the bundle's. */
const BUNDLE_STAMP = path.join(ROOT, 'dist', 'pkg', 'agenttool.js');

/**
 * Runs scripts/bundle.js when dist/pkg (the package's JavaScript) is missing or older than
 * a source of src/ or a config file. Returns whether it ran; throws when it fails.
 */
function ensureBundled({ quiet = false } = {}) {
  const built = fs.existsSync(BUNDLE_STAMP) ? fs.statSync(BUNDLE_STAMP).mtimeMs : -1;
  const configTime = Math.max(...CONFIGS.map((c) => fs.statSync(path.join(ROOT, c)).mtimeMs));
  const stale =
    built < configTime ||
    built < fs.statSync(path.join(ROOT, 'scripts', 'bundle.js')).mtimeMs ||
    sources(path.join(ROOT, 'src')).some((source) => fs.statSync(source).mtimeMs > built);
  if (!stale) return false;
  if (!quiet) process.stderr.write('Bundling the package: node scripts/bundle.js\n');
  const run = spawnSync(process.execPath, [path.join(__dirname, 'bundle.js')], {
    cwd: ROOT,
    stdio: quiet ? 'pipe' : 'inherit',
    encoding: 'utf8',
  });
  if (run.status === 0) return true;
  const output = quiet ? `${run.stdout}${run.stderr}` : '';
  throw new Error(`the bundle failed (scripts/bundle.js exited ${run.status})\n${output}`);
}

module.exports = { ensureBuilt, ensureBundled, pruneOrphans, staleSources, ROOT };

if (require.main === module) {
  if (process.argv.includes('--prune-only')) {
    pruneOrphans();
    process.exit(0);
  }
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
