import {
  CallBatcher,
  createContext,
  Executor,
  type ExecutorEvent,
  type Job,
  type JobOutcome,
  outputText,
  ProgressInfo,
  recordable,
  type RunBatch,
  newTool,
  text,
  type ToolRecord,
} from 'agenttool';
import { flush, job, Lab } from './lab';

/** A batch runner that remembers the call ids of every batch it ran. */
function recordingRun(executor = new Executor()): { run: RunBatch; batches: string[][] } {
  const batches: string[][] = [];
  const run: RunBatch = (jobs, signal) => {
    batches.push(jobs.map((j) => j.call.id));
    return executor.execute(jobs, { signal });
  };
  return { run, batches };
}

const outputOf = (outcome: JobOutcome): string =>
  outcome.error === undefined
    ? outputText(outcome.result.output)
    : `Error: ${outcome.error.message}`;

describe('CallBatcher', () => {
  it('runs the calls handed over in one turn as one batch: a chain in order, the rest in parallel', async () => {
    const lab = new Lab();
    const bash = lab.tool('bash', { resource: 'shell:session' });
    const read = lab.tool('read_file');
    const { run, batches } = recordingRun();
    const batcher = new CallBatcher({ run });
    const ids = ['b1', 'r1', 'b2', 'r2', 'r3'];
    const outcomes = ids.map((id) => batcher.run(job(id.startsWith('b') ? bash : read, id)));
    await Promise.all(['b1', 'r1', 'r2', 'r3'].map((id) => lab.started(id)));
    // The three reads run together, beside the first command; the second waits its turn.
    expect(lab.running).toBe(4);
    expect(lab.hasStarted('b2')).toBe(false);
    for (const id of ['r3', 'r1', 'r2']) lab.finish(id);
    await flush();
    expect(lab.hasStarted('b2')).toBe(false);
    lab.finish('b1');
    await lab.started('b2');
    lab.finish('b2');
    expect((await Promise.all(outcomes)).map(outputOf)).toEqual(ids.map((id) => `done ${id}`));
    expect(batches).toEqual([ids]);
    expect(lab.log.indexOf('end b1')).toBeLessThan(lab.log.indexOf('start b2'));
  });

  it('orders a step by its announcements and starts it when the last announced call arrives', async () => {
    const lab = new Lab();
    const bash = lab.tool('bash', { sequential: true });
    const { run, batches } = recordingRun();
    const batcher = new CallBatcher({ run });
    const step = {};
    for (const id of ['first', 'second', 'third']) batcher.announce(step, id);
    const outcomes = ['third', 'first', 'second'].map((id) => batcher.run(job(bash, id), { step }));
    // Released at once, not at the end of the turn: the first call starts before a
    // callback scheduled now for the next turn runs.
    let nextTurn = false;
    setImmediate(() => (nextTurn = true));
    await lab.started('first');
    expect(nextTurn).toBe(false);
    expect(batches).toEqual([['first', 'second', 'third']]);
    for (const id of ['first', 'second', 'third']) {
      await lab.started(id);
      lab.finish(id);
    }
    await Promise.all(outcomes);
    expect(lab.log).toEqual([
      'start first',
      'end first',
      'start second',
      'end second',
      'start third',
      'end third',
    ]);
  });

  it('leaves out an announced call that never arrives, and runs the others at the end of the turn', async () => {
    const lab = new Lab();
    const tool = lab.tool('t');
    const { run, batches } = recordingRun();
    const batcher = new CallBatcher({ run });
    const step = {};
    for (const id of ['a', 'denied', 'b']) batcher.announce(step, id);
    const outcomes = ['b', 'a'].map((id) => batcher.run(job(tool, id), { step }));
    await Promise.all([lab.started('a'), lab.started('b')]);
    expect(batches).toEqual([['a', 'b']]);
    lab.finish('a');
    lab.finish('b');
    expect((await Promise.all(outcomes)).map(outputOf)).toEqual(['done b', 'done a']);
  });

  it('puts calls of another step, or of a later turn, in batches of their own', async () => {
    const lab = new Lab();
    const tool = lab.tool('t', { resource: 'r' });
    const { run, batches } = recordingRun();
    const batcher = new CallBatcher({ run });
    const [one, two] = [{}, {}];
    const first = [batcher.run(job(tool, 'one-a'), { step: one })];
    first.push(batcher.run(job(tool, 'two-a'), { step: two }));
    first.push(batcher.run(job(tool, 'one-b'), { step: one }));
    await Promise.all([lab.started('one-a'), lab.started('two-a')]);
    const later = batcher.run(job(tool, 'one-c'), { step: one });
    await lab.started('one-c');
    expect(batches).toEqual([['one-a', 'one-b'], ['two-a'], ['one-c']]);
    for (const id of ['one-a', 'two-a', 'one-c']) lab.finish(id);
    await lab.started('one-b');
    lab.finish('one-b');
    await Promise.all([...first, later]);
  });

  it("resolves each call with its own outcome, a tool's failure as an error", async () => {
    const lab = new Lab();
    const tool = lab.tool('t');
    const batcher = new CallBatcher();
    const outcomes = ['ok', 'bad'].map((id) => batcher.run(job(tool, id)));
    await Promise.all([lab.started('ok'), lab.started('bad')]);
    lab.fail('bad', new Error('no such file'));
    expect(outputOf(await outcomes[1]!)).toBe('Error: no such file');
    lab.finish('ok');
    expect(outputOf(await outcomes[0]!)).toBe('done ok');
  });

  it("cancels the batch when a call's signal aborts: running calls see it, unstarted ones complete cancelled", async () => {
    const lab = new Lab();
    const tool = lab.tool('t', { resource: 'r' });
    const batcher = new CallBatcher();
    const controller = new AbortController();
    const outcomes = ['a', 'b'].map((id) =>
      batcher.run(job(tool, id), { signal: id === 'a' ? controller.signal : undefined }),
    );
    const ctx = await lab.started('a');
    controller.abort();
    expect(ctx.signal.aborted).toBe(true);
    lab.finish('a');
    expect(outputOf(await outcomes[1]!)).toBe('Error: context canceled');
    expect(lab.hasStarted('b')).toBe(false);
  });

  it("delivers progress to the call's onUpdate before its outcome", async () => {
    const progress: string[] = [];
    const tool = newTool({
      name: 'count',
      description: 'Counts',
      execute: (_call, ctx) => {
        ctx.progress(new ProgressInfo(1, 2, 'half'));
        return text('counted');
      },
    });
    const batcher = new CallBatcher();
    const counted: Job = {
      tool,
      call: { id: 'c', args: '{}', onUpdate: (result) => progress.push(outputText(result.output)) },
    };
    const outcome = await batcher.run(counted);
    expect(progress).toEqual(['half']);
    expect(outputOf(outcome)).toBe('counted');
  });

  it("writes through the host context's recorder what the tool records and its result's Recordable details, before the outcome", async () => {
    const written: [ToolRecord, string][] = [];
    const tool = newTool({
      name: 'note',
      description: 'Notes',
      execute: async (_call, ctx) => {
        await ctx.record(recordable('note:during', { step: 1 }));
        return { output: 'noted', details: recordable('note:end', { ok: true }) };
      },
    });
    const context = createContext({
      recorder: (record, ctx) => void written.push([record, ctx.call.id]),
    });
    const batcher = new CallBatcher({ context });
    const outcome = await batcher.run({ tool, call: { id: 'n1', args: '{}' } });
    expect(outputOf(outcome)).toBe('noted');
    expect(written).toEqual([
      [{ ns: 'note:during', data: '{"step":1}' }, 'n1'],
      [{ ns: 'note:end', data: '{"ok":true}' }, 'n1'],
    ]);
    // A recorder that fails makes that failure the call's outcome.
    const failing = new CallBatcher({
      context: createContext({
        recorder: () => Promise.reject(new Error('disk full')),
      }),
    });
    const refused = await failing.run({
      tool: newTool({
        name: 'end',
        description: 'Ends',
        execute: () => ({ output: 'x', details: recordable('end', {}) }),
      }),
      call: { id: 'e1', args: '{}' },
    });
    expect(outputOf(refused)).toBe('Error: disk full');
  });

  it("keeps a record that cannot be made or written to its own call: the others' outcomes neither wait for it nor fail", async () => {
    let releaseStuck: () => void = () => undefined;
    const stuck = new Promise<void>((resolve) => (releaseStuck = resolve));
    const context = createContext({
      // The write of `stuck:*` records hangs until released; every other write is done at once.
      recorder: (record) => (record.ns.startsWith('stuck:') ? stuck : undefined),
    });
    const batcher = new CallBatcher({ context });
    let siblingSawAbort: boolean | undefined;
    const tool = (name: string, details: unknown) =>
      newTool({
        name,
        description: name,
        execute: async (_call, ctx) => {
          await flush();
          siblingSawAbort ??= name === 'plain' ? ctx.signal.aborted : undefined;
          return { output: name, details };
        },
      });
    const bad = batcher.run({
      tool: tool('bad', { recordNS: () => '', v: 1 }),
      call: { id: 'b1', args: '{}' },
    });
    const slow = batcher.run({
      tool: tool('slow', recordable('stuck:x', { v: 1 })),
      call: { id: 's1', args: '{}' },
    });
    const plain = batcher.run({ tool: tool('plain', undefined), call: { id: 'p1', args: '{}' } });
    expect(outputOf(await bad)).toBe('Error: agenttool: record Object: empty namespace');
    expect(outputOf(await plain)).toBe('plain');
    expect(siblingSawAbort).toBe(false);
    // The stuck write holds back its own call only.
    let slowSettled = false;
    void slow.then(() => (slowSettled = true));
    await flush();
    expect(slowSettled).toBe(false);
    releaseStuck();
    expect(outputOf(await slow)).toBe('slow');
  });

  it('runs a step of 20,000 calls handed over in reverse in the announced order', async () => {
    const step = {};
    const n = 20_000;
    const batcher = new CallBatcher({
      run: (jobs) => ({
        [Symbol.asyncIterator]: async function* () {
          for (let index = 0; index < jobs.length; index++) {
            yield { index, final: true, result: { output: jobs[index]!.call.id } };
          }
        },
      }),
    });
    const tool = newTool({ name: 't', description: 't', execute: () => text('x') });
    for (let i = 0; i < n; i++) batcher.announce(step, `c${i}`);
    // Handed over in reverse: the batch still runs in the announced order.
    const outcomes = [];
    for (let i = n - 1; i >= 0; i--)
      outcomes.push(batcher.run({ tool, call: { id: `c${i}`, args: '{}' } }, { step }));
    const outputs = (await Promise.all(outcomes)).map(outputOf);
    expect(outputs[0]).toBe(`c${n - 1}`);
    expect(outputs[n - 1]).toBe('c0');
  });

  it('fails the calls of a batch whose runner throws, naming the call and the cause', async () => {
    const failing: RunBatch = () => ({
      [Symbol.asyncIterator]: (): AsyncIterator<ExecutorEvent> => ({
        next: () => Promise.reject(new Error('runner broke')),
      }),
    });
    const batcher = new CallBatcher({ run: failing });
    const outcome = await batcher.run(job(undefined, 'x'));
    expect(outputOf(outcome)).toBe(
      'Error: agenttool: call "x": its batch ended without it: runner broke',
    );
  });
});
