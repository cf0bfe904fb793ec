import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// The API reports (api/*.api.md, which `npm run check` holds to the emitted declarations)
// of the entries that need no framework name no optional peer: a project compiles them
// without any installed. API Extractor lists only what an entry exports, so this is a
// guard on the reports; test/package/install.test.ts compiles every declaration those
// entries reach, with `skipLibCheck: false` and no optional peer installed.
const ROOT = join(__dirname, '..', '..');
const OURS = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};
/** The framework adapters, each of which needs its framework's types. */
const ADAPTERS = ['./nest', './ai-sdk', './openai-agents'];

const optionalPeers = Object.entries(OURS.peerDependenciesMeta)
  .filter(([, meta]) => meta.optional === true)
  .map(([peer]) => peer);
/** The report of each entry but the adapters: `.` is agenttool.api.md, `./mcp` agenttool-mcp.api.md. */
const reports = Object.keys(OURS.exports)
  .filter((key) => key !== './package.json' && !ADAPTERS.includes(key))
  .map((key) => `agenttool${key.slice(1).replace(/\//g, '-')}.api.md`);

/** The modules a report imports from or names in an `import('...')` type. */
function modulesNamed(report: string): string[] {
  const text = readFileSync(join(ROOT, 'api', report), 'utf8');
  return [...text.matchAll(/(?:\bfrom\s+|\bimport\(\s*)'([^']+)'/g)].map((match) => match[1]!);
}

it('covers the entries that need no framework', () => {
  expect(reports.sort()).toEqual([
    'agenttool-code-cache.api.md',
    'agenttool-di.api.md',
    'agenttool-mcp.api.md',
    'agenttool-shell.api.md',
    'agenttool-testing.api.md',
    'agenttool-workspace.api.md',
    'agenttool.api.md',
  ]);
  expect(optionalPeers).toContain('@opentelemetry/api');
});

it.each(reports)('%s names no optional peer', (report) => {
  const named = modulesNamed(report).filter((module) =>
    optionalPeers.some((peer) => module === peer || module.startsWith(`${peer}/`)),
  );
  expect(named).toEqual([]);
});

it('sees the modules an adapter report names', () => {
  // The reading above would find a peer in a report: the AI SDK's names `ai`.
  expect(modulesNamed('agenttool-ai-sdk.api.md')).toContain('ai');
});
