import {
  Executor,
  type ExecutorEvent,
  ProgressInfo,
  outputText,
  createContext,
  type Result,
  type ToolContext,
  newTool,
  progressTaken,
  text,
} from 'agenttool';
import { Lab, deferred, flush, job } from './lab';

async function collect(events: AsyncIterable<ExecutorEvent>): Promise<ExecutorEvent[]> {
  const out: ExecutorEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe('progress', () => {
  it('reaches the consumer as non-final events, in order, before the final', async () => {
    const tool = newTool({
      name: 'p',
      execute: async (_call, ctx) => {
        ctx.progress('one');
        await Promise.resolve();
        ctx.progress(new ProgressInfo(2, 3, 'two'));
        ctx.progress(text('three'));
        return text('done');
      },
    });
    const events = await collect(new Executor().execute([job(tool, 'a')]));
    expect(events).toEqual([
      { index: 0, final: false, result: { output: 'one' } },
      { index: 0, final: false, result: { output: 'two', details: new ProgressInfo(2, 3, 'two') } },
      { index: 0, final: false, result: text('three') },
      { index: 0, final: true, result: text('done') },
    ]);
  });

  it('calls the job’s own progress callback too, as each update is delivered', async () => {
    const log: string[] = [];
    const tool = newTool({
      name: 'p',
      execute: (_call, ctx) => {
        ctx.progress('u1');
        ctx.progress('u2');
        log.push('tool returned');
        return text('done');
      },
    });
    const onUpdate = (update: Result) => void log.push(`callback ${outputText(update.output)}`);
    for await (const event of new Executor().execute([job(tool, 'a', { onUpdate })])) {
      log.push(`event ${outputText(event.result?.output ?? '')}`);
    }
    expect(log).toEqual([
      'tool returned',
      'callback u1',
      'event u1',
      'callback u2',
      'event u2',
      'event done',
    ]);
  });

  it('drops progress sent after the job’s final', async () => {
    let saved: ToolContext | undefined;
    const callback = jest.fn();
    const tool = newTool({
      name: 'p',
      execute: (_call, ctx) => {
        saved = ctx;
        return text('done');
      },
    });
    const other = new Lab();
    const events: ExecutorEvent[] = [];
    const run = new Executor().execute([
      job(tool, 'a', { onUpdate: callback }),
      job(other.tool('o'), 'b'),
    ]);
    const first = await run.next();
    expect(first.value).toEqual({ index: 0, final: true, result: text('done') });
    saved?.progress('too late');
    const rest = (async () => {
      for (let step = await run.next(); step.done !== true; step = await run.next()) {
        events.push(step.value);
      }
    })();
    await other.started('b');
    other.finish('b');
    await rest;
    expect(events).toEqual([{ index: 1, final: true, result: text('done b') }]);
    expect(callback).not.toHaveBeenCalled();
  });

  it('keeps memory bounded for a slow consumer: past the buffer, the newest replaces the last waiting', async () => {
    const tool = newTool({
      name: 'p',
      execute: (_call, ctx) => {
        for (let k = 1; k <= 100; k++) ctx.progress(`u${k}`);
        return text('done');
      },
    });
    const events = await collect(new Executor({ progressBuffer: 3 }).execute([job(tool, 'a')]));
    expect(events.map((e) => e.result?.output)).toEqual(['u1', 'u2', 'u100', 'done']);
  });

  it('slows a tool that awaits progressTaken to its consumer’s pace', async () => {
    const sent: number[] = [];
    const tool = newTool({
      name: 'stream',
      execute: async (_call, ctx) => {
        for (let k = 1; k <= 3; k++) {
          ctx.progress(`chunk ${k}`);
          sent.push(k);
          await progressTaken(ctx);
        }
        return text('done');
      },
    });
    const run = new Executor({ progressBuffer: 1 }).execute([job(tool, 'a')]);
    const first = run.next();
    await flush();
    // The consumer has taken chunk 1 (its next() resolved); the tool may send chunk 2 and
    // then waits, since nobody took it.
    expect((await first).value?.result?.output).toBe('chunk 1');
    await flush();
    expect(sent).toEqual([1, 2]);
    expect((await run.next()).value?.result?.output).toBe('chunk 2');
    await flush();
    expect(sent).toEqual([1, 2, 3]);
    expect((await run.next()).value?.result?.output).toBe('chunk 3');
    expect((await run.next()).value).toEqual({ index: 0, final: true, result: text('done') });
    expect((await run.next()).done).toBe(true);
  });

  it('progressTaken resolves at once outside a batch', async () => {
    await expect(progressTaken(createContext())).resolves.toBeUndefined();
  });

  it('ends the batch when the caller’s own callback throws, after running tools return', async () => {
    const lab = new Lab();
    const failure = new Error('callback broke');
    const noisy = newTool({
      name: 'noisy',
      execute: (_call, ctx) => {
        ctx.progress('hello');
        return text('done');
      },
    });
    const onUpdate = () => {
      throw failure;
    };
    const run = new Executor().execute([job(lab.tool('slow'), 's'), job(noisy, 'n', { onUpdate })]);
    const stopped = deferred<unknown>();
    let caught = false;
    const loop = (async () => {
      try {
        for await (const _event of run) {
          // nothing
        }
      } catch (error) {
        caught = true;
        stopped.resolve(error);
      }
    })();
    const slowCtx = await lab.started('s');
    await flush();
    expect(slowCtx.signal.aborted).toBe(true);
    expect(lab.running).toBe(1);
    expect(caught).toBe(false);
    lab.finish('s');
    expect(await stopped.promise).toBe(failure);
    await loop;
    expect(lab.running).toBe(0);
  });
});
