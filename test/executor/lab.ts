import {
  type Call,
  type Job,
  type Result,
  type Tool,
  type ToolContext,
  type ToolInit,
  newTool,
  text,
} from 'agenttool';

/** A promise and the functions that settle it. */
export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * Lets every pending promise callback and I/O turn run, so a test can check that
 * something did NOT happen. It waits on no clock.
 */
export async function flush(turns = 5): Promise<void> {
  for (let k = 0; k < turns; k++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** One job. */
export function job(tool: Tool | undefined, id: string, extra: Partial<Call> = {}): Job {
  return { tool, call: { id, args: '{}', ...extra } };
}

/**
 * Tools whose calls the test finishes by hand: each call logs `start <id>`, waits for
 * the test to `finish(id)` or `fail(id)`, and logs `end <id>`. Counts tools running
 * at once.
 */
export class Lab {
  readonly log: string[] = [];
  running = 0;
  peak = 0;
  readonly #gates = new Map<string, Deferred<Result>>();
  readonly #starts = new Map<string, Deferred<ToolContext>>();

  #gate(id: string): Deferred<Result> {
    let gate = this.#gates.get(id);
    if (gate === undefined) this.#gates.set(id, (gate = deferred<Result>()));
    return gate;
  }

  #start(id: string): Deferred<ToolContext> {
    let start = this.#starts.get(id);
    if (start === undefined) this.#starts.set(id, (start = deferred<ToolContext>()));
    return start;
  }

  /** Resolves with the call's context once its tool has started. */
  started(id: string): Promise<ToolContext> {
    return this.#start(id).promise;
  }

  finish(id: string, output = `done ${id}`): void {
    this.#gate(id).resolve(text(output));
  }

  fail(id: string, error: unknown): void {
    this.#gate(id).reject(error);
  }

  /** Whether the call's tool has started. */
  hasStarted(id: string): boolean {
    return this.log.includes(`start ${id}`);
  }

  tool(name: string, extra: Omit<Partial<ToolInit>, 'name' | 'execute'> = {}): Tool {
    return newTool({
      ...extra,
      name,
      execute: async (call, ctx) => {
        this.log.push(`start ${call.id}`);
        this.running++;
        this.peak = Math.max(this.peak, this.running);
        this.#start(call.id).resolve(ctx);
        try {
          return await this.#gate(call.id).promise;
        } finally {
          this.running--;
          this.log.push(`end ${call.id}`);
        }
      },
    });
  }
}
