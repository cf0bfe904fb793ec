// npm run conformance: builds the conformance fixture app (test/fixtures/mcp-server),
// serves it over Streamable HTTP on 127.0.0.1, runs @modelcontextprotocol/conformance
// (server mode, every scenario) against it with the expected failures in
// scripts/conformance-baseline.yml, and prints the suite's summary. Arguments go to the
// conformance CLI (e.g. `npm run conformance -- --scenario ping`, `-o results`);
// `--full` prints the whole log; `--no-build` uses the last build.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const { join } = require('node:path');
const { createInterface } = require('node:readline');

const root = join(__dirname, '..');
const cli = join(root, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const args = process.argv.slice(2);
const full = args.includes('--full');
const passThrough = args.filter((a) => a !== '--full' && a !== '--no-build');

if (!args.includes('--no-build')) {
  const built = spawnSync(process.execPath, [join(__dirname, 'conformance-fixtures.js'), 'build'], {
    stdio: 'inherit',
  });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

function startServer() {
  const entry = join(root, 'dist', 'test', 'fixtures', 'mcp-server', 'serve-http.js');
  const child = spawn(process.execPath, [entry], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      if (line.startsWith('listening ')) resolve({ child, url: line.slice('listening '.length) });
    });
    child.once('exit', (code) => reject(new Error(`the fixture server exited (${code})`)));
  });
}

function runSuite(url) {
  const suite = passThrough.includes('--scenario') ? [] : ['--suite', 'all'];
  const baseline = ['--expected-failures', join(__dirname, 'conformance-baseline.yml')];
  const child = spawn(
    process.execPath,
    [cli, 'server', '--url', url, ...suite, ...baseline, ...passThrough],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let log = '';
  child.stdout.on('data', (chunk) => (log += chunk));
  child.stderr.on('data', (chunk) => (log += chunk));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code: code ?? 1, log })));
}

async function main() {
  const { child, url } = await startServer();
  try {
    const { code, log } = await runSuite(url);
    const summary = log.indexOf('=== SUMMARY ===');
    process.stdout.write(full || summary === -1 ? log : log.slice(summary));
    process.stdout.write(`\nconformance: ${code === 0 ? 'passed' : 'FAILED'} against ${url}\n`);
    return code;
  } finally {
    child.kill('SIGTERM');
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
