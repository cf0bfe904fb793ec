// Builds the MCP server fixture apps (test/fixtures/mcp-server) together with src into
// dist/, and serves them:
//   node scripts/conformance-fixtures.js build
//   node scripts/conformance-fixtures.js stdio [--no-build]          the sample app over stdio
//   node scripts/conformance-fixtures.js http [--port N] [--no-build] the conformance app over HTTP
// Compiler output goes to stderr, so stdout carries only the protocol under stdio.
'use strict';
const { spawnSync } = require('node:child_process');
const { mkdirSync, rmSync, statSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const fixtures = join(root, 'dist', 'test', 'fixtures', 'mcp-server');

// Two test files may build at once; they take turns (a lock older than 5 minutes is stale).
function withLock(fn) {
  const lock = join(root, 'dist', '.mcp-fixtures.lock');
  mkdirSync(join(root, 'dist'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      let age = 0;
      try {
        age = Date.now() - statSync(lock).mtimeMs;
      } catch {
        continue;
      }
      if (age > 5 * 60 * 1000) rmSync(lock, { recursive: true, force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function build() {
  withLock(compile);
}

function compile() {
  const tsc = require.resolve('typescript/bin/tsc');
  const config = join(root, 'test', 'fixtures', 'mcp-server', 'tsconfig.json');
  const run = spawnSync(process.execPath, [tsc, '-p', config], {
    cwd: root,
    stdio: ['ignore', process.stderr, process.stderr],
  });
  if (run.status !== 0) {
    throw new Error('conformance-fixtures: the build failed (see the compiler output above)');
  }
}

const [command = 'build', ...rest] = process.argv.slice(2);
if (!rest.includes('--no-build')) {
  try {
    build();
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
if (command === 'stdio') require(join(fixtures, 'serve-stdio.js'));
else if (command === 'http') require(join(fixtures, 'serve-http.js'));
else if (command !== 'build') {
  console.error(`conformance-fixtures: unknown command "${command}"; use build, stdio or http`);
  process.exit(2);
}
