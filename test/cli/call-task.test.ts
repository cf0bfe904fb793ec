/**
 * `agenttool call` of a remote tool the server runs as an MCP task: the task is followed
 * to its result, and its status messages are shown as the call's progress.
 */
import { join } from 'node:path';
import { ensureBuilt, FIXTURES, killChildren, runAgenttool, startAgenttool } from './helpers';

beforeAll(() => ensureBuilt());
afterAll(() => killChildren());

it('shows a task’s progress and prints its result', async () => {
  const server = startAgenttool(
    ['serve', join(FIXTURES, 'scale-app.module.js'), '--http', '127.0.0.1:0'],
    { env: { SCALE_INSTANCE: 'solo' } },
  );
  const [, url] = await server.waitForStderr(/at (http:\S+)\n/);
  const ran = await runAgenttool(['call', '--http', url!, 'job', '{"ms": 50}']);
  server.process.kill('SIGTERM');
  await server.done;
  expect(ran.code).toBe(0);
  expect(ran.stdout).toBe('job done on solo\n');
  expect(ran.stderr).toContain('running on solo');
});
