import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

// The house rules of .dependency-cruiser.cjs, which `npm run check` runs: they hold on
// the tree, and each fails on a deliberately bad import in a small tree of its own.
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

let tree: string;

beforeEach(() => {
  tree = fs.mkdtempSync(path.join(os.tmpdir(), 'agenttool-rules-'));
  write(tree, GOOD);
});

afterEach(() => {
  fs.rmSync(tree, { recursive: true, force: true });
});

/** The rules broken once `files` are added to the good tree, as `rule: from -> to`. */
async function broken(files: Record<string, string>): Promise<string[]> {
  write(tree, files);
  try {
    const found = await violations(tree, ['src', 'samples']);
    return found.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
  } finally {
    for (const name of Object.keys(files)) fs.rmSync(path.join(tree, name));
  }
}

describe('the house rules', () => {
  it('hold on the tree', async () => {
    expect(await violations(REPO, ['src', 'samples'])).toEqual([]);
  }, 120_000);

  it('allow a tree that keeps them', async () => {
    expect(await broken({})).toEqual([]);
  }, 60_000);

  it('refuse an import circle', async () => {
    expect(
      await broken({
        'src/decorators/a.ts': "import { b } from './b';\nexport const a = b;\n",
        'src/decorators/b.ts':
          "import type { a } from './a';\nexport const b = 1 as unknown as typeof a;\n",
      }),
    ).toEqual(['no-circular: src/decorators/a.ts -> src/decorators/b.ts']);
  }, 60_000);

  it('refuse an upward import between layers', async () => {
    expect(await broken({ 'src/core/up.ts': "export { app } from '../di';\n" })).toEqual([
      'layer-core: src/core/up.ts -> src/di/index.ts',
    ]);
    expect(
      await broken({ 'src/mcp/up.ts': "export { decorate } from '../decorators';\n" }),
    ).toEqual(['layer-mcp: src/mcp/up.ts -> src/decorators/index.ts']);
  }, 60_000);

  it("refuse a deep import past a room's index", async () => {
    expect(
      await broken({ 'src/mcp/server/deep.ts': "export { serve } from './calls/call';\n" }),
    ).toEqual([
      'room-index-mcp-server-calls: src/mcp/server/deep.ts -> src/mcp/server/calls/call.ts',
    ]);
    expect(await broken({ 'src/di/deep.ts': "export { tool } from '../core/tool';\n" })).toEqual([
      'room-index-core: src/di/deep.ts -> src/core/tool.ts',
    ]);
  }, 60_000);

  it('refuse an adapter imported from anywhere else, and a framework outside one', async () => {
    expect(await broken({ 'src/cli/nest.ts': "export { nest } from 'agenttool/nest';\n" })).toEqual(
      [
        'entries-only-cli: src/cli/nest.ts -> src/nest/index.ts',
        'no-adapter-imports: src/cli/nest.ts -> src/nest/index.ts',
      ],
    );
    expect(await broken({ 'src/di/web.ts': "export { default } from 'express';\n" })).toEqual([
      'frameworks-in-adapters-only: src/di/web.ts -> node_modules/express/index.js',
    ]);
  }, 60_000);

  it('keep the layers on top to the public entries, named as such', async () => {
    expect(await broken({ 'src/shell/near.ts': "export { serve } from '../mcp';\n" })).toEqual([
      'entries-by-name-shell: src/shell/near.ts -> src/mcp/index.ts',
    ]);
    expect(
      await broken({ 'src/testing/deep.ts': "export { serve } from '../mcp/server';\n" }),
    ).toEqual([
      'entries-only-testing: src/testing/deep.ts -> src/mcp/server/index.ts',
      'room-index-mcp: src/testing/deep.ts -> src/mcp/server/index.ts',
    ]);
    expect(
      await broken({ 'src/testing/shell.ts': "export { shell } from 'agenttool/shell';\n" }),
    ).toEqual(['entries-only-testing: src/testing/shell.ts -> src/shell/index.ts']);
    expect(
      await broken({ 'samples/deep.ts': "export { tool } from '../src/core/tool';\n" }),
    ).toEqual([
      'room-index-core: samples/deep.ts -> src/core/tool.ts',
      'samples-name-entries: samples/deep.ts -> src/core/tool.ts',
      'samples-through-entries: samples/deep.ts -> src/core/tool.ts',
    ]);
  }, 60_000);

  it('keep the root entry free of mcp and di', async () => {
    write(tree, {
      'src/index.ts': "export { tool } from './core';\nexport { app } from './di';\n",
    });
    const found = (await violations(tree, ['src'])).filter(
      (v) => v.rule.name === 'root-entry-stays-light',
    );
    expect(found.map((v) => v.to)).toEqual(expect.arrayContaining(['src/di/index.ts']));
  }, 60_000);
});
