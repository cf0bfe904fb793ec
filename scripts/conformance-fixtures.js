// Builds the MCP server fixture apps (test/fixtures/mcp-server, mcp-client) into dist/,
// and serves them:
//   node scripts/conformance-fixtures.js build
//   node scripts/conformance-fixtures.js stdio [--no-build]          the sample app over stdio
//   node scripts/conformance-fixtures.js http [--port N] [--no-build] the conformance app over HTTP
// The fixtures import `agenttool` by name, which Node resolves to this package's own
// bundle (dist/pkg), as a user's app gets it: the build first brings dist/ up to date
// (scripts/start-build.js), then compiles the fixtures alone against its declarations.
// Compiler output goes to stderr, so stdout carries only the protocol under stdio.
'use strict';
const { spawnSync } = require('node:child_process');
const { readdirSync } = require('node:fs');
const { join } = require('node:path');
const { buildOnChange, filesUnder, underBuildLock } = require('./build-stamp');

const root = join(__dirname, '..');
const fixtures = join(root, 'dist', 'test', 'fixtures', 'mcp-server');
function build() {
  underBuildLock(join(__dirname, 'start-build.js'), ['--quiet', '--allow-type-errors'], root);
  underBuildLock(__filename, ['compile-locked'], root);
}

// Four test files ask for this build in one Jest run, and CI runs two: it runs when an
// input changed (the fixtures, the package's declarations, the configs, the lock file) or
// an output is missing, and then tsc compiles incrementally, rechecking only what changed.
function compile() {
  const fixtureSources = ['mcp-server', 'mcp-client'].flatMap((folder) =>
    readdirSync(join(root, 'test', 'fixtures', folder))
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))
      .map((name) => join('test', 'fixtures', folder, name)),
  );
  const config = join(root, 'test', 'fixtures', 'mcp-server', 'tsconfig.json');
  buildOnChange({
    stamp: join(fixtures, '.built'),
    inputs: [
      ...fixtureSources.map((source) => join(root, source)),
      ...filesUnder(join(root, 'dist', 'src'), '.d.ts'),
      join(root, 'tsconfig.json'),
      config,
      join(root, 'package-lock.json'),
    ],
    outputs: fixtureSources.map((source) => join(root, 'dist', source.replace(/\.ts$/, '.js'))),
    buildInfo: join(fixtures, '.tsbuildinfo'),
    build: () => {
      const tsc = require.resolve('typescript/bin/tsc');
      const run = spawnSync(process.execPath, [tsc, '-p', config], {
        cwd: root,
        stdio: ['ignore', process.stderr, process.stderr],
      });
      if (run.status !== 0) {
        throw new Error('conformance-fixtures: the build failed (see the compiler output above)');
      }
    },
  });
}

const [command = 'build', ...rest] = process.argv.slice(2);
if (command === 'compile-locked') {
  // The second half of build(), run under the lock.
  try {
    compile();
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
  process.exit(0);
}
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
