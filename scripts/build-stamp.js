// A build that runs once per change: the fixture builds that several test files ask for
// in one Jest run (and CI runs two). A stamp beside the outputs, written after each
// successful build, skips the next one when no input is newer and no output is missing.
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

/**
 * The lock the fixture builds take turns under (also test/cli/helpers.ts and
 * test/support/frameworks.ts): builds that test files ask for at once run one at a time,
 * and none reads declarations that another is writing.
 */
const BUILD_LOCK = join(tmpdir(), 'agenttool-cli-tests.lock');

/**
 * Runs `node script ...args` from `cwd` under BUILD_LOCK (with flock; without it, as it
 * is), its output on stderr; throws when it fails.
 */
function underBuildLock(script, args, cwd) {
  const command = [process.execPath, script, ...args];
  const [file, ...rest] =
    spawnSync('flock', ['--version']).status === 0 ? ['flock', BUILD_LOCK, ...command] : command;
  const run = spawnSync(file, rest, { cwd, stdio: ['ignore', process.stderr, process.stderr] });
  if (run.status !== 0) throw new Error(`${script} failed (see its output above)`);
}

/** The files under `dir` whose names end with `suffix`, at any depth. */
function filesUnder(dir, suffix) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(full, suffix);
    return entry.name.endsWith(suffix) ? [full] : [];
  });
}

/**
 * Runs `build` unless `stamp` is newer than every one of `inputs` and every one of
 * `outputs` exists; returns whether it ran. The builds here are incremental tsc
 * compiles, which do not look for outputs deleted since: a missing output also removes
 * `buildInfo`, so that the compile starts anew. `build` throws when it fails, and then
 * no stamp is written.
 */
function buildOnChange({ stamp, inputs, outputs, buildInfo, build }) {
  const missing = outputs.some((output) => !existsSync(output));
  if (!missing && existsSync(stamp)) {
    const stamped = statSync(stamp).mtimeMs;
    if (inputs.every((input) => statSync(input).mtimeMs < stamped)) return false;
  }
  if (missing) rmSync(buildInfo, { force: true });
  rmSync(stamp, { force: true });
  // Stamped with the time the build started: an input saved during it is newer.
  const started = new Date();
  build();
  writeFileSync(stamp, '');
  utimesSync(stamp, started, started);
  return true;
}

module.exports = { buildOnChange, filesUnder, underBuildLock };
