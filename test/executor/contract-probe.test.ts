/**
 * Where the executor met the contract's batch rules (CONTRACT.md §1.9) and the Go
 * executor's tests (exec_test.go) only partly: a running call stopped by cancellation,
 * and a tool or onStart whose thenable settles more than once.
 */
import {
  CancelledError,
  Executor,
  type ExecutorEvent,
  type Job,
  newTool,
  Param,
  type Result,
  text,
  Tool,
  type ToolContext,
  toolFromInstance,
} from 'agenttool';
import { deferred, flush, job } from './lab';

/** A tool that waits for its signal and then stops as the docs teach: `throwIfAborted()`. */
function stopsOnAbort(name: string) {
  return newTool({
    name,
    execute: async (_call, ctx) => {
      await new Promise<void>((resolve) => {
        if (ctx.signal.aborted) resolve();
        else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      ctx.signal.throwIfAborted();
      return text('not stopped');
    },
  });
}

class WaitArgs {
  @Param('Anything') note!: string;
}

/** The same as a `@Tool` class, whose tool turns a thrown non-Error into a PanicError. */
@Tool({ name: 'class_waits', description: 'Waits for its signal', args: WaitArgs })
class ClassWaits {
  async execute(_args: WaitArgs, ctx: ToolContext): Promise<string> {
    await new Promise<void>((resolve) => {
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    ctx.signal.throwIfAborted();
    return 'not stopped';
  }
}

/**
 * Starts `jobs`, lets every tool start, aborts with `reason`, and collects the outcomes,
 * with the signal's reason (an AbortError when `reason` is undefined).
 */
async function abortedWith(jobs: readonly Job[], reason: unknown, executor = new Executor()) {
  const controller = new AbortController();
  const outcomes = executor.results(jobs, { signal: controller.signal });
  await flush();
  controller.abort(reason);
  return Object.assign(await outcomes, { reason: controller.signal.reason as unknown });
}

describe('a running call stopped by cancellation (Go: the tool returns ctx.Err())', () => {
  // In Go a cancelled tool returns ctx.Err(): the job reads `context canceled` (or
  // `context deadline exceeded`), as a job cancelled before its turn does. Throwing the
  // signal's reason is the same move here, whatever the reason is.
  it.each([
    ['no reason (an AbortError)', undefined, 'context canceled'],
    ['a string', 'the user pressed Esc', 'context canceled'],
    ['a number', 42, 'context canceled'],
    ['an Error', new Error('why'), 'context canceled'],
    [
      'a timeout',
      new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
      'context deadline exceeded',
    ],
  ])('reads as ctx.Err() when the reason is %s, never as a panic', async (_, reason, message) => {
    const outcomes = await abortedWith(
      [job(stopsOnAbort('stops'), 'a'), job(stopsOnAbort('stops'), 'b')],
      reason,
      new Executor({ maxParallel: 1 }),
    );
    const [running, waiting] = outcomes;
    for (const outcome of [running, waiting]) {
      expect(outcome?.error).toBeInstanceOf(CancelledError);
      expect(outcome?.error?.message).toBe(message);
      // The reason stays on `cause`, as Go's context.Cause keeps it.
      expect(outcome?.error?.cause).toBe(outcomes.reason);
    }
    expect((running?.error as CancelledError).callId).toBe('a');
  });

  it('reads so for a @Tool class too, whose tool names a thrown non-Error a panic', async () => {
    const tool = toolFromInstance(new ClassWaits());
    const [outcome] = await abortedWith(
      [{ tool, call: { id: 'a', args: '{"note":"x"}' } }],
      'stop',
    );
    expect(outcome?.error).toBeInstanceOf(CancelledError);
    expect(outcome?.error?.message).toBe('context canceled');
  });

  it("keeps the tool's own error when it throws something else after the abort", async () => {
    const own = new Error('disk on fire');
    const tool = newTool({
      name: 'own',
      execute: async (_call, ctx) => {
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        throw own;
      },
    });
    const [outcome] = await abortedWith([job(tool, 'a')], 'stop');
    expect(outcome?.error).toBe(own);
  });

  it('keeps a result the tool returns after the abort', async () => {
    const tool = newTool({
      name: 'finishes',
      execute: async (_call, ctx) => {
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        return text('finished anyway');
      },
    });
    const [outcome] = await abortedWith([job(tool, 'a')], 'stop');
    expect(outcome?.result?.output).toBe('finished anyway');
  });

  it('reads so when onStart stops on the abort (Go: OnStart returns ctx.Err())', async () => {
    let ran = false;
    const tool = newTool({
      name: 't',
      execute: () => {
        ran = true;
        return text('ran');
      },
    });
    const executor = new Executor({
      onStart: async (_job, ctx) => {
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        ctx.signal.throwIfAborted();
      },
    });
    const [outcome] = await abortedWith([job(tool, 'a')], 'stop', executor);
    expect(outcome?.error).toBeInstanceOf(CancelledError);
    expect(outcome?.error?.message).toBe('context canceled');
    expect(ran).toBe(false);
  });
});

describe('exactly one final per job, whatever a thenable does', () => {
  /** A thenable that calls back more than once, as no promise would. */
  function twice(first: Result, then: 'resolve' | 'reject'): PromiseLike<Result> {
    return {
      then: (onResolved, onRejected) => {
        onResolved?.(first);
        if (then === 'resolve') onResolved?.(text('second'));
        else onRejected?.(new Error('second'));
        return undefined as never;
      },
    };
  }

  it.each(['resolve', 'reject'] as const)(
    'takes the first outcome of a tool whose thenable settles, then %ss',
    async (then) => {
      const tool = newTool({
        name: 'twice',
        execute: () => twice(text('first'), then) as Promise<Result>,
      });
      const events: ExecutorEvent[] = [];
      for await (const event of new Executor({ maxParallel: 1 }).execute([
        job(tool, 'a'),
        job(tool, 'b'),
        job(tool, 'c'),
      ])) {
        events.push(event);
      }
      expect(events.map((e) => [e.index, e.final, e.result?.output, e.error?.message])).toEqual([
        [0, true, 'first', undefined],
        [1, true, 'first', undefined],
        [2, true, 'first', undefined],
      ]);
    },
  );

  it('does not run the tool of a job whose onStart thenable rejected, then resolved', async () => {
    let ran = 0;
    const tool = newTool({
      name: 't',
      execute: () => {
        ran++;
        return text('ran');
      },
    });
    const refusal = new Error('not durable');
    const executor = new Executor({
      onStart: () =>
        ({
          then: (onResolved?: () => void, onRejected?: (e: unknown) => void) => {
            onRejected?.(refusal);
            onResolved?.();
          },
        }) as unknown as Promise<void>,
    });
    const outcomes = await executor.results([job(tool, 'a'), job(tool, 'b')]);
    expect(outcomes.map((o) => o.error)).toEqual([refusal, refusal]);
    expect(ran).toBe(0);
  });

  it('completes a job whose thenable throws from then, as the tool failing', async () => {
    const broken = new Error('then broke');
    const tool = newTool({
      name: 'broken',
      execute: () =>
        ({
          then: () => {
            throw broken;
          },
        }) as unknown as Promise<Result>,
    });
    const gate = deferred();
    const after = newTool({
      name: 'after',
      execute: async () => {
        await gate.promise;
        return text('after');
      },
    });
    const run = new Executor().results([job(tool, 'a'), job(after, 'b')]);
    gate.resolve();
    const [first, second] = await run;
    expect(first?.error).toBe(broken);
    expect(second?.result?.output).toBe('after');
  });
});
