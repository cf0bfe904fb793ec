import {
  AgentToolError,
  DEFAULT_MAX_PARALLEL,
  Executor,
  type ExecutorEvent,
  PanicError,
  type Result,
  currentContext,
  newTool,
  text,
} from 'agenttool';
import { Lab, flush, job } from './lab';

/** A tool that returns after `turns` microtask turns: no clock, varied completion order. */
function quick(name: string, turns: (id: string) => number, lab?: Lab) {
  return newTool({
    name,
    execute: async (call) => {
      if (lab !== undefined) {
        lab.running++;
        lab.peak = Math.max(lab.peak, lab.running);
        lab.log.push(`start ${call.id}`);
      }
      for (let k = turns(call.id); k > 0; k--) await Promise.resolve();
      if (lab !== undefined) lab.running--;
      return text(`out ${call.id}`);
    },
  });
}

async function collect(events: AsyncIterable<ExecutorEvent>): Promise<ExecutorEvent[]> {
  const out: ExecutorEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe('Executor.execute', () => {
  it('yields nothing for an empty batch', async () => {
    const executor = new Executor();
    expect(await collect(executor.execute([]))).toEqual([]);
    expect(await executor.results([])).toEqual([]);
  });

  it('delivers finals in completion order, fast before slow, each naming its job', async () => {
    const lab = new Lab();
    const tool = lab.tool('work');
    const events = new Executor().execute([job(tool, 'slow'), job(tool, 'fast')]);
    const seen: ExecutorEvent[] = [];
    const done = (async () => {
      for await (const event of events) seen.push(event);
    })();
    await lab.started('slow');
    await lab.started('fast');
    lab.finish('fast');
    await flush();
    expect(seen).toEqual([{ index: 1, final: true, result: text('done fast') }]);
    lab.finish('slow');
    await done;
    expect(seen.map((e) => e.index)).toEqual([1, 0]);
    expect(seen[1]).toEqual({ index: 0, final: true, result: text('done slow') });
  });

  it('gives exactly one final per job', async () => {
    const jobs = Array.from({ length: 30 }, (_, i) =>
      job(
        quick('q', () => i % 4),
        `c${i}`,
      ),
    );
    const events = await collect(new Executor({ maxParallel: 4 }).execute(jobs));
    const finals = events.filter((e) => e.final).map((e) => e.index);
    expect(finals.sort((a, b) => a - b)).toEqual(jobs.map((_, i) => i));
  });

  it('starts nothing before the loop asks for the first event', async () => {
    const lab = new Lab();
    const events = new Executor().execute([job(lab.tool('t'), 'a')]);
    await flush();
    expect(lab.log).toEqual([]);
    const first = events.next();
    await lab.started('a');
    lab.finish('a');
    expect((await first).value).toMatchObject({ index: 0, final: true });
  });

  it('is consumed by one loop: a second loop over the same events sees nothing', async () => {
    const events = new Executor().execute([
      job(
        quick('q', () => 1),
        'a',
      ),
    ]);
    expect((await collect(events)).length).toBe(1);
    expect(await collect(events)).toEqual([]);
  });
});

describe('the bound', () => {
  it('defaults to 8', () => {
    expect(DEFAULT_MAX_PARALLEL).toBe(8);
    expect(new Executor().maxParallel).toBe(8);
    expect(new Executor({ maxParallel: 0 }).maxParallel).toBe(8);
    expect(new Executor({ maxParallel: -3 }).maxParallel).toBe(8);
    expect(new Executor({ maxParallel: 3 }).maxParallel).toBe(3);
  });

  it.each([
    [3, 3],
    [undefined, 8],
  ])('never runs more than maxParallel=%s tools at once', async (maxParallel, bound) => {
    const lab = new Lab();
    const tool = quick('q', (id) => 1 + (Number(id.slice(1)) % 5), lab);
    const jobs = Array.from({ length: 25 }, (_, i) => job(tool, `c${i}`));
    const executor = new Executor({ maxParallel });
    await collect(executor.execute(jobs));
    expect(lab.peak).toBe(bound);
  });

  it('runs a serial batch one job at a time, in the model order, ignoring resources', async () => {
    const cases: [string, Executor, (lab: Lab) => ReturnType<typeof newTool>][] = [
      ['sequential option', new Executor({ sequential: true }), (lab) => quick('q', () => 2, lab)],
      ['maxParallel 1', new Executor({ maxParallel: 1 }), (lab) => quick('q', () => 2, lab)],
    ];
    for (const [label, executor, make] of cases) {
      const lab = new Lab();
      const tool = make(lab);
      const jobs = Array.from({ length: 6 }, (_, i) => job(tool, `c${i}`));
      const finals = (await collect(executor.execute(jobs))).map((e) => e.index);
      expect({ label, peak: lab.peak }).toEqual({ label, peak: 1 });
      expect(finals).toEqual([0, 1, 2, 3, 4, 5]);
    }
  });

  it('makes the whole batch serial when any tool is sequential', async () => {
    const lab = new Lab();
    const plain = quick('plain', (id) => (id === 'c0' ? 5 : 0), lab);
    const seq = newTool({ name: 'seq', sequential: true, execute: () => text('s') });
    const resourced = newTool({
      name: 'res',
      resource: 'r',
      execute: async () => {
        lab.running++;
        lab.peak = Math.max(lab.peak, lab.running);
        await Promise.resolve();
        lab.running--;
        return text('r');
      },
    });
    const jobs = [job(plain, 'c0'), job(resourced, 'c1'), job(plain, 'c2'), job(seq, 'c3')];
    const finals = (await collect(new Executor().execute(jobs))).map((e) => e.index);
    expect(lab.peak).toBe(1);
    expect(finals).toEqual([0, 1, 2, 3]);
  });
});

describe('errors', () => {
  async function outcome(tool: ReturnType<typeof newTool> | undefined, id = 'c1') {
    const [only] = await new Executor().results([job(tool, id)]);
    return only!;
  }

  it('completes a job with the error its tool threw, as is', async () => {
    const error = new Error('disk full');
    const tool = newTool({
      name: 'w',
      execute: async () => {
        throw error;
      },
    });
    expect((await outcome(tool)).error).toBe(error);
  });

  it('turns a programming fault, sync or async, into the panic equivalent', async () => {
    const sync = newTool({
      name: 'sync',
      execute: () => {
        throw new TypeError('x is not a function');
      },
    });
    const asyncFault = newTool({
      name: 'async',
      execute: async () => {
        throw 'a string'; // eslint-disable-line @typescript-eslint/only-throw-error
      },
    });
    const first = (await outcome(sync)).error;
    expect(first).toBeInstanceOf(PanicError);
    expect(first?.message).toBe('tool "sync" panicked: TypeError: x is not a function');
    const second = (await outcome(asyncFault)).error;
    expect(second).toBeInstanceOf(PanicError);
    expect(second?.message).toBe('tool "async" panicked: a string');
  });

  it('completes a job without a tool with `no tool for call "<id>"`', async () => {
    const error = (await outcome(undefined, 'call_9')).error;
    expect(error).toBeInstanceOf(AgentToolError);
    expect((error as AgentToolError).code).toBe('NO_TOOL');
    expect(error?.message).toBe('no tool for call "call_9"');
  });

  it.each([
    ['null', null, 1],
    ['a job without a call', { tool: undefined }, 1],
    ['a call without an id', { tool: undefined, call: { args: '{}' } }, 1],
    ['a call without args', { tool: undefined, call: { id: 'x' } }, 1],
  ])('refuses %s as a job before anything runs, naming its index', async (_what, bad, at) => {
    let started = 0;
    const counted = newTool({ name: 'counted', execute: () => (started++, text('ok')) });
    const jobs = [{ tool: counted, call: { id: 'a', args: '{}' } }, bad] as never;
    const executor = new Executor();
    expect(() => executor.execute(jobs)).toThrow(
      expect.objectContaining({
        code: 'INVALID_OPTIONS',
        message: `agenttool: execute: jobs[${at}] is not a job: it needs a call with a string id and string args`,
      }) as Error,
    );
    await expect(executor.results(jobs)).rejects.toThrow(`jobs[${at}] is not a job`);
    expect(started).toBe(0);
  });

  it('treats a tool that returns no result as a programming fault', async () => {
    const tool = newTool({ name: 'bad', execute: () => undefined as unknown as Result });
    const error = (await outcome(tool)).error;
    expect(error).toBeInstanceOf(PanicError);
    expect(error?.message).toBe(
      'tool "bad" panicked: TypeError: execute returned undefined instead of a Result',
    );
  });
});

describe('Executor.results', () => {
  it('collects the finals in job order', async () => {
    const lab = new Lab();
    const tool = lab.tool('t');
    const failure = new Error('nope');
    const pending = new Executor().results([job(tool, 'a'), job(tool, 'b'), job(undefined, 'c')]);
    await lab.started('b');
    lab.fail('b', failure);
    await lab.started('a');
    lab.finish('a');
    const outcomes = await pending;
    expect(outcomes[0]).toEqual({ result: text('done a') });
    expect(outcomes[1]).toEqual({ error: failure });
    expect(outcomes[2]?.error?.message).toBe('no tool for call "c"');
  });
});

describe('the job context', () => {
  it('installs the call on every tool context, reachable deep inside the tool', async () => {
    const seen: string[] = [];
    const tool = newTool({
      name: 'deep',
      execute: async (call, ctx) => {
        await Promise.resolve();
        const deep = currentContext();
        seen.push(`${call.id}:${ctx.call.id}:${deep?.call.id}:${deep === ctx}`);
        return text('ok');
      },
    });
    await new Executor().results([job(tool, 'a'), job(tool, 'b', { idempotencyKey: 'k1' })]);
    expect(seen.sort()).toEqual(['a:a:a:true', 'b:b:b:true']);
  });

  it("keeps a job's context to its job: the loop body and the code after see none", async () => {
    const tool = newTool({
      name: 'deep',
      execute: async () => {
        await Promise.resolve();
        return text(currentContext()?.call.id ?? 'none');
      },
    });
    const jobs = ['a', 'b', 'c', 'd'].map((id) => job(tool, id));
    const inBody: (string | undefined)[] = [];
    const outputs: unknown[] = [];
    for await (const event of new Executor({ maxParallel: 2 }).execute(jobs)) {
      inBody.push(currentContext()?.call.id);
      if (event.final) outputs[event.index] = event.result?.output;
    }
    expect(outputs).toEqual(['a', 'b', 'c', 'd']);
    expect(inBody).toEqual([undefined, undefined, undefined, undefined]);
    expect(currentContext()).toBeUndefined();
  });

  it('keeps the call id, arguments and idempotency key', async () => {
    let got: unknown;
    const tool = newTool({
      name: 't',
      execute: (call) => {
        got = { id: call.id, args: call.args, key: call.idempotencyKey };
        return text('');
      },
    });
    await new Executor().results([job(tool, 'x', { args: '{"a":1}', idempotencyKey: 'k' })]);
    expect(got).toEqual({ id: 'x', args: '{"a":1}', key: 'k' });
  });
});

describe('the call a tool receives', () => {
  it('carries decoded arguments on, and their text when read', async () => {
    const seen: { value: unknown; args: string }[] = [];
    const tool = newTool({
      name: 'look',
      execute: (call) => {
        seen.push({ value: call.value, args: call.args });
        return text('');
      },
    });
    const value = Object.freeze({ n: 1 });
    await new Executor().results([
      { tool, call: { id: 'a', args: '{"n":1}', value } },
      { tool, call: { id: 'b', args: '{"n":2}' } },
    ]);
    expect(seen).toEqual([
      { value, args: '{"n":1}' },
      { value: undefined, args: '{"n":2}' },
    ]);
  });
});
