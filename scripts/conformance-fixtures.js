// Builds the MCP server fixture apps (test/fixtures/mcp-server) together with src into
// dist/, and serves them:
//   node scripts/conformance-fixtures.js build
//   node scripts/conformance-fixtures.js stdio [--no-build]          the sample app over stdio
//   node scripts/conformance-fixtures.js http [--port N] [--no-build] the conformance app over HTTP
// Compiler output goes to stderr, so stdout carries only the protocol under stdio.
'use strict';
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');

const root = join(__dirname, '..');
const fixtures = join(root, 'dist', 'test', 'fixtures', 'mcp-server');

function build() {
  const tsc = require.resolve('typescript/bin/tsc');
  const config = join(root, 'test', 'fixtures', 'mcp-server', 'tsconfig.json');
  const run = spawnSync(process.execPath, [tsc, '-p', config], {
    cwd: root,
    stdio: ['ignore', process.stderr, process.stderr],
  });
  if (run.status !== 0) {
    console.error('conformance-fixtures: the build failed (see the compiler output above)');
    process.exit(run.status ?? 1);
  }
}

const [command = 'build', ...rest] = process.argv.slice(2);
if (!rest.includes('--no-build')) build();
if (command === 'stdio') require(join(fixtures, 'serve-stdio.js'));
else if (command === 'http') require(join(fixtures, 'serve-http.js'));
else if (command !== 'build') {
  console.error(`conformance-fixtures: unknown command "${command}"; use build, stdio or http`);
  process.exit(2);
}
