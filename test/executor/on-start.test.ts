import {
  AgentToolError,
  type Call,
  Executor,
  type ExecutorEvent,
  type Job,
  PanicError,
  type ToolContext,
  type ToolRecord,
  createContext,
  currentContext,
  recordable,
  text,
} from 'agenttool';
import { Lab, deferred, flush, job } from './lab';

describe('onStart', () => {
  it('is called when the job is handed to its tool, with the call on the context', async () => {
    const lab = new Lab();
    const tool = lab.tool('t');
    const calls: string[] = [];
    const executor = new Executor({
      maxParallel: 1,
      onStart: (started: Job, ctx: ToolContext) => {
        calls.push(`${started.call.id}:${ctx.call.id}:${currentContext() === ctx}`);
        lab.log.push(`onStart ${started.call.id}`);
      },
    });
    const events = executor.execute([job(tool, 'a'), job(tool, 'b')]);
    const first = events.next();
    await lab.started('a');
    // b has neither its slot nor its turn yet.
    expect(calls).toEqual(['a:a:true']);
    lab.finish('a');
    await first;
    // b gets its slot once the consumer has a's final, before it asks for the next event.
    await flush();
    expect(calls).toEqual(['a:a:true', 'b:b:true']);
    const second = events.next();
    lab.finish('b');
    await second;
    expect(calls).toEqual(['a:a:true', 'b:b:true']);
    expect(lab.log).toEqual(['onStart a', 'start a', 'end a', 'onStart b', 'start b', 'end b']);
  });

  it('holds the slot while an async onStart runs', async () => {
    const lab = new Lab();
    const tool = lab.tool('t');
    const gate = deferred();
    const executor = new Executor({
      maxParallel: 1,
      onStart: async (started) => {
        lab.log.push(`onStart ${started.call.id}`);
        if (started.call.id === 'a') await gate.promise;
      },
    });
    const pending = executor.results([job(tool, 'a'), job(tool, 'b')]);
    await flush();
    expect(lab.log).toEqual(['onStart a']);
    gate.resolve();
    await lab.started('a');
    lab.finish('a');
    await lab.started('b');
    lab.finish('b');
    await pending;
    expect(lab.log).toEqual(['onStart a', 'start a', 'end a', 'onStart b', 'start b', 'end b']);
  });

  it('refuses a job by throwing or rejecting: the job completes with that error, the tool never runs', async () => {
    const lab = new Lab();
    const tool = lab.tool('t');
    const refused = new Error('could not record the dispatch');
    const executor = new Executor({
      onStart: (started) => {
        if (started.call.id === 'sync') throw refused;
        if (started.call.id === 'async') return Promise.reject(refused);
        return undefined;
      },
    });
    const pending = executor.results([job(tool, 'sync'), job(tool, 'async'), job(tool, 'ok')]);
    await lab.started('ok');
    lab.finish('ok');
    const outcomes = await pending;
    expect(outcomes[0]).toEqual({ error: refused });
    expect(outcomes[1]).toEqual({ error: refused });
    expect(outcomes[2]).toEqual({ result: text('done ok') });
    expect(lab.log).toEqual(['start ok', 'end ok']);
  });

  it('names a programming fault as onStart’s, not the tool’s', async () => {
    const lab = new Lab();
    const executor = new Executor({
      onStart: (started) => {
        if (started.call.id === 'c1') throw new TypeError('cannot read properties of undefined');
        throw 42; // eslint-disable-line @typescript-eslint/only-throw-error
      },
    });
    const [first, second] = await executor.results([
      job(lab.tool('t'), 'c1'),
      job(lab.tool('t'), 'c2'),
    ]);
    expect(first?.error).toBeInstanceOf(AgentToolError);
    expect(first?.error).not.toBeInstanceOf(PanicError);
    expect((first?.error as AgentToolError).code).toBe('ON_START');
    expect(first?.error?.message).toBe(
      'agenttool: OnStart for call "c1" panicked: TypeError: cannot read properties of undefined',
    );
    expect(second?.error?.message).toBe('agenttool: OnStart for call "c2" panicked: 42');
    expect(lab.log).toEqual([]);
  });

  it('gets the call with the executor’s forwarder: its progress reaches the consumer first', async () => {
    const lab = new Lab();
    const tool = lab.tool('t');
    const executor = new Executor({
      onStart: (_job, ctx) => ctx.progress('dispatched'),
    });
    const events: ExecutorEvent[] = [];
    const run = executor.execute([job(tool, 'a')]);
    const done = (async () => {
      for await (const event of run) events.push(event);
    })();
    await flush();
    expect(events).toEqual([{ index: 0, final: false, result: { output: 'dispatched' } }]);
    await lab.started('a');
    lab.finish('a');
    await done;
    expect(events[1]).toEqual({ index: 0, final: true, result: text('done a') });
  });

  it('is not called for a job without a tool', async () => {
    let called = 0;
    const executor = new Executor({ onStart: () => void called++ });
    const [only] = await executor.results([job(undefined, 'x')]);
    expect(only?.error?.message).toBe('no tool for call "x"');
    expect(called).toBe(0);
  });
});

describe('the recorder', () => {
  function recordingTool(lab: Lab) {
    const base = lab.tool('shell');
    return {
      ...base,
      execute: async (call: Call, ctx: ToolContext) => {
        await ctx.record(recordable('shell:process-group', { pgid: 42 }));
        return base.execute(call, ctx);
      },
    };
  }

  it('sees a record while the tool is still running', async () => {
    const lab = new Lab();
    const written = deferred<{ record: ToolRecord; id: string }>();
    const executor = new Executor({
      recorder: (record, ctx) => written.resolve({ record, id: ctx.call.id }),
    });
    let settled = false;
    const pending = executor.results([job(recordingTool(lab), 'c1')]).finally(() => {
      settled = true;
    });
    const { record, id } = await written.promise;
    expect(record).toEqual({ ns: 'shell:process-group', data: '{"pgid":42}' });
    expect(id).toBe('c1');
    await lab.started('c1');
    await flush();
    expect(settled).toBe(false);
    expect(lab.running).toBe(1);
    lab.finish('c1');
    expect((await pending)[0]).toEqual({ result: text('done c1') });
  });

  it('uses a recorder already on the context when the executor has none, and overrides it when it has one', async () => {
    const seen: string[] = [];
    const context = createContext({ recorder: (r) => void seen.push(`context ${r.ns}`) });
    const lab = new Lab();
    const tool = recordingTool(lab);
    const first = new Executor().results([job(tool, 'a')], { context });
    await lab.started('a');
    lab.finish('a');
    await first;
    const second = new Executor({ recorder: (r) => void seen.push(`executor ${r.ns}`) }).results(
      [job(tool, 'b')],
      { context },
    );
    await lab.started('b');
    lab.finish('b');
    await second;
    expect(seen).toEqual(['context shell:process-group', 'executor shell:process-group']);
  });

  it('lets a recorder failure reach the tool that wrote', async () => {
    const failure = new Error('disk full');
    const executor = new Executor({
      recorder: () => {
        throw failure;
      },
    });
    const [only] = await executor.results([job(recordingTool(new Lab()), 'a')]);
    expect(only).toEqual({ error: failure });
  });
});
