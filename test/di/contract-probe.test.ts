/**
 * Where an app's batch API met the contract's batch rules (CONTRACT.md §1.9) only
 * partly: a call cancelled before it reached its tool, and arguments no JSON can hold.
 */
import 'reflect-metadata';
import { AgentToolError, CancelledError, Param, Resource, Tool, type ToolContext } from 'agenttool';
import { Injectable, Module, ToolApp } from 'agenttool/di';
import { testSession } from '../support/session';

const gates = new Map<string, () => void>();
const started: string[] = [];

@Injectable({ scope: 'session' })
class Counter {
  n = 0;
}

class AddArgs {
  @Param('How much to add') by!: number;
}

/** Built per session; its calls on `counter` take turns in the session. */
@Tool({ name: 'add', description: 'Adds to the counter', args: AddArgs })
@Resource('counter')
class Add {
  constructor(private readonly counter: Counter) {}
  async execute(args: AddArgs, ctx: ToolContext): Promise<string> {
    started.push(ctx.call.id);
    await new Promise<void>((resolve) => gates.set(ctx.call.id, resolve));
    this.counter.n += args.by;
    return `at ${this.counter.n}`;
  }
}

@Module({ tools: [Add], providers: [Counter] })
class CounterModule {}

/** Lets every pending callback and I/O turn run; waits on no clock. */
async function settle(): Promise<void> {
  for (let k = 0; k < 10; k++) await new Promise((resolve) => setImmediate(resolve));
}

let app: ToolApp;
beforeEach(async () => {
  gates.clear();
  started.length = 0;
  app = await ToolApp.create(CounterModule, { onWarning: () => undefined });
});
afterEach(() => app.close());

describe("a call cancelled while it waits for its session resource's turn", () => {
  // The contract: every call completes exactly once, and one that never reached its
  // tool completes with a cancellation error; here that error is the CANCELLED kind the
  // executor gives a job cancelled before its turn, its reason on `cause`.
  it('completes with a CancelledError, its message unchanged, its tool never run', async () => {
    const session = testSession('s');
    const first = app.results([app.job('add', { by: 1 }, 'first')], { session });
    await settle();
    const controller = new AbortController();
    const second = app.results([app.job('add', { by: 2 }, 'second')], {
      session,
      signal: controller.signal,
    });
    await settle();
    controller.abort('the user pressed Esc');
    const [outcome] = await second;
    expect(outcome?.error).toBeInstanceOf(CancelledError);
    expect((outcome?.error as CancelledError).code).toBe('CANCELLED');
    expect(outcome?.error?.message).toBe('the call was cancelled while it waited for "counter"');
    expect(outcome?.error?.cause).toBe('the user pressed Esc');
    gates.get('first')?.();
    expect((await first)[0]?.result?.output).toBe('at 1');
    expect(started).toEqual(['first']);
    await session.end();
  });
});

describe('app.job with arguments no JSON can hold', () => {
  const circular: Record<string, unknown> = {};
  circular['self'] = circular;

  // A job's arguments are JSON text (Call.args); a value JSON cannot write is the host's
  // mistake, refused where it is made rather than failing the whole batch later.
  it.each([
    ['a function', () => 1],
    ['a symbol', Symbol('s')],
    ['a bigint', 10n],
    ['a circular object', circular],
  ])('refuses %s at once, naming the tool', (_, args) => {
    let thrown: unknown;
    try {
      app.job('add', args);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AgentToolError);
    expect((thrown as AgentToolError).code).toBe('INVALID_ARGUMENTS');
    expect((thrown as Error).message).toMatch(
      /^ToolApp\.job: the arguments for "add" cannot be written as JSON/,
    );
  });

  it('still passes text on as the model wrote it, JSON or not', async () => {
    expect(app.job('add', '{', 'a').call.args).toBe('{');
    const [outcome] = await app.results([app.job('add', '{"by":"x"}', 'b')]);
    expect(outcome?.error?.message).toBe('invalid arguments: by: expected number, got "x"');
  });
});
