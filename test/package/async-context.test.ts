// The current context under both kinds of AsyncLocalStorage Node has: the one on promise
// hooks (Node 22's default) and the one on AsyncContextFrame (Node 24's default, Node 22
// with --experimental-async-context-frame). core picks how it makes a job's context
// current by the kind it finds, not by Node's version, so each Node runs the built
// package here under the kind it does not default to.
import { AsyncLocalStorage } from 'node:async_hooks';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureBuilt, ROOT } from '../cli/helpers';

const framesByDefault = !Object.hasOwn(new AsyncLocalStorage(), 'enabled');
const otherKind = framesByDefault
  ? '--no-async-context-frame'
  : '--experimental-async-context-frame';

// Eight jobs, four at a time, each awaiting timers and promises of its own before it reads
// the current context; a timer callback and a nested runWithContext read it too.
const SCRIPT = `
const { AsyncLocalStorage } = require('node:async_hooks');
const { Executor, newTool, currentContext, runWithContext } = require(${JSON.stringify(join(ROOT, 'dist/pkg/index.js'))});
const frames = !Object.hasOwn(new AsyncLocalStorage(), 'enabled');
const later = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const tool = newTool({
  name: 'deep',
  execute: async (call, ctx) => {
    const seen = [currentContext() === ctx];
    await later(Number(JSON.parse(call.args).wait));
    seen.push(currentContext() === ctx);
    seen.push(await new Promise((resolve) => setTimeout(() => resolve(currentContext() === ctx), 1)));
    const inner = { ...ctx, call: { ...ctx.call, id: ctx.call.id + '/inner' } };
    seen.push(await runWithContext(inner, async () => (await later(1), currentContext() === inner)));
    await Promise.resolve();
    seen.push(currentContext() === ctx);
    return { output: call.id + ':' + seen.join(',') };
  },
});
const jobs = Array.from({ length: 8 }, (_, i) => ({
  tool,
  call: { id: 'job' + i, args: JSON.stringify({ wait: (i * 7) % 5 }) },
}));
(async () => {
  const outputs = [];
  const inBody = [];
  for await (const event of new Executor({ maxParallel: 4 }).execute(jobs)) {
    inBody.push(currentContext() === undefined);
    if (event.final) outputs[event.index] = event.result.output;
  }
  console.log(JSON.stringify({ frames, outputs, inBody: inBody.every(Boolean), after: currentContext() === undefined }));
})();
`;

beforeAll(() => ensureBuilt(), 300_000);

test(`each job sees its own context under the other kind of AsyncLocalStorage (${otherKind})`, () => {
  const run = spawnSync(process.execPath, [otherKind, '-e', SCRIPT], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  const report = JSON.parse(run.stdout) as {
    frames: boolean;
    outputs: string[];
    inBody: boolean;
    after: boolean;
  };
  // The flag did switch the kind: otherwise this test would repeat the unit tests.
  expect(report.frames).toBe(!framesByDefault);
  expect(report.outputs).toEqual(
    Array.from({ length: 8 }, (_, i) => `job${i}:true,true,true,true,true`),
  );
  expect(report.inBody).toBe(true);
  expect(report.after).toBe(true);
});
