import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type Elicitation,
  errorMessage,
  type Output,
  type RecordFunc,
  type Result,
  type Tool,
  type ToolRecord,
  runWithContext,
  wrap,
} from 'agenttool';

/** What the tool's own `execute` did on the server's side, which a cancelled call never hears. */
export interface ToolSettled {
  /**
   * True when the call's signal had been aborted by the time the tool's `execute`
   * settled: the tool ran into the interrupt (it returned or threw after it).
   */
  readonly sawAbort: boolean;
  /** What the tool returned, when it returned. */
  readonly output: Output | undefined;
  /** The message of what the tool threw, when it threw. */
  readonly error: string | undefined;
}

/**
 * The server's side of one test call: whether its tool started, how it settled, and the
 * records it wrote. The test client runs each call inside its probe; the served tools
 * and the recorder find it through async context, since the server runs in the same
 * process and in the call's own async chain (both eras, in memory).
 */
export class CallProbe {
  readonly records: ToolRecord[] = [];
  /** The questions the tool put to the server's elicitor, whether or not they reached the call. */
  readonly asked: Elicitation[] = [];
  readonly started: Promise<void>;
  readonly settled: Promise<ToolSettled>;
  #start!: () => void;
  #settle!: (settled: ToolSettled) => void;
  #fail!: (error: Error) => void;
  #hasStarted = false;
  #hasSettled = false;

  constructor() {
    let failStarted!: (error: Error) => void;
    let failSettled!: (error: Error) => void;
    this.started = new Promise<void>((resolve, reject) => {
      this.#start = resolve;
      failStarted = reject;
    });
    this.settled = new Promise<ToolSettled>((resolve, reject) => {
      this.#settle = resolve;
      failSettled = reject;
    });
    this.#fail = (error) => {
      failStarted(error);
      failSettled(error);
    };
    // A test that never waits on these must not see an unhandled rejection.
    this.started.catch(() => undefined);
    this.settled.catch(() => undefined);
  }

  get hasStarted(): boolean {
    return this.#hasStarted;
  }

  markStarted(): void {
    this.#hasStarted = true;
    this.#start();
  }

  markSettled(settled: ToolSettled): void {
    if (this.#hasSettled) return;
    this.#hasSettled = true;
    this.#settle(settled);
  }

  /** The call ended on the client's side with its tool never started: nothing will settle. */
  endWithoutTool(reason: string): void {
    if (this.#hasStarted) return;
    this.#fail(new Error(`agenttool/testing: the tool never started: ${reason}`));
  }
}

const current = new AsyncLocalStorage<CallProbe>();

/** Runs `fn` (a call through the client) with `probe` as its server side's probe. */
export function withProbe<T>(probe: CallProbe, fn: () => T): T {
  return current.run(probe, fn);
}

/**
 * A tool that reports to the probe of the call it serves: its start, the questions it
 * puts to the server, and how it settled.
 */
export function probed(tool: Tool): Tool {
  return wrap(tool, async (call, ctx): Promise<Result> => {
    const probe = current.getStore();
    if (probe === undefined) return tool.execute(call, ctx);
    probe.markStarted();
    const elicitor = ctx.elicitor;
    const counted =
      elicitor === undefined
        ? ctx
        : ctx.with({
            elicitor: (question, at) => {
              probe.asked.push(question);
              return elicitor(question, at);
            },
          });
    try {
      const result = await runWithContext(counted, () => tool.execute(call, counted));
      probe.markSettled({ sawAbort: ctx.signal.aborted, output: result.output, error: undefined });
      return result;
    } catch (thrown) {
      probe.markSettled({
        sawAbort: ctx.signal.aborted,
        output: undefined,
        error: errorMessage(thrown),
      });
      throw thrown;
    }
  });
}

/**
 * The server's recorder: keeps each record for the call that wrote it and for the
 * client's log (`all`), then hands it to the recorder the served app had, if any, whose
 * failure reaches the tool as it would have.
 */
export function probingRecorder(all: ToolRecord[], forward: RecordFunc | undefined): RecordFunc {
  return (record, ctx) => {
    const copy = { ns: record.ns, data: record.data };
    all.push(copy);
    current.getStore()?.records.push(copy);
    return forward?.(record, ctx);
  };
}
