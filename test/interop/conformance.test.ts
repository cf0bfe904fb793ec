/**
 * The MCP conformance suite (@modelcontextprotocol/conformance 0.1.13, server mode)
 * against the conformance fixture app served over Streamable HTTP, through
 * `scripts/conformance.js` (what `npm run conformance` runs). The fixture app and src
 * are compiled into dist/ first (scripts/conformance-fixtures.js).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = join(__dirname, '..', '..');

/** The scenarios the issue names: each must pass with no failure and no warning. */
const REQUIRED = [
  'server-initialize',
  'ping',
  'logging-set-level',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-with-logging',
  'tools-call-error',
  'tools-call-with-progress',
  'tools-call-elicitation',
  'elicitation-sep1034-defaults',
  'elicitation-sep1330-enums',
  'json-schema-2020-12',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO';
  errorMessage?: string;
}

let output: string;
let results: string;

beforeAll(async () => {
  await run(process.execPath, [join(root, 'scripts', 'conformance-fixtures.js'), 'build'], {
    cwd: root,
  });
  results = mkdtempSync(join(tmpdir(), 'agenttool-conformance-'));
}, 300_000);

afterAll(() => rmSync(results, { recursive: true, force: true }));

test('npm run conformance passes against the baseline and prints the summary', async () => {
  try {
    const done = await run(
      process.execPath,
      [join(root, 'scripts', 'conformance.js'), '--no-build', '--output-dir', results],
      { cwd: root, maxBuffer: 64 * 1024 * 1024 },
    );
    output = done.stdout;
  } catch (error) {
    throw new Error(
      `conformance failed:\n${(error as { stdout?: string }).stdout ?? String(error)}`,
    );
  }
  expect(output).toContain('=== SUMMARY ===');
  expect(output).toMatch(/Total: \d+ passed, \d+ failed/);
  expect(output).toContain('Baseline check passed: all failures are expected.');
}, 300_000);

test.each(REQUIRED)('scenario %s passes with no failure or warning', (scenario) => {
  const dir = readdirSync(results).find((name) => name.startsWith(`server-${scenario}-`));
  expect(dir).toBeDefined();
  const checks = JSON.parse(readFileSync(join(results, dir!, 'checks.json'), 'utf8')) as Check[];
  const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
  expect(bad).toEqual([]);
  expect(checks.some((c) => c.status === 'SUCCESS')).toBe(true);
});
