/**
 * State handles minted by calls that run at once: each call still minting counts among
 * its caller's handles and the kind's, and needs room of its own, so that parallel calls
 * cannot hold past `maxPerCaller` or `maxOpen` between them.
 */
import 'reflect-metadata';
import { testSession } from '../support/session';
import {
  ada,
  app,
  bob,
  closeApps,
  closedCount,
  gateOpen,
  handleOf,
} from '../support/handle-counter';

afterEach(closeApps);

describe('handles minted at once', () => {
  it("hold no more than the caller's most between them: each takes back an idle handle of its own, or is refused", async () => {
    const { call, state } = await app({
      argument: 'counter_id',
      holds: 'counter',
      maxPerCaller: 2,
    });
    const first = handleOf(await call({}, { auth: ada }));
    const one = call({}, { auth: ada, id: 'slow-1' });
    const two = call({}, { auth: ada, id: 'slow-2' });
    await gateOpen(state, 'slow-1');
    await gateOpen(state, 'slow-2');
    // The first one idle is all there is to take back, and the second mint took it.
    await expect(call({}, { auth: ada, id: 'slow-3' })).rejects.toThrow(
      '3 counters are open for this caller against its most (2), 2 of them for calls that have not answered yet, and none left idle to take back for one more; wait for a call to finish and pass its counter_id',
    );
    expect(state.ran).not.toContain('start slow-3');
    // Another caller is not held back by her.
    const bobs = handleOf(await call({}, { auth: bob }));
    state.gates.get('slow-1')?.();
    state.gates.get('slow-2')?.();
    const handles = [handleOf(await one), handleOf(await two)];
    await closedCount(state, 1);
    expect(state.closed).toEqual([1]);
    await expect(call({ counter_id: first }, { auth: ada })).rejects.toThrow('past its most (2)');
    expect((await call({ counter_id: handles[0] }, { auth: ada })).output).toBe('counter #2 at 2');
    expect((await call({ counter_id: handles[1] }, { auth: ada })).output).toBe('counter #3 at 2');
    expect((await call({ counter_id: bobs }, { auth: bob })).output).toBe('counter #4 at 2');
    expect(state.closed).toEqual([1]);
  });

  it("hold no more than the kind's most, all callers together, between them", async () => {
    const { call, state } = await app({
      argument: 'counter_id',
      holds: 'counter',
      maxPerCaller: 8,
      maxOpen: 3,
    });
    const bobs = [
      handleOf(await call({}, { auth: bob })),
      handleOf(await call({}, { auth: bob })),
      handleOf(await call({}, { auth: bob })),
    ];
    // Bob holds the kind's most; a new handle of hers takes back his idle one unused longest.
    const one = call({}, { auth: ada, id: 'slow-1' });
    await gateOpen(state, 'slow-1');
    // A second of hers would need another of his, but he no longer holds two more than her.
    await expect(call({}, { auth: ada, id: 'slow-2' })).rejects.toThrow(
      'the server holds its most counters (3, all callers together), and none could be taken back',
    );
    state.gates.get('slow-1')?.();
    const hers = handleOf(await one);
    await closedCount(state, 1);
    expect(state.closed).toEqual([1]);
    await expect(call({ counter_id: bobs[0] }, { auth: bob })).rejects.toThrow(
      'it was closed to make room for another caller',
    );
    expect((await call({ counter_id: bobs[1] }, { auth: bob })).output).toBe('counter #2 at 2');
    expect((await call({ counter_id: hers }, { auth: ada })).output).toBe('counter #4 at 2');
  });

  it("hold no more than the kind's most when the minting calls answer in another order than they came", async () => {
    const { call, state } = await app({
      argument: 'counter_id',
      holds: 'counter',
      maxPerCaller: 5,
      maxOpen: 2,
    });
    const bobsIdle = handleOf(await call({}, { auth: bob }));
    const his = call({}, { auth: bob, id: 'slow-b' });
    await gateOpen(state, 'slow-b');
    // Hers counts on his idle one: he holds two (one minting) to her none.
    const hers = call({}, { auth: ada, id: 'slow-a' });
    await gateOpen(state, 'slow-a');
    // She answers first: his minting one still counts, so his idle one ends now.
    state.gates.get('slow-a')?.();
    const herHandle = handleOf(await hers);
    await closedCount(state, 1);
    expect(state.closed).toEqual([1]);
    state.gates.get('slow-b')?.();
    const hisHandle = handleOf(await his);
    await expect(call({ counter_id: bobsIdle }, { auth: bob })).rejects.toThrow(
      'it was closed to make room for another caller',
    );
    expect((await call({ counter_id: herHandle }, { auth: ada })).output).toBe('counter #3 at 2');
    expect((await call({ counter_id: hisHandle }, { auth: bob })).output).toBe('counter #2 at 2');
    expect(state.closed).toEqual([1]);
  });

  it("count against a lasting session's first call: it cannot take what mints will", async () => {
    const { call, state } = await app({
      argument: 'counter_id',
      holds: 'counter',
      maxPerCaller: 2,
    });
    handleOf(await call({}, { auth: ada }));
    const one = call({}, { auth: ada, id: 'slow-1' });
    const two = call({}, { auth: ada, id: 'slow-2' });
    await gateOpen(state, 'slow-1');
    await gateOpen(state, 'slow-2');
    const session = testSession('lasting');
    await expect(call({}, { session, auth: ada })).rejects.toThrow(
      '3 counters are open for this caller against its most (2), 2 of them for calls that have not answered yet',
    );
    expect(state.closed).toEqual([]);
    state.gates.get('slow-1')?.();
    state.gates.get('slow-2')?.();
    handleOf(await one);
    handleOf(await two);
    await closedCount(state, 1);
    expect(state.closed).toEqual([1]);
    // Both hers idle now: the session's first call takes back the one unused longest.
    expect((await call({}, { session, auth: ada })).output).toBe('counter #4 at 1');
    await closedCount(state, 2);
    expect(state.closed).toEqual([1, 2]);
    await session.end();
  });
});
