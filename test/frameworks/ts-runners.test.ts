/**
 * TypeScript run without a build (docs/typescript-runners.md): the same tool class
 * through SWC (`@swc-node/register`), which emits decorator metadata and serves it, and
 * through tsx (esbuild), which never emits it and gets the error that says so. Each
 * runs the built `agenttool` command with the runner in NODE_OPTIONS, as the guide
 * shows, from the fixture's folder, whose tsconfig.json sets both decorator settings.
 */
import { join } from 'node:path';
import { ensureBuilt, killChildren, ROOT, runAgenttool } from '../cli/helpers';

const FIXTURE = join(ROOT, 'test/fixtures/runners');
const SWC = { NODE_OPTIONS: '-r @swc-node/register' };
const TSX = { NODE_OPTIONS: '--import tsx' };
const ARGS = '{"name": "Ada", "times": 2}';

beforeAll(() => ensureBuilt(), 300_000);
afterAll(() => killChildren());

describe('a tool class run through SWC (node -r @swc-node/register)', () => {
  it('is served from its TypeScript file, its schema read from the emitted metadata', async () => {
    const ran = await runAgenttool(['call', 'greet.module.ts', 'greet', ARGS], {
      cwd: FIXTURE,
      env: SWC,
    });
    expect(ran).toMatchObject({ code: 0, stdout: 'Hello, Ada! Hello, Ada!\n', stderr: '' });
    // The types came from the metadata: a string where a number belongs is refused.
    const wrong = await runAgenttool(
      ['call', 'greet.module.ts', 'greet', '{"name": "Ada", "times": "2"}'],
      { cwd: FIXTURE, env: SWC },
    );
    expect(wrong).toMatchObject({
      code: 2,
      stderr: 'agenttool: greet: invalid arguments: times: expected number, got "2"\n',
    });
  }, 60_000);
});

describe('the same class run through tsx (esbuild)', () => {
  it('fails to start, naming esbuild and tsx as the likely cause and both fixes', async () => {
    const ran = await runAgenttool(['call', 'greet.module.ts', 'greet', ARGS], {
      cwd: FIXTURE,
      env: TSX,
    });
    expect(ran.code).toBe(3);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toContain(
      'GreetArgs: TypeScript emitted no decorator metadata for any field, so the types of fields name, times are unknown. If tsconfig.json sets "emitDecoratorMetadata": true, the likely cause is a runner built on esbuild (tsx, esbuild, Vite, Vitest), which never emits it. Fix either way: run the code through a compiler that emits it (tsc, or SWC: node -r @swc-node/register), or give each of those fields its type in @Param',
    );
  }, 60_000);

  it('without experimentalDecorators, names the decorator and the settings instead of a TypeError', async () => {
    const ran = await runAgenttool(['call', 'greet.module.ts', 'greet', ARGS], {
      cwd: FIXTURE,
      env: { ...TSX, TSX_TSCONFIG_PATH: 'tsconfig.standard.json' },
    });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(
      `@Param on the field name was applied as a standard (TC39) decorator; agenttool's decorators are TypeScript's experimental decorators: set "experimentalDecorators": true and "emitDecoratorMetadata": true`,
    );
    expect(ran.stderr).not.toContain('TypeError');
  }, 60_000);
});

describe('a TypeScript module file without a runner', () => {
  it('is refused with the build step and the SWC loop as the fixes', async () => {
    const ran = await runAgenttool(['call', 'greet.module.ts', 'greet', ARGS], { cwd: FIXTURE });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toBe(
      "agenttool: greet.module.ts is TypeScript; agenttool loads compiled JavaScript: build it first (e.g. npm run build) and give the .js file, or run agenttool through a TypeScript runner that emits decorator metadata, e.g. NODE_OPTIONS='-r @swc-node/register' npx agenttool ...\n",
    );
  });
});
