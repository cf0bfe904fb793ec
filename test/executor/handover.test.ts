import { CancelledError, Executor, type ExecutorEvent, newTool, text } from 'agenttool';
import { Lab, flush, job } from './lab';

// Go: exec.go Execute. A chain's goroutine sends the final on an unbuffered channel and
// then releases its slot (`final(...)` then `<-sem`), so the next job of the chain, or of
// a serial batch, starts once the consumer has received the final, while its loop body
// runs, and never before.
describe('handing a final over releases the next job', () => {
  it('a loop body that awaits: the next job of a serial batch runs meanwhile', async () => {
    const lab = new Lab();
    const tool = lab.tool('t');
    const run = new Executor({ maxParallel: 1 }).execute([job(tool, 'a'), job(tool, 'b')]);
    const seen: string[] = [];
    const loop = (async () => {
      for await (const event of run) {
        seen.push(`final ${event.index}`);
        if (event.index === 0) {
          // The body takes its time; b must not wait for it to finish.
          await flush();
          seen.push(`b started during the body: ${lab.hasStarted('b')}`);
          lab.finish('b');
        }
      }
    })();
    await lab.started('a');
    expect(lab.hasStarted('b')).toBe(false);
    lab.finish('a');
    await loop;
    expect(seen).toEqual(['final 0', 'b started during the body: true', 'final 1']);
    expect(lab.log).toEqual(['start a', 'end a', 'start b', 'end b']);
    expect(lab.peak).toBe(1);
  });

  it('a loop body that does not await: the next job starts after the body saw the final', async () => {
    const order: string[] = [];
    const shell = newTool({
      name: 'shell',
      resource: 'shell:session',
      execute: (call) => {
        order.push(`start ${call.id}`);
        return text(call.id);
      },
    });
    const jobs = [job(shell, 's1'), job(shell, 's2'), job(shell, 's3')];
    for await (const event of new Executor().execute(jobs)) order.push(`took ${event.index}`);
    expect(order).toEqual(['start s1', 'took 0', 'start s2', 'took 1', 'start s3', 'took 2']);
  });

  it('never starts the next job before the next() carrying the final has resolved', async () => {
    const lab = new Lab();
    const shell = lab.tool('shell', { resource: 'r' });
    const run = new Executor().execute([job(shell, 's1'), job(shell, 's2')]);
    const first = run.next();
    await lab.started('s1');
    lab.finish('s1');
    const atHandover = await first.then((step) => ({
      index: step.value?.index,
      s2: lab.hasStarted('s2'),
    }));
    expect(atHandover).toEqual({ index: 0, s2: false });
    // The consumer has not asked for the next event: s2 starts anyway.
    await flush();
    expect(lab.hasStarted('s2')).toBe(true);
    lab.finish('s2');
    expect((await run.next()).value).toMatchObject({ index: 1, final: true });
    expect((await run.next()).done).toBe(true);
  });

  it('frees a slot of the bound the same way', async () => {
    const lab = new Lab();
    const tool = lab.tool('t');
    const run = new Executor({ maxParallel: 2 }).execute([
      job(tool, 'a'),
      job(tool, 'b'),
      job(tool, 'c'),
    ]);
    const first = run.next();
    await lab.started('a');
    await lab.started('b');
    expect(lab.hasStarted('c')).toBe(false);
    lab.finish('a');
    expect((await first).value).toMatchObject({ index: 0, final: true });
    await flush();
    expect(lab.hasStarted('c')).toBe(true);
    expect(lab.running).toBe(2);
    lab.finish('b');
    lab.finish('c');
    const rest: number[] = [];
    for (let step = await run.next(); step.done !== true; step = await run.next()) {
      rest.push(step.value.index);
    }
    expect(rest.sort()).toEqual([1, 2]);
    expect(lab.peak).toBe(2);
  });

  it('starts nothing more when the consumer leaves the loop on the final', async () => {
    const lab = new Lab();
    const shell = lab.tool('shell', { resource: 'r' });
    const seen: ExecutorEvent[] = [];
    const loop = (async () => {
      for await (const event of new Executor().execute([job(shell, 's1'), job(shell, 's2')])) {
        seen.push(event);
        break;
      }
    })();
    await lab.started('s1');
    lab.finish('s1');
    await loop;
    await flush();
    expect(seen.map((e) => e.index)).toEqual([0]);
    expect(lab.hasStarted('s2')).toBe(false);
  });
});

// Go: exec.go Execute completes a job that never started with ctx.Err(), whose text is
// context.Canceled's or context.DeadlineExceeded's.
describe('a job cancelled before it started', () => {
  it('reads `context canceled`, the reason kept as the cause', async () => {
    const reason = new Error('user pressed ctrl-c');
    const tool = newTool({ name: 't', execute: () => text('ran') });
    const [only] = await new Executor().results([job(tool, 'c1')], {
      signal: AbortSignal.abort(reason),
    });
    expect(only?.error).toBeInstanceOf(CancelledError);
    expect(only?.error?.message).toBe('context canceled');
    expect(only?.error?.cause).toBe(reason);
    expect((only?.error as CancelledError).code).toBe('CANCELLED');
    expect((only?.error as CancelledError).callId).toBe('c1');
  });

  it('reads `context deadline exceeded` when the signal timed out', async () => {
    // What AbortSignal.timeout() aborts with, without waiting on a clock.
    const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    const lab = new Lab();
    const tool = lab.tool('t');
    const controller = new AbortController();
    const run = new Executor({ maxParallel: 1 }).execute([job(tool, 'a'), job(tool, 'b')], {
      signal: controller.signal,
    });
    const first = run.next();
    await lab.started('a');
    controller.abort(timeout);
    lab.finish('a');
    expect((await first).value).toMatchObject({ index: 0, final: true });
    const second = (await run.next()).value;
    expect(second?.index).toBe(1);
    expect(second?.error?.message).toBe('context deadline exceeded');
    expect(second?.error?.cause).toBe(timeout);
    expect(lab.hasStarted('b')).toBe(false);
  });
});
