/**
 * Tasks under scale-out: two `agenttool serve --http --redis` instances behind HAProxy,
 * sharing Redis (Debian's packages, on loopback ports). A task made through the balancer
 * is polled and cancelled through it, any instance answers `tasks/get`, an update sent
 * to the instance that does not run the task reaches the one that does (a question's
 * answer, a model's turn), and a task whose instance is killed reads `failed`, saying so.
 */
import { join } from 'node:path';
import { ensureBuilt, FIXTURES } from '../cli/helpers';
import { firstText, TaskClient } from '../mcp/tasks/helpers';
import {
  type Balancer,
  type Instance,
  startBalancer,
  startInstance,
  startRedis,
  stopAll,
} from './cluster';

const SCALE_APP = join(FIXTURES, 'scale-app.module.js');

let a: Instance;
let b: Instance;
let lb: Balancer;

beforeAll(async () => {
  ensureBuilt();
  const redis = await startRedis();
  [a, b] = await Promise.all([
    startInstance(SCALE_APP, 'a', redis.url),
    startInstance(SCALE_APP, 'b', redis.url),
  ]);
  lb = await startBalancer([a, b]);
}, 300_000);

afterAll(() => stopAll());

/** The instance a task runs on, from its status message, and the other one. */
async function placed(client: TaskClient, taskId: string): Promise<[Instance, Instance]> {
  const task = await client.until(taskId, (t) => /on [ab]$/.test(String(t.statusMessage)));
  const owner = String(task.statusMessage).endsWith('on a') ? a : b;
  return owner === a ? [a, b] : [b, a];
}

test('a task made through the balancer is polled and cancelled through it; every instance answers for it', async () => {
  const balanced = new TaskClient(lb.url);
  const created = await balanced.call('job', { ms: 600_000 });
  expect(created.resultType).toBe('task');
  const taskId = String(created.taskId);
  const [owner, other] = await placed(balanced, taskId);
  for (const url of [owner.url, other.url, lb.url]) {
    expect(await new TaskClient(url).get(taskId)).toMatchObject({ taskId, status: 'working' });
  }
  // Round robin sends one of two cancels to the instance without the task: both reach it.
  await balanced.result('tasks/cancel', { taskId });
  await balanced.result('tasks/cancel', { taskId });
  // The instance running it took the cancel (the other could only have marked it).
  expect(await balanced.final(taskId)).toMatchObject({
    status: 'cancelled',
    statusMessage: 'cancelled by the client',
  });
  expect((await new TaskClient(other.url).get(taskId)).status).toBe('cancelled');
});

test('an answer sent to the instance without the task reaches the one running it', async () => {
  const balanced = new TaskClient(lb.url);
  const taskId = String((await balanced.call('job', { ms: 10, ask: true })).taskId);
  const asking = await balanced.until(taskId, (t) => t.status === 'input_required');
  const [owner, other] = await placed(balanced, taskId);
  const key = Object.keys(asking.inputRequests as object)[0]!;
  await new TaskClient(other.url).result('tasks/update', {
    taskId,
    inputResponses: { [key]: { action: 'accept', content: { color: 'teal' } } },
  });
  const done = await balanced.final(taskId);
  expect(firstText(done.result)).toBe(`job done "teal" on ${owner.name}`);
});

test("a model's turn asked inside a task, answered through the other instance, reaches the one running it", async () => {
  const balanced = new TaskClient(lb.url, {
    capabilities: { elicitation: { form: {} }, sampling: {} },
  });
  const taskId = String((await balanced.call('job', { ms: 10, sample: true })).taskId);
  const asking = await balanced.until(taskId, (t) => t.status === 'input_required');
  expect(asking.inputRequests).toMatchObject({
    model_turn: { method: 'sampling/createMessage', params: { maxTokens: 10 } },
  });
  const [owner, other] = await placed(balanced, taskId);
  await new TaskClient(other.url).result('tasks/update', {
    taskId,
    inputResponses: {
      model_turn: {
        role: 'assistant',
        content: { type: 'text', text: 'teal' },
        model: 'm1',
      },
    },
  });
  const done = await balanced.final(taskId);
  expect(firstText(done.result)).toBe(`job done teal (m1) on ${owner.name}`);
});

test('a task whose instance is killed reads failed, saying its instance stopped', async () => {
  const balanced = new TaskClient(lb.url);
  const taskId = String((await balanced.call('job', { ms: 600_000 })).taskId);
  const [owner, other] = await placed(balanced, taskId);
  owner.running.process.kill('SIGKILL');
  // The instance's entry in Redis expires 15 s after its last refresh: polls are bounded.
  const failed = await new TaskClient(other.url).until(
    taskId,
    (t) => t.status !== 'working',
    200,
    200,
  );
  expect(failed.status).toBe('failed');
  expect(failed.error).toMatchObject({ code: -32603 });
  expect(String(failed.statusMessage)).toContain(
    `the instance running it (${owner.name}) stopped before it finished`,
  );
}, 60_000);
