/**
 * A counter app for the tests of state handles: a session-scoped `Counter` reached by a
 * handle, and the `add` tool that injects it; a call labelled `slow-*` waits for its
 * gate, one labelled `fail-*` fails after counting.
 */
import 'reflect-metadata';
import {
  type AuthInfo,
  createContext,
  type Result,
  Resource,
  type Session,
  Tool,
  type ToolContext,
} from 'agenttool';
import { type HandleOptions, Inject, Injectable, Module, ToolApp } from 'agenttool/di';

const apps: ToolApp[] = [];

/** Closes `created` with the others at `closeApps`. */
export function trackApp(created: ToolApp): void {
  apps.push(created);
}

/** Closes the apps made since the last call (for `afterEach`). */
export async function closeApps(): Promise<void> {
  await Promise.all(apps.splice(0).map((app) => app.close()));
}

/** A session of one call, as a 2026-07-28 request without a session is served. */
export function callSession(): Session {
  return { id: '', endsWithCall: true, onClose: () => undefined };
}

export interface Gates {
  /** Opened by the test: the `slow` tool waits for its gate. */
  readonly gates: Map<string, () => void>;
  /** What the tools ran, in order. */
  readonly ran: string[];
  /** The counters closed, by number. */
  readonly closed: number[];
  closedOne?: () => void;
}

export function counterModule(handle: HandleOptions, state: Gates): new () => unknown {
  let made = 0;
  @Injectable()
  class Counter {
    readonly n = ++made;
    count = 0;
    close(): void {
      state.closed.push(this.n);
      state.closedOne?.();
    }
  }

  class AddArgs {}
  @Tool({ name: 'add', description: 'Adds one to the counter' })
  @Resource('counter')
  class Add {
    constructor(@Inject(Counter) private readonly counter: Counter) {}
    async execute(_args: AddArgs, ctx: ToolContext): Promise<string> {
      const label = ctx.call.id;
      state.ran.push(`start ${label}`);
      if (label.startsWith('slow')) {
        await new Promise<void>((resolve) => state.gates.set(label, resolve));
      }
      this.counter.count += 1;
      if (label.startsWith('fail')) throw new Error(`${label} failed`);
      state.ran.push(`end ${label}`);
      return `counter #${this.counter.n} at ${this.counter.count}`;
    }
  }

  @Module({
    tools: [Add],
    providers: [{ provide: Counter, useClass: Counter, scope: 'session', handle }],
  })
  class CounterModule {}
  return CounterModule;
}

/** Fresh bookkeeping for one app's tools. */
export function gates(): Gates {
  return { gates: new Map(), ran: [], closed: [] };
}

export async function app(handle: HandleOptions = { argument: 'counter_id', holds: 'counter' }) {
  const state = gates();
  const created = await ToolApp.create(counterModule(handle, state));
  apps.push(created);
  const tool = created.tools.lookup('add');
  if (tool === undefined) throw new Error('no add tool');
  const call = (
    args: Record<string, unknown>,
    options: { session?: Session; auth?: AuthInfo; id?: string; signal?: AbortSignal } = {},
  ): Promise<Result> => {
    const call = { id: options.id ?? 'call', args: JSON.stringify(args) };
    return Promise.resolve(
      tool.execute(
        call,
        createContext({
          call,
          session: options.session ?? callSession(),
          auth: options.auth,
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        }),
      ),
    );
  };
  return { app: created, tool, call, state };
}

export const ada: AuthInfo = { subject: 'ada', scopes: [], clientId: 'c' };
export const bob: AuthInfo = { subject: 'bob', scopes: [], clientId: 'c' };

/** Waits, a bounded number of turns of the event loop, for the `slow` call `label` to hold its gate. */
export async function gateOpen(state: Gates, label: string): Promise<void> {
  for (let turn = 0; turn < 10_000 && !state.gates.has(label); turn++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (!state.gates.has(label)) throw new Error(`${label} never started`);
}

/** Waits, a bounded number of turns of the event loop, for `count` counters to be closed. */
export async function closedCount(state: Gates, count: number): Promise<void> {
  for (let turn = 0; turn < 10_000 && state.closed.length < count; turn++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

export function handleOf(result: Result): string {
  const id = result.structured?.['counter_id'];
  if (typeof id !== 'string') throw new Error(`no counter_id in ${JSON.stringify(result)}`);
  return id;
}
