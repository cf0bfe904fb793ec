// A module file's start and close going wrong under list, call and serve: a provider
// whose close() throws is named as a warning (the exit code stays the work's), a signal
// during a slow start cancels it, and a start that never settles is named with the
// exit code of a failed load (2) or a failed start (3).
import { join } from 'node:path';
import { FIXTURES, ensureBuilt, killChildren, runAgenttool, startAgenttool } from './helpers';

beforeAll(() => ensureBuilt(), 300_000);
afterAll(() => killChildren());

const CLOSE_THROWS = join(FIXTURES, 'close-throws.module.js');
const SLOW_START = `${join(FIXTURES, 'stalled-start.module.js')}#SlowStartModule`;
const HANGING_START = `${join(FIXTURES, 'stalled-start.module.js')}#HangingStartModule`;
const STALLED_LOAD = join(FIXTURES, 'stalled-load.module.mjs');
const SHOWN_LOAD = 'dist/test/cli/fixtures/stalled-load.module.mjs';

const CLOSE_WARNING =
  'agenttool: warning: while closing module CloseThrowsModule: closing Res: close boom\n';

describe('a provider whose close() throws', () => {
  it('call: the tool succeeded, so it exits 0, naming the provider and its error', async () => {
    const ran = await runAgenttool(['call', CLOSE_THROWS, 'use']);
    expect(ran.stdout).toBe('ok\n');
    expect(ran.stderr).toBe(CLOSE_WARNING);
    expect(ran.code).toBe(0);
  });

  it('list: lists, and warns of it', async () => {
    const ran = await runAgenttool(['list', CLOSE_THROWS]);
    expect(ran.stdout).toContain('use ');
    expect(ran.stderr).toBe(CLOSE_WARNING);
    expect(ran.code).toBe(0);
  });

  it('serve: stops, and warns of it', async () => {
    const ran = await runAgenttool(['serve', CLOSE_THROWS]);
    expect(ran.stderr).toContain(`${CLOSE_WARNING}agenttool: stopped\n`);
    expect(ran.stderr).not.toContain('failed\n');
    expect(ran.code).toBe(0);
  });
});

describe('a signal while the app starts', () => {
  it.each([
    ['list', 'SIGINT'],
    ['call', 'SIGTERM'],
  ] as const)('%s: %s cancels the start; exit 130', async (command, signal) => {
    const args =
      command === 'call' ? ['call', SLOW_START, 'echo', '{"text":"a"}'] : ['list', SLOW_START];
    const running = startAgenttool(args);
    running.stdin.end();
    await running.waitForStderr(/slow factory started/);
    const sent = Date.now();
    running.process.kill(signal);
    const ran = await running.done;
    expect(ran.code).toBe(130);
    expect(ran.stderr).toContain('agenttool: interrupted\n');
    expect(Date.now() - sent).toBeLessThan(10_000);
  });

  it('list: SIGINT while the module file loads (a top-level await) ends it; exit 130', async () => {
    const running = startAgenttool(['list', STALLED_LOAD], { env: { STALLED_LOAD: 'slow' } });
    running.stdin.end();
    await running.waitForStderr(/loading for a minute/);
    running.process.kill('SIGINT');
    const ran = await running.done;
    expect(ran.code).toBe(130);
    expect(ran.stderr).toContain('agenttool: interrupted\n');
  });

  it('serve: SIGINT cancels the start and stops, as a stop does (exit 0)', async () => {
    const running = startAgenttool(['serve', SLOW_START]);
    await running.waitForStderr(/slow factory started/);
    running.process.kill('SIGINT');
    const ran = await running.done;
    expect(ran.stderr).toContain('agenttool: stopping: closing sessions and the app\n');
    expect(ran.stderr).toContain('agenttool: stopped\n');
    expect(ran.stderr).not.toContain('serving');
    expect(ran.code).toBe(0);
  });
});

describe('a start that never settles is named', () => {
  it.each(['list', 'call', 'serve'])('%s: an app still starting exits 3', async (command) => {
    const args = command === 'call' ? ['call', HANGING_START, 'echo'] : [command, HANGING_START];
    const ran = await runAgenttool(args);
    expect(ran.stderr).toBe(
      "agenttool: the app could not start: ToolApp.create(HangingStartModule) never finished: a provider's factory or a starting hook (onModuleInit, onApplicationBootstrap) awaits a promise nothing settles, and nothing else was left to run\n",
    );
    expect(ran.code).toBe(3);
  });

  it.each(['list', 'call', 'serve'])('%s: a module file still loading exits 2', async (command) => {
    const args = command === 'call' ? ['call', STALLED_LOAD, 'echo'] : [command, STALLED_LOAD];
    const ran = await runAgenttool(args);
    expect(ran.stderr).toBe(
      `agenttool: loading ${SHOWN_LOAD} never finished: its top level (or a module it imports) awaits a promise nothing settles, and nothing else was left to run\n`,
    );
    expect(ran.code).toBe(2);
  });
});
