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

it('holds a caller to the tasks that --limit maxTasksPerSubject allows', async () => {
  const server = startAgenttool(
    [
      'serve',
      join(FIXTURES, 'scale-app.module.js'),
      '--http',
      '127.0.0.1:0',
      '--limit',
      'maxTasksPerSubject=1',
    ],
    { env: { SCALE_INSTANCE: 'solo' } },
  );
  const [, url] = await server.waitForStderr(/at (http:\S+)\n/);
  const first = await runAgenttool(['call', '--http', url!, 'job', '{"ms": 10}']);
  // A task is kept for its time to live: the caller's one is still held.
  const second = await runAgenttool(['call', '--http', url!, 'job', '{"ms": 10}']);
  server.process.kill('SIGTERM');
  await server.done;
  expect(first.code).toBe(0);
  expect(second.code).toBe(1);
  expect(`${second.stdout}${second.stderr}`).toContain(
    "already holds 1 tasks, the most a caller may (the server's tasks.maxTasksPerSubject)",
  );
});
