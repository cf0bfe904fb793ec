/**
 * State handles (MCP 2026-07-28, SEP-2567) and turns, through `ToolApp.create`: a
 * session-scoped provider declared with `handle` is reachable by a server-minted handle
 * that the tools injecting it take as an argument; calls on one session's resource queue.
 */
import 'reflect-metadata';
import { type AuthInfo, type Session, Tool } from 'agenttool';
import { Inject, Injectable, Module, ToolApp } from 'agenttool/di';
import {
  ada,
  app,
  bob,
  callSession,
  closeApps,
  closedCount,
  counterModule,
  type Gates,
  gateOpen,
  gates,
  handleOf,
  trackApp,
} from '../support/handle-counter';
import { testSession } from '../support/session';

afterEach(closeApps);

describe('a provider reached by a handle', () => {
  it('adds the handle to the schema and the description of the tools that inject it', async () => {
    const { tool } = await app();
    expect(tool.parameters).toEqual({
      type: 'object',
      properties: {
        counter_id: {
          type: 'string',
          description:
            "The counter_id a previous result gave, to use the same counter; omit it to use this session's counter, or to start a new one where there is no session.",
        },
      },
      required: [],
    });
    expect(tool.description).toBe(
      'Adds one to the counter. Clients without a session get a counter_id in the result; pass it back to keep using the same counter. A counter unused for 30 minutes is closed.',
    );
    expect(tool.handleArgument).toBe('counter_id');
  });

  it('mints a handle for a call without a session, and keeps the state under it', async () => {
    const { call } = await app();
    const first = await call({});
    const id = handleOf(first);
    expect(first.output).toBe(
      `counter #1 at 1\n[counter_id: ${id} (a new counter; pass counter_id to keep using it)]`,
    );
    const again = await call({ counter_id: id });
    expect(again.output).toBe('counter #1 at 2');
    expect(handleOf(again)).toBe(id);
    // Without it, another call of no session gets another counter.
    const other = await call({});
    expect(handleOf(other)).not.toBe(id);
    expect(JSON.stringify(other.output).startsWith('"counter #2 at 1')).toBe(true);
    expect((await call({ counter_id: id })).output).toBe('counter #1 at 3');
  });

  it('leaves a lasting session its own instance, and mints nothing there', async () => {
    const { app: created } = await app();
    const session = testSession('s1');
    const outputs: unknown[] = [];
    for (let i = 0; i < 2; i++) {
      const [outcome] = await created.results([created.job('add')], { session });
      outputs.push(outcome?.result?.output);
      expect(outcome?.result?.structured).toBeUndefined();
    }
    expect(outputs).toEqual(['counter #1 at 1', 'counter #1 at 2']);
    await session.end();
  });

  it("refuses another caller's handle, an unknown one and a malformed one, saying to call without it", async () => {
    const { call } = await app();
    const id = handleOf(await call({}, { auth: ada }));
    const refused = `counter_id "${id}" names no open counter: it was closed (after 30 minutes unused, or when the server restarted) or was never given to this caller; call again without counter_id to start a new counter`;
    await expect(call({ counter_id: id }, { auth: bob })).rejects.toThrow(refused);
    await expect(call({ counter_id: id })).rejects.toThrow(refused);
    expect((await call({ counter_id: id }, { auth: ada })).output).toBe('counter #1 at 2');
    await expect(call({ counter_id: 'counter_nope' })).rejects.toThrow(
      'counter_id "counter_nope" names no open counter',
    );
    await expect(call({ counter_id: 7 })).rejects.toThrow(
      'invalid arguments: counter_id: want the string a result gave, got 7',
    );
  });

  it('ends a handle unused for its idle time: its instance is closed, the handle refused', async () => {
    const { call, state } = await app({
      argument: 'counter_id',
      holds: 'counter',
      idleTimeoutMs: 20,
    });
    const closed = new Promise<void>((resolve) => (state.closedOne = resolve));
    const id = handleOf(await call({}));
    await closed;
    expect(state.closed).toEqual([1]);
    await expect(call({ counter_id: id })).rejects.toThrow(
      `counter_id "${id}" names no open counter: it was closed after 20 ms unused; call again without counter_id to start a new counter`,
    );
  });

  it('ends at once a handle minted by a call that failed or was cancelled, taking back none for it', async () => {
    const { call, state } = await app({
      argument: 'counter_id',
      holds: 'counter',
      maxPerCaller: 1,
    });
    const kept = handleOf(await call({}, { auth: ada }));
    await expect(call({}, { auth: ada, id: 'fail-1' })).rejects.toThrow('fail-1 failed');
    // Its id reached no one: closed at once; the caller's one handle stays.
    await closedCount(state, 1);
    expect(state.closed).toEqual([2]);
    expect((await call({ counter_id: kept }, { auth: ada })).output).toBe('counter #1 at 2');
    const cancel = new AbortController();
    const cancelled = call({}, { auth: ada, id: 'slow-1', signal: cancel.signal });
    await gateOpen(state, 'slow-1');
    cancel.abort();
    state.gates.get('slow-1')?.();
    await cancelled;
    await closedCount(state, 2);
    expect(state.closed).toEqual([2, 3]);
    expect((await call({ counter_id: kept }, { auth: ada })).output).toBe('counter #1 at 3');
    // A handle given in an answer is kept, and takes the place of the one unused longest.
    const next = handleOf(await call({}, { auth: ada }));
    await closedCount(state, 3);
    expect(state.closed).toEqual([2, 3, 1]);
    expect((await call({ counter_id: next }, { auth: ada })).output).toBe('counter #4 at 2');
    await expect(call({ counter_id: kept }, { auth: ada })).rejects.toThrow(
      'it was closed when this caller started one more counter past its most (1)',
    );
  });

  it("ends the caller's handle unused longest past its most, never another caller's", async () => {
    const { call, state } = await app({
      argument: 'counter_id',
      holds: 'counter',
      maxPerCaller: 2,
    });
    const first = handleOf(await call({}, { auth: ada }));
    const second = handleOf(await call({}, { auth: ada }));
    const bobs = handleOf(await call({}, { auth: bob }));
    const closed = new Promise<void>((resolve) => (state.closedOne = resolve));
    handleOf(await call({}, { auth: ada }));
    await closed;
    expect(state.closed).toEqual([1]);
    await expect(call({ counter_id: first }, { auth: ada })).rejects.toThrow(
      `counter_id "${first}" names no open counter: it was closed when this caller started one more counter past its most (2): the one unused longest is closed then; call again without counter_id to start a new counter`,
    );
    // Another caller is told nothing of it.
    await expect(call({ counter_id: first }, { auth: bob })).rejects.toThrow(
      'names no open counter: it was closed (after 30 minutes unused, or when the server restarted) or was never given to this caller',
    );
    expect((await call({ counter_id: second }, { auth: ada })).output).toBe('counter #2 at 2');
    expect((await call({ counter_id: bobs }, { auth: bob })).output).toBe('counter #3 at 2');
  });

  it('counts anonymous callers apart by who the transport says calls (an HTTP client address)', async () => {
    const { call, state } = await app({
      argument: 'counter_id',
      holds: 'counter',
      maxPerCaller: 2,
    });
    const from = (callerKey: string): Session => ({ ...callSession(), callerKey });
    const others = handleOf(await call({}, { session: from('address:10.0.0.2') }));
    const first = handleOf(await call({}, { session: from('address:10.0.0.1') }));
    handleOf(await call({}, { session: from('address:10.0.0.1') }));
    const closed = new Promise<void>((resolve) => (state.closedOne = resolve));
    handleOf(await call({}, { session: from('address:10.0.0.1') }));
    await closed;
    // The first client's own oldest ended; the other's, minted before it, did not.
    expect(state.closed).toEqual([2]);
    await expect(call({ counter_id: first })).rejects.toThrow(
      `counter_id "${first}" names no open counter: it was closed when this caller started one more counter past its most (2): the one unused longest is closed then (without authorization, the clients at one address count as one caller); call again without counter_id to start a new counter`,
    );
    // A handle is still good for whoever holds it: no subject to check it against.
    expect((await call({ counter_id: others }, { session: from('address:10.0.0.9') })).output).toBe(
      'counter #1 at 2',
    );
  });

  it("at the kind's most, all callers together, takes back the idle handle unused longest of a caller holding two more", async () => {
    const { call, state } = await app({
      argument: 'counter_id',
      holds: 'counter',
      maxPerCaller: 3,
      maxOpen: 4,
    });
    const adas = [
      handleOf(await call({}, { auth: ada })),
      handleOf(await call({}, { auth: ada })),
      handleOf(await call({}, { auth: ada })),
    ];
    const bobs = handleOf(await call({}, { auth: bob }));
    const carol: AuthInfo = { subject: 'carol', scopes: [], clientId: 'c' };
    // Ada's second is used again: her first is the one unused longest.
    await call({ counter_id: adas[1] }, { auth: ada });
    const closed = new Promise<void>((resolve) => (state.closedOne = resolve));
    const carols = handleOf(await call({}, { auth: carol }));
    await closed;
    expect(state.closed).toEqual([1]);
    await expect(call({ counter_id: adas[0] }, { auth: ada })).rejects.toThrow(
      'names no open counter: it was closed to make room for another caller when the server held its most counters (4, all callers together): the caller holding the most gives up its counter unused longest',
    );
    expect((await call({ counter_id: adas[1] }, { auth: ada })).output).toBe('counter #2 at 3');
    expect((await call({ counter_id: bobs }, { auth: bob })).output).toBe('counter #4 at 2');
    expect((await call({ counter_id: carols }, { auth: carol })).output).toBe('counter #5 at 2');
    // Ada holds 2, the others 1 each: a new caller takes back ada's unused longest.
    const dave: AuthInfo = { subject: 'dave', scopes: [], clientId: 'c' };
    const closedAgain = new Promise<void>((resolve) => (state.closedOne = resolve));
    handleOf(await call({}, { auth: dave }));
    await closedAgain;
    expect(state.closed).toEqual([1, 3]);
    // 1, 1, 1, 1: a fifth caller is refused, and no one's handle ends for it.
    const erin: AuthInfo = { subject: 'erin', scopes: [], clientId: 'c' };
    await expect(call({}, { auth: erin })).rejects.toThrow(
      'the server holds its most counters (4, all callers together), and none could be taken back',
    );
    expect(state.closed).toEqual([1, 3]);
  });

  it("refuses a new handle when the kind's handles, all callers together, are at their most, ending no one else's", async () => {
    const { call, state } = await app({
      argument: 'counter_id',
      holds: 'counter',
      maxPerCaller: 2,
      maxOpen: 2,
    });
    const adas = handleOf(await call({}, { auth: ada }));
    const bobs = handleOf(await call({}, { auth: bob }));
    const carol: AuthInfo = { subject: 'carol', scopes: [], clientId: 'c' };
    await expect(call({}, { auth: carol })).rejects.toThrow(
      'the server holds its most counters (2, all callers together), and none could be taken back (a caller holding at least two more than this one gives up its idle one unused longest, else this caller its own); pass the counter_id of one you hold, or try again once one has closed (after 30 minutes unused)',
    );
    expect(state.closed).toEqual([]);
    expect((await call({ counter_id: adas }, { auth: ada })).output).toBe('counter #1 at 2');
    expect((await call({ counter_id: bobs }, { auth: bob })).output).toBe('counter #2 at 2');
  });

  it("at the kind's most, takes back the asking caller's own idle handle unused longest when no other caller holds two more", async () => {
    // Each caller within its own most (4), the kind full (4): a host that never passes
    // the handle back asks for a new one each call, and must not be refused for it.
    const { call, state } = await app({
      argument: 'counter_id',
      holds: 'counter',
      maxPerCaller: 4,
      maxOpen: 4,
    });
    const adas = [handleOf(await call({}, { auth: ada })), handleOf(await call({}, { auth: ada }))];
    const bobs = [handleOf(await call({}, { auth: bob })), handleOf(await call({}, { auth: bob }))];
    // Ada's first is used again: her second is the one unused longest.
    await call({ counter_id: adas[0] }, { auth: ada });
    const closed = new Promise<void>((resolve) => (state.closedOne = resolve));
    const third = handleOf(await call({}, { auth: ada }));
    await closed;
    expect(state.closed).toEqual([2]);
    await expect(call({ counter_id: adas[1] }, { auth: ada })).rejects.toThrow(
      'names no open counter: it was closed when this caller started one more counter while the server held its most counters (4, all callers together) and no other caller held two more: the one unused longest is closed then',
    );
    expect((await call({ counter_id: adas[0] }, { auth: ada })).output).toBe('counter #1 at 3');
    expect((await call({ counter_id: third }, { auth: ada })).output).toBe('counter #5 at 2');
    expect((await call({ counter_id: bobs[0] }, { auth: bob })).output).toBe('counter #3 at 2');
    expect((await call({ counter_id: bobs[1] }, { auth: bob })).output).toBe('counter #4 at 2');
  });

  it("counts lasting sessions' own instances among the kind's open ones, until each session ends", async () => {
    const { call, state } = await app({ argument: 'counter_id', holds: 'counter', maxOpen: 2 });
    const adas = testSession('ada');
    const carols = testSession('carol');
    expect((await call({}, { session: adas, auth: ada })).output).toBe('counter #1 at 1');
    // The same session again takes no more room.
    expect((await call({}, { session: adas, auth: ada })).output).toBe('counter #1 at 2');
    const bobs = handleOf(await call({}, { auth: bob }));
    const carol: AuthInfo = { subject: 'carol', scopes: [], clientId: 'c' };
    await expect(call({}, { session: carols, auth: carol })).rejects.toThrow(
      "the server holds its most counters (2, all callers together), and none could be taken back (a caller holding at least two more than this one gives up its idle one unused longest, else this caller its own); try again once one has closed (a session's counter closes with its session; one held by counter_id after 30 minutes unused)",
    );
    await expect(call({}, { auth: carol })).rejects.toThrow(
      'the server holds its most counters (2',
    );
    expect(state.closed).toEqual([]);
    await adas.end();
    expect(state.closed).toEqual([1]);
    expect((await call({}, { session: carols, auth: carol })).output).toBe('counter #3 at 1');
    expect((await call({ counter_id: bobs }, { auth: bob })).output).toBe('counter #2 at 2');
    await carols.end();
  });

  it("counts a lasting session's own instances in its caller's maxPerCaller, taking back only handles", async () => {
    const { call, state } = await app({
      argument: 'counter_id',
      holds: 'counter',
      maxPerCaller: 2,
    });
    const adas = [handleOf(await call({}, { auth: ada })), handleOf(await call({}, { auth: ada }))];
    const first = testSession('first');
    const second = testSession('second');
    const third = testSession('third');
    // At her most: her session's first call ends her handle unused longest.
    const closed = new Promise<void>((resolve) => (state.closedOne = resolve));
    expect((await call({}, { session: first, auth: ada })).output).toBe('counter #3 at 1');
    await closed;
    expect(state.closed).toEqual([1]);
    expect((await call({}, { session: second, auth: ada })).output).toBe('counter #4 at 1');
    expect(state.closed).toEqual([1, 2]);
    await expect(call({ counter_id: adas[1] }, { auth: ada })).rejects.toThrow('past its most (2)');
    // Two sessions hold her most: neither is taken back, a third session and a handle are refused.
    await expect(call({}, { session: third, auth: ada })).rejects.toThrow(
      'this caller already holds 2 counters, its most (2): all of them for its sessions. A session keeps its counter until the session ends (its client closes it, or it goes unused), and there is room again then',
    );
    await expect(call({}, { auth: ada })).rejects.toThrow('already holds 2 counters, its most (2)');
    expect(handleOf(await call({}, { auth: bob }))).not.toBe('');
    await first.end();
    expect((await call({}, { session: third, auth: ada })).output).toBe('counter #6 at 1');
    await second.end();
    await third.end();
  });

  it("says, at a caller's most with a busy handle beside its sessions, that the handle's call ending makes room", async () => {
    const { call, state } = await app({
      argument: 'counter_id',
      holds: 'counter',
      maxPerCaller: 2,
    });
    const first = testSession('first');
    const second = testSession('second');
    expect((await call({}, { session: first, auth: ada })).output).toBe('counter #1 at 1');
    const busy = handleOf(await call({}, { auth: ada }));
    const running = call({ counter_id: busy }, { auth: ada, id: 'slow-1' });
    await gateOpen(state, 'slow-1');
    await expect(call({}, { session: second, auth: ada })).rejects.toThrow(
      'this caller already holds 2 counters, its most (2): 1 for its sessions and 1 by counter_id, all busy. A session keeps its counter until the session ends (its client closes it, or it goes unused), and there is room again then; one held by counter_id can be taken back once its call has ended',
    );
    state.gates.get('slow-1')?.();
    await running;
    expect((await call({}, { session: second, auth: ada })).output).toBe('counter #3 at 1');
    await first.end();
    await second.end();
  });

  it("takes back an idle handle of a caller holding two more for a lasting session's first call", async () => {
    const { call, state } = await app({
      argument: 'counter_id',
      holds: 'counter',
      maxPerCaller: 3,
      maxOpen: 3,
    });
    const adas = [
      handleOf(await call({}, { auth: ada })),
      handleOf(await call({}, { auth: ada })),
      handleOf(await call({}, { auth: ada })),
    ];
    const session = testSession('bobs');
    const closed = new Promise<void>((resolve) => (state.closedOne = resolve));
    expect((await call({}, { session, auth: bob })).output).toBe('counter #4 at 1');
    await closed;
    expect(state.closed).toEqual([1]);
    await expect(call({ counter_id: adas[0] }, { auth: ada })).rejects.toThrow(
      'it was closed to make room for another caller',
    );
    await session.end();
  });

  it('refuses handle limits that are not positive integers when the app is created', async () => {
    await expect(
      ToolApp.create(
        counterModule({ argument: 'counter_id', holds: 'counter', maxOpen: 0 }, gates()),
      ),
    ).rejects.toThrow('handle.maxOpen must be a positive integer, got 0');
    await expect(
      ToolApp.create(
        counterModule({ argument: 'counter_id', holds: 'counter', maxPerCaller: 1.5 }, gates()),
      ),
    ).rejects.toThrow('handle.maxPerCaller must be a positive integer, got 1.5');
  });

  it('closes every handle with the app', async () => {
    const { app: created, call, state } = await app();
    handleOf(await call({}));
    handleOf(await call({}));
    await created.close();
    expect(state.closed.sort()).toEqual([1, 2]);
  });

  it('is refused at creation without session scope, with a bad argument name, or twice in one tool', async () => {
    @Injectable()
    class Thing {}
    @Module({
      providers: [
        { provide: Thing, useClass: Thing, handle: { argument: 'thing_id', holds: 'thing' } },
      ],
    })
    class AppScoped {}
    await expect(ToolApp.create(AppScoped)).rejects.toThrow(
      "handle needs scope: 'session' (a handle reaches a session's instances), got no scope",
    );
    @Module({
      providers: [
        {
          provide: Thing,
          useClass: Thing,
          scope: 'session',
          handle: { argument: 'Thing-ID', holds: 'thing' },
        },
      ],
    })
    class BadName {}
    await expect(ToolApp.create(BadName)).rejects.toThrow(
      'handle.argument must be a lower-case argument name such as "shell_id", got "Thing-ID"',
    );
    @Injectable()
    class Other {}
    @Tool({ name: 'both', description: 'Uses two' })
    class Both {
      constructor(
        @Inject(Thing) readonly thing: Thing,
        @Inject(Other) readonly other: Other,
      ) {}
      execute(): string {
        return 'x';
      }
    }
    @Module({
      tools: [Both],
      providers: [
        {
          provide: Thing,
          useClass: Thing,
          scope: 'session',
          handle: { argument: 'thing_id', holds: 'thing' },
        },
        {
          provide: Other,
          useClass: Other,
          scope: 'session',
          handle: { argument: 'other_id', holds: 'other' },
        },
      ],
    })
    class TwoHandles {}
    await expect(ToolApp.create(TwoHandles)).rejects.toThrow(
      "injects providers reached by two handles (thing_id, other_id); a tool's calls run under one handle, so split the tool",
    );
  });
});

describe('calls on one resource of a session', () => {
  it('queue and run one at a time in the order they came, never refused', async () => {
    const { call, state } = await app();
    const id = handleOf(await call({}));
    state.ran.length = 0;
    const first = call({ counter_id: id }, { id: 'slow-1' });
    const second = call({ counter_id: id }, { id: 'fast-2' });
    const third = call({ counter_id: id }, { id: 'fast-3' });
    // The first holds the counter; the others wait for it.
    await gateOpen(state, 'slow-1');
    expect(state.ran).toEqual(['start slow-1']);
    state.gates.get('slow-1')?.();
    expect((await first).output).toBe('counter #1 at 2');
    expect((await second).output).toBe('counter #1 at 3');
    expect((await third).output).toBe('counter #1 at 4');
    expect(state.ran).toEqual([
      'start slow-1',
      'end slow-1',
      'start fast-2',
      'end fast-2',
      'start fast-3',
      'end fast-3',
    ]);
  });

  it('run at once on different handles', async () => {
    const { call, state } = await app();
    const one = handleOf(await call({}));
    const two = handleOf(await call({}));
    state.ran.length = 0;
    const slow = call({ counter_id: one }, { id: 'slow-1' });
    const other = await call({ counter_id: two }, { id: 'fast-2' });
    expect(other.output).toBe('counter #2 at 2');
    state.gates.get('slow-1')?.();
    expect((await slow).output).toBe('counter #1 at 2');
  });

  it('leave the queue when cancelled, and the next one runs after the running one', async () => {
    const { call, state } = await app();
    const id = handleOf(await call({}));
    const running = call({ counter_id: id }, { id: 'slow-1' });
    const cancel = new AbortController();
    const cancelled = call({ counter_id: id }, { id: 'fast-2', signal: cancel.signal });
    const next = call({ counter_id: id }, { id: 'fast-3' });
    await gateOpen(state, 'slow-1');
    cancel.abort();
    await expect(cancelled).rejects.toThrow('the call was cancelled while it waited for "counter"');
    state.gates.get('slow-1')?.();
    expect((await running).output).toBe('counter #1 at 2');
    expect((await next).output).toBe('counter #1 at 3');
    expect(state.ran.filter((line) => line.includes('fast-2'))).toEqual([]);
  });

  it('refuse a call past the most that may wait, saying so', async () => {
    const state: Gates = { gates: new Map(), ran: [], closed: [] };
    const created = await ToolApp.create(
      counterModule({ argument: 'counter_id', holds: 'counter' }, state),
      { maxQueuedCalls: 1 },
    );
    trackApp(created);
    const session = testSession('one');
    const job = (id: string) => created.results([created.job('add', {}, id)], { session });
    const running = job('slow-1');
    const waiting = job('fast-2');
    const refused = job('fast-3');
    expect((await refused)[0]?.error).toMatchObject({
      code: 'RATE_LIMITED',
      message:
        '1 call is already waiting for "counter", the most that may; wait for them to finish, then call again',
    });
    await gateOpen(state, 'slow-1');
    state.gates.get('slow-1')?.();
    expect((await running)[0]?.result?.output).toBe('counter #1 at 1');
    expect((await waiting)[0]?.result?.output).toBe('counter #1 at 2');
    await session.end();
  });
});
