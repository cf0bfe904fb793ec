import {
  CancelledError,
  Executor,
  type ExecutorEvent,
  createContext,
  newTool,
  text,
} from 'agenttool';
import { Lab, deferred, flush, job } from './lab';

/** A tool that runs until its signal is aborted, then waits for the test to let it return. */
function stubborn(lab: Lab, name = 'stubborn') {
  const letGo = deferred();
  const aborted = deferred<string>();
  const tool = newTool({
    name,
    execute: async (call, ctx) => {
      lab.log.push(`start ${call.id}`);
      lab.running++;
      await new Promise<void>((resolve) =>
        ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      aborted.resolve(call.id);
      await letGo.promise;
      lab.running--;
      lab.log.push(`end ${call.id}`);
      throw new Error('interrupted');
    },
  });
  return { tool, letGo, aborted: aborted.promise };
}

describe('cancellation', () => {
  it('before the batch: every job completes cancelled, no tool and no onStart runs', async () => {
    const lab = new Lab();
    const onStart = jest.fn();
    const controller = new AbortController();
    controller.abort();
    const shell = lab.tool('shell', { resource: 'r' });
    const jobs = [job(lab.tool('t'), 'a'), job(shell, 'b'), job(shell, 'c'), job(undefined, 'd')];
    const outcomes = await new Executor({ onStart }).results(jobs, { signal: controller.signal });
    for (const [i, outcome] of outcomes.entries()) {
      expect(outcome.error).toBeInstanceOf(CancelledError);
      // Go: exec.go completes a job that never started with ctx.Err().
      expect(outcome.error?.message).toBe('context canceled');
      expect((outcome.error as CancelledError).callId).toBe('abcd'[i]);
    }
    expect(lab.log).toEqual([]);
    expect(onStart).not.toHaveBeenCalled();
  });

  it('during the batch: running calls see their signal aborted, unstarted jobs complete cancelled', async () => {
    const lab = new Lab();
    const onStart = jest.fn();
    const { tool, letGo, aborted } = stubborn(lab);
    const queued = lab.tool('queued');
    const controller = new AbortController();
    const jobs = [job(tool, 'run'), job(queued, 'wait1'), job(queued, 'wait2')];
    const events: ExecutorEvent[] = [];
    const done = (async () => {
      const run = new Executor({ maxParallel: 1, onStart }).execute(jobs, {
        signal: controller.signal,
      });
      for await (const event of run) events.push(event);
    })();
    await flush();
    expect(lab.log).toEqual(['start run']);
    controller.abort(new Error('user pressed ctrl-c'));
    expect(await aborted).toBe('run');
    letGo.resolve();
    await done;
    expect(events.map((e) => [e.index, e.error?.message])).toEqual([
      [0, 'interrupted'],
      [1, 'context canceled'],
      [2, 'context canceled'],
    ]);
    expect(events[1]?.error).toBeInstanceOf(CancelledError);
    expect(onStart).toHaveBeenCalledTimes(1);
    expect(lab.log).toEqual(['start run', 'end run']);
  });

  it('completes jobs waiting for a slot at once, while running ones still run', async () => {
    const lab = new Lab();
    const { tool, letGo } = stubborn(lab);
    const controller = new AbortController();
    const jobs = [job(tool, 'r1'), job(tool, 'r2'), job(lab.tool('q'), 'waiting')];
    const run = new Executor({ maxParallel: 2 }).execute(jobs, { signal: controller.signal });
    const next = run.next();
    await flush();
    expect(lab.running).toBe(2);
    controller.abort();
    const event = (await next).value;
    expect(event).toMatchObject({ index: 2, final: true });
    expect(event?.error).toBeInstanceOf(CancelledError);
    expect(lab.running).toBe(2);
    letGo.resolve();
    const rest: number[] = [];
    for (let step = await run.next(); step.done !== true; step = await run.next()) {
      rest.push(step.value.index);
    }
    expect(rest.sort()).toEqual([0, 1]);
    expect(lab.hasStarted('waiting')).toBe(false);
  });

  it('keeps the model order of a serial batch when cancelled', async () => {
    const lab = new Lab();
    const { tool, letGo } = stubborn(lab);
    const controller = new AbortController();
    const jobs = [job(tool, 'run'), job(lab.tool('q'), 'waiting')];
    const run = new Executor({ maxParallel: 1 }).execute(jobs, { signal: controller.signal });
    const first = run.next();
    await flush();
    controller.abort();
    letGo.resolve();
    expect((await first).value?.index).toBe(0);
    expect((await run.next()).value?.error).toBeInstanceOf(CancelledError);
    expect((await run.next()).done).toBe(true);
  });

  it('follows the context’s signal too', async () => {
    const controller = new AbortController();
    controller.abort();
    const context = createContext({ signal: controller.signal });
    const tool = newTool({ name: 't', execute: () => text('ran') });
    const [only] = await new Executor().results([job(tool, 'a')], { context });
    expect(only?.error).toBeInstanceOf(CancelledError);
  });

  it('leaving the loop after the first final aborts the batch and returns once running tools returned', async () => {
    const lab = new Lab();
    const { tool, letGo, aborted } = stubborn(lab);
    const quick = newTool({ name: 'quick', execute: () => text('fast') });
    const jobs = [job(quick, 'q'), job(tool, 'slow'), job(lab.tool('later'), 'never')];
    let loopDone = false;
    const seen: ExecutorEvent[] = [];
    const loop = (async () => {
      for await (const event of new Executor({ maxParallel: 2 }).execute(jobs)) {
        seen.push(event);
        if (event.final) break;
      }
      lab.log.push('loop exited');
      loopDone = true;
    })();
    expect(await aborted).toBe('slow');
    await flush();
    expect(loopDone).toBe(false);
    expect(lab.running).toBe(1);
    letGo.resolve();
    await loop;
    expect(seen).toEqual([{ index: 0, final: true, result: text('fast') }]);
    expect(lab.log).toEqual(['start slow', 'end slow', 'loop exited']);
  });

  it('yields nothing more and starts nothing after the loop is done', async () => {
    const lab = new Lab();
    const shell = lab.tool('shell', { resource: 'r' });
    const run = new Executor().execute([job(shell, 'a'), job(shell, 'b')]);
    const first = run.next();
    await lab.started('a');
    lab.finish('a');
    await first;
    await run.return();
    await flush();
    expect((await run.next()).done).toBe(true);
    expect(lab.log).toEqual(['start a', 'end a']);
  });

  it('return() before the first event starts nothing', async () => {
    const lab = new Lab();
    const run = new Executor().execute([job(lab.tool('t'), 'a')]);
    expect(await run.return()).toEqual({ done: true, value: undefined });
    expect((await run.next()).done).toBe(true);
    expect(lab.log).toEqual([]);
  });
});
