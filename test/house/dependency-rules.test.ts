import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

// The house rules of .dependency-cruiser.cjs, which `npm run check` runs: they hold on
// the tree, and each fails on a deliberately bad import in a small tree shaped as ours
// (one cruise of one tree that holds them all: each cruise starts a compiler).
const REPO = path.join(__dirname, '../..');
const CLI = path.join(REPO, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');
const CONFIG = path.join(REPO, '.dependency-cruiser.cjs');
const run = promisify(execFile);

interface Violation {
  readonly from: string;
  readonly to: string;
  readonly rule: { readonly name: string };
}

async function violations(cwd: string, targets: readonly string[]): Promise<Violation[]> {
  const args = [CLI, ...targets, '--config', CONFIG, '--output-type', 'json'];
  // Exit code 1 with violations: the JSON is on stdout either way.
  const { stdout } = await run(process.execPath, args, { cwd, maxBuffer: 64 << 20 }).catch(
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
  );
  const report = JSON.parse(stdout) as { summary: { violations: Violation[] } };
  return report.summary.violations;
}

function write(root: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(root, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
}

/** A tree shaped as ours, with every layer and entry, importing as the rules allow. */
const GOOD: Record<string, string> = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: {
      module: 'commonjs',
      target: 'es2022',
      baseUrl: '.',
      paths: { agenttool: ['./src/index.ts'], 'agenttool/*': ['./src/*/index.ts'] },
    },
  }),
  'node_modules/express/package.json': JSON.stringify({ name: 'express', main: 'index.js' }),
  'node_modules/express/index.js': 'module.exports = {};\n',
  'src/index.ts': "export { tool } from './core';\n",
  'src/core/index.ts': "export { tool } from './tool';\n",
  'src/core/tool.ts': 'export const tool = 1;\n',
  // Core's side door: the OpenTelemetry loader, imported by path (see .dependency-cruiser.cjs).
  'src/core/otel.ts': 'export const otel = 1;\n',
  'src/decorators/index.ts': "import { tool } from '../core';\nexport const decorate = tool;\n",
  'src/executor/index.ts': "export { run } from './run';\n",
  'src/executor/run.ts': "import { tool } from '../core/tool';\nexport const run = tool;\n",
  'src/mcp/index.ts': "export { serve } from './server';\n",
  'src/mcp/server/index.ts': "export { serve } from './calls';\n",
  'src/mcp/server/calls/index.ts': "export { serve } from './call';\n",
  'src/mcp/server/calls/call.ts':
    "import { tool } from '../../../core';\nimport { otel } from '../../../core/otel';\nexport const serve = [tool, otel];\n",
  'src/di/index.ts':
    "import { serve } from '../mcp';\nimport { run } from '../executor';\nexport const app = [serve, run];\n",
  'src/shell/index.ts': "import { app } from 'agenttool/di';\nexport const shell = app;\n",
  'src/testing/index.ts':
    "import { app } from 'agenttool/di';\nimport { serve } from 'agenttool/mcp';\nexport const client = [app, serve];\n",
  'src/cli/main.ts':
    "import { shell } from 'agenttool/shell';\nimport { serve } from 'agenttool/mcp';\nexport const main = [shell, serve];\n",
  'src/nest/index.ts':
    "import express from 'express';\nimport { app } from 'agenttool/di';\nexport const nest = [express, app];\n",
  'samples/greet.ts':
    "import { tool } from 'agenttool';\nimport { nest } from 'agenttool/nest';\nexport const greet = [tool, nest];\n",
};

/**
 * The bad imports, each in a file of its own that nothing imports (but the circle's pair,
 * which import each other): one tree holds them all, so one cruise finds every
 * violation, and each is told apart by the file it comes from.
 */
const BAD: Record<string, Record<string, string>> = {
  circle: {
    'src/decorators/a.ts': "import { b } from './b';\nexport const a = b;\n",
    'src/decorators/b.ts':
      "import type { a } from './a';\nexport const b = 1 as unknown as typeof a;\n",
  },
  coreUp: { 'src/core/up.ts': "export { app } from '../di';\n" },
  mcpUp: { 'src/mcp/up.ts': "export { decorate } from '../decorators';\n" },
  pastCallsIndex: { 'src/mcp/server/deep.ts': "export { serve } from './calls/call';\n" },
  pastCoreIndex: { 'src/di/deep.ts': "export { tool } from '../core/tool';\n" },
  adapterInCli: { 'src/cli/nest.ts': "export { nest } from 'agenttool/nest';\n" },
  frameworkInDi: { 'src/di/web.ts': "export { default } from 'express';\n" },
  shellByPath: { 'src/shell/near.ts': "export { serve } from '../mcp';\n" },
  testingDeep: { 'src/testing/deep.ts': "export { serve } from '../mcp/server';\n" },
  testingShell: { 'src/testing/shell.ts': "export { shell } from 'agenttool/shell';\n" },
  sampleDeep: { 'samples/deep.ts': "export { tool } from '../src/core/tool';\n" },
};

let tree: string;
/** Every violation in the good tree with all of BAD added, as `rule: from -> to`. */
let found: string[];

beforeAll(async () => {
  tree = fs.mkdtempSync(path.join(os.tmpdir(), 'agenttool-rules-'));
  write(tree, GOOD);
  for (const files of Object.values(BAD)) write(tree, files);
  found = (await violations(tree, ['src', 'samples']))
    .map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)
    .sort();
}, 120_000);

afterAll(() => {
  fs.rmSync(tree, { recursive: true, force: true });
});

/** The rules that the bad imports of `name` break, as `rule: from -> to`. */
function broken(name: keyof typeof BAD): string[] {
  const files = Object.keys(BAD[name]!);
  return found.filter((line) => files.some((file) => line.includes(`: ${file} -> `)));
}

describe('the house rules', () => {
  it('hold on the tree', async () => {
    expect(await violations(REPO, ['src', 'samples'])).toEqual([]);
  }, 120_000);

  it('allow a tree that keeps them, and find nothing but the bad imports', () => {
    const bad = Object.values(BAD).flatMap((files) => Object.keys(files));
    expect(found.filter((line) => !bad.some((file) => line.includes(`: ${file} -> `)))).toEqual([]);
    // Every bad import is found: none of them hides another.
    for (const name of Object.keys(BAD))
      expect([name, broken(name).length > 0]).toEqual([name, true]);
  });

  it('refuse an import circle', () => {
    expect(broken('circle')).toEqual(['no-circular: src/decorators/a.ts -> src/decorators/b.ts']);
  });

  it('refuse an upward import between layers', () => {
    expect(broken('coreUp')).toEqual(['layer-core: src/core/up.ts -> src/di/index.ts']);
    expect(broken('mcpUp')).toEqual(['layer-mcp: src/mcp/up.ts -> src/decorators/index.ts']);
  });

  it("refuse a deep import past a room's index", () => {
    expect(broken('pastCallsIndex')).toEqual([
      'room-index-mcp-server-calls: src/mcp/server/deep.ts -> src/mcp/server/calls/call.ts',
    ]);
    expect(broken('pastCoreIndex')).toEqual([
      'room-index-core: src/di/deep.ts -> src/core/tool.ts',
    ]);
  });

  it('refuse an adapter imported from anywhere else, and a framework outside one', () => {
    expect(broken('adapterInCli')).toEqual([
      'entries-only-cli: src/cli/nest.ts -> src/nest/index.ts',
      'no-adapter-imports: src/cli/nest.ts -> src/nest/index.ts',
    ]);
    expect(broken('frameworkInDi')).toEqual([
      'frameworks-in-adapters-only: src/di/web.ts -> node_modules/express/index.js',
    ]);
  });

  it('keep the layers on top to the public entries, named as such', () => {
    expect(broken('shellByPath')).toEqual([
      'entries-by-name-shell: src/shell/near.ts -> src/mcp/index.ts',
    ]);
    expect(broken('testingDeep')).toEqual([
      'entries-only-testing: src/testing/deep.ts -> src/mcp/server/index.ts',
      'room-index-mcp: src/testing/deep.ts -> src/mcp/server/index.ts',
    ]);
    expect(broken('testingShell')).toEqual([
      'entries-only-testing: src/testing/shell.ts -> src/shell/index.ts',
    ]);
    expect(broken('sampleDeep')).toEqual([
      'room-index-core: samples/deep.ts -> src/core/tool.ts',
      'samples-name-entries: samples/deep.ts -> src/core/tool.ts',
      'samples-through-entries: samples/deep.ts -> src/core/tool.ts',
    ]);
  });

  it('keep the root entry free of mcp and di', async () => {
    const own = path.join(tree, 'root-entry');
    write(own, GOOD);
    write(own, {
      'src/index.ts': "export { tool } from './core';\nexport { app } from './di';\n",
    });
    const heavy = (await violations(own, ['src'])).filter(
      (v) => v.rule.name === 'root-entry-stays-light',
    );
    expect(heavy.map((v) => v.to)).toEqual(expect.arrayContaining(['src/di/index.ts']));
  }, 60_000);
});
