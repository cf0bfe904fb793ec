import { Executor, type ExecutorEvent, newTool, text } from 'agenttool';
import { Lab, deferred, flush, job } from './lab';

describe('Executor.chains (CONTRACT §1.9 examples)', () => {
  let ran = 0;
  const tool = (name: string, extra: { resource?: string; sequential?: boolean } = {}) =>
    newTool({
      name,
      ...extra,
      execute: () => {
        ran++;
        return text('');
      },
    });
  const shell = tool('shell', { resource: 'shell:session' });
  const restart = tool('restart', { resource: 'shell:session' });
  const other = tool('other', { resource: 'container:47' });
  const plain = tool('plain');
  const both = tool('both', { resource: 'shell:session', sequential: true });
  const executor = new Executor();

  it('[shell, plain, shell] → [[0,2],[1]]', () => {
    expect(executor.chains([job(shell, 'a'), job(plain, 'b'), job(shell, 'c')])).toEqual([
      [0, 2],
      [1],
    ]);
  });

  it('[shell, restart (same resource), other] → [[0,1],[2]]', () => {
    expect(executor.chains([job(shell, 'a'), job(restart, 'b'), job(other, 'c')])).toEqual([
      [0, 1],
      [2],
    ]);
  });

  it('[both (sequential + resource), plain] → one serial chain [[0,1]]', () => {
    expect(executor.chains([job(both, 'a'), job(plain, 'b')])).toEqual([[0, 1]]);
  });

  it('[no tool, shell] → [[0],[1]]', () => {
    expect(executor.chains([job(undefined, 'a'), job(shell, 'b')])).toEqual([[0], [1]]);
  });

  it('no jobs → no chains', () => {
    expect(executor.chains([])).toEqual([]);
  });

  it('places a chain where its first job is', () => {
    const jobs = [job(plain, 'a'), job(other, 'b'), job(shell, 'c'), job(other, 'd')];
    expect(executor.chains(jobs)).toEqual([[0], [1, 3], [2]]);
  });

  it('a serial executor makes one chain of every job', () => {
    const jobs = [job(shell, 'a'), job(plain, 'b'), job(other, 'c')];
    expect(new Executor({ sequential: true }).chains(jobs)).toEqual([[0, 1, 2]]);
    expect(new Executor({ maxParallel: 1 }).chains(jobs)).toEqual([[0, 1, 2]]);
  });

  it('runs nothing', () => {
    expect(ran).toBe(0);
  });
});

describe('resource chains', () => {
  it('hands the next job of a chain over only after the consumer took the previous final', async () => {
    const lab = new Lab();
    const shell = lab.tool('shell', { resource: 'shell:session' });
    const events = new Executor().execute([job(shell, 's1'), job(shell, 's2')]);

    const first = events.next();
    await lab.started('s1');
    expect(lab.hasStarted('s2')).toBe(false);
    lab.finish('s1');
    const handedOver = await first.then((step) => ({ step, s2: lab.hasStarted('s2') }));
    expect(handedOver.step.value).toEqual({ index: 0, final: true, result: text('done s1') });
    expect(handedOver.s2).toBe(false);

    // Go: exec.go releases the chain's turn once the consumer has received the final, so
    // s2 starts while the consumer still holds s1's final and has not asked for more.
    await flush();
    expect(lab.hasStarted('s2')).toBe(true);
    const second = events.next();
    lab.finish('s2');
    expect((await second).value).toMatchObject({ index: 1, final: true });
    expect((await events.next()).done).toBe(true);
    expect(lab.log).toEqual(['start s1', 'end s1', 'start s2', 'end s2']);
  });

  it('runs unrelated reads alongside a chain (barrier)', async () => {
    const lab = new Lab();
    const read = lab.tool('read');
    // The first shell call returns only once both reads are running: if the reads were
    // held behind the chain, this batch would never finish.
    const barrier = Promise.all([lab.started('r1'), lab.started('r2')]);
    const shell = newTool({
      name: 'shell',
      resource: 'shell:session',
      execute: async (call) => {
        lab.log.push(`start ${call.id}`);
        if (call.id === 's1') await barrier;
        lab.log.push(`end ${call.id}`);
        return text(call.id);
      },
    });
    const jobs = [job(shell, 's1'), job(read, 'r1'), job(shell, 's2'), job(read, 'r2')];
    const finals: number[] = [];
    const done = (async () => {
      for await (const event of new Executor().execute(jobs))
        if (event.final) finals.push(event.index);
    })();
    await barrier;
    await flush();
    expect(lab.log.indexOf('start s2')).toBeGreaterThan(lab.log.indexOf('end s1'));
    lab.finish('r1');
    lab.finish('r2');
    await done;
    expect(finals.indexOf(2)).toBeGreaterThan(finals.indexOf(0));
    expect(finals.sort()).toEqual([0, 1, 2, 3]);
  });

  it('keeps the model order within a chain when later jobs of it finish fast', async () => {
    const order: string[] = [];
    const gate = deferred();
    const shell = newTool({
      name: 'shell',
      resource: 'r',
      execute: async (call) => {
        order.push(call.id);
        if (call.id === 'a') await gate.promise;
        return text(call.id);
      },
    });
    const events: ExecutorEvent[] = [];
    const done = (async () => {
      const run = new Executor().execute([job(shell, 'a'), job(shell, 'b'), job(shell, 'c')]);
      for await (const event of run) events.push(event);
    })();
    await flush();
    expect(order).toEqual(['a']);
    gate.resolve();
    await done;
    expect(order).toEqual(['a', 'b', 'c']);
    expect(events.map((e) => e.index)).toEqual([0, 1, 2]);
  });

  it('orders nothing across two batches, even on one resource', async () => {
    const lab = new Lab();
    const shell = lab.tool('shell', { resource: 'shell:session' });
    const executor = new Executor();
    const one = executor.results([job(shell, 'one')]);
    const two = executor.results([job(shell, 'two')]);
    await lab.started('one');
    await lab.started('two');
    expect(lab.running).toBe(2);
    lab.finish('one');
    lab.finish('two');
    await Promise.all([one, two]);
  });
});
