/** The budget of bytes reads hold at once: who waits, in what order, and who gives up. */
import { ReadBudget } from '../../src/workspace/read-budget';

/** Settles pending promise reactions (the budget wakes waiters through them). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ReadBudget', () => {
  it('lets callers in while their bytes fit, then in order of arrival', async () => {
    const budget = new ReadBudget(10);
    const order: string[] = [];
    const giveA = await budget.take(6);
    const giveB = await budget.take(4);
    expect(budget.used).toBe(10);
    const c = budget.take(5).then((give) => (order.push('c'), give));
    // d would fit beside a, but it came after c: it waits behind it.
    const d = budget.take(1).then((give) => (order.push('d'), give));
    await settle();
    expect(order).toEqual([]);
    expect(budget.waiting).toBe(2);
    giveB();
    await settle();
    expect(order).toEqual([]); // c needs 5, and 4 are free
    giveA();
    await settle();
    expect(order).toEqual(['c', 'd']);
    expect(budget.used).toBe(6);
    (await c)();
    (await d)();
    expect(budget.used).toBe(0);
  });

  it('gives back part of what was taken, and never more than was taken', async () => {
    const budget = new ReadBudget(10);
    const give = await budget.take(8);
    const waiting = budget.take(7);
    give(5); // the file turned out to have 3 bytes
    expect(budget.used).toBe(10); // the 7 waiting were let in
    give(-4); // a negative count gives nothing
    give(100); // more than is held gives what is held
    expect(budget.used).toBe(7);
    give();
    expect(budget.used).toBe(7);
    (await waiting)();
    expect(budget.used).toBe(0);
  });

  it('lets one caller larger than the whole budget in alone', async () => {
    const budget = new ReadBudget(10);
    const giveSmall = await budget.take(1);
    let large = false;
    const waiting = budget.take(50).then((give) => ((large = true), give));
    await settle();
    expect(large).toBe(false);
    giveSmall();
    await settle();
    expect(large).toBe(true);
    expect(budget.used).toBe(50);
    (await waiting)();
    expect(budget.used).toBe(0);
  });

  it('a caller whose signal aborts leaves the line, and the next one may go in its place', async () => {
    const budget = new ReadBudget(10);
    const give = await budget.take(8);
    const stop = new AbortController();
    const first = budget.take(5, stop.signal);
    let second = false;
    const next = budget.take(2).then((giveNext) => ((second = true), giveNext));
    await settle();
    expect(second).toBe(false);
    stop.abort(new Error('cancelled'));
    await expect(first).rejects.toThrow('cancelled');
    await settle();
    expect(second).toBe(true);
    expect(budget.waiting).toBe(0);
    give();
    (await next)();
    expect(budget.used).toBe(0);
  });

  it('an aborted signal is refused before anything is taken', async () => {
    const budget = new ReadBudget(10);
    await expect(budget.take(1, AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
    expect(budget.used).toBe(0);
  });
});
