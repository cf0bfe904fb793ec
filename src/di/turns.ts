import {
  AgentToolError,
  type Call,
  CancelledError,
  type Result,
  type Tool,
  type ToolContext,
  goQuote,
  wrap,
} from '../core';

/** How many calls may wait for one session's resource when the app's options say nothing. */
export const DEFAULT_MAX_QUEUED_CALLS = 16;

interface Waiter {
  readonly go: () => void;
}

interface Line {
  busy: boolean;
  readonly waiting: Waiter[];
}

/**
 * The turns of one session's (or handle's) resources: calls naming the same resource run
 * one at a time, in the order they came, as the executor orders a batch's calls on one
 * resource; served calls arrive one by one, so they queue here instead of being refused.
 */
export class Turns {
  readonly #lines = new Map<string, Line>();

  /**
   * Waits for `resource`'s turn; resolves with the function that ends it. Fails at once
   * when `max` calls wait already, and leaves the line when `signal` aborts first.
   */
  take(resource: string, signal: AbortSignal, max: number): Promise<() => void> {
    let line = this.#lines.get(resource);
    if (line === undefined) {
      line = { busy: false, waiting: [] };
      this.#lines.set(resource, line);
    }
    const held = line;
    if (!held.busy) {
      held.busy = true;
      return Promise.resolve(this.#release(resource, held));
    }
    if (held.waiting.length >= max) {
      return Promise.reject(
        new AgentToolError(
          'RATE_LIMITED',
          `${max === 1 ? '1 call is' : `${max} calls are`} already waiting for ${goQuote(resource)}, the most that may; wait for them to finish, then call again`,
        ),
      );
    }
    if (signal.aborted) return Promise.reject(cancelled(resource, signal));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        go: () => {
          signal.removeEventListener('abort', leave);
          resolve(this.#release(resource, held));
        },
      };
      const leave = (): void => {
        const at = held.waiting.indexOf(waiter);
        if (at >= 0) held.waiting.splice(at, 1);
        reject(cancelled(resource, signal));
      };
      signal.addEventListener('abort', leave, { once: true });
      held.waiting.push(waiter);
    });
  }

  #release(resource: string, line: Line): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = line.waiting.shift();
      if (next !== undefined) next.go();
      else {
        line.busy = false;
        this.#lines.delete(resource);
      }
    };
  }
}

/**
 * A call cancelled before it reached its tool: a cancellation (`CANCELLED`, the signal's
 * reason on `cause`) as the executor completes a job cancelled before its turn.
 */
function cancelled(resource: string, signal: AbortSignal): CancelledError {
  return new CancelledError(`the call was cancelled while it waited for ${goQuote(resource)}`, {
    cause: signal.reason,
  });
}

/**
 * The tool `inner` with its calls taking turns on `resource` in the turns `turnsOf` the
 * call gives (its session's or handle's).
 */
export function queuedTool(
  inner: Tool,
  resource: string,
  turnsOf: (ctx: ToolContext) => Turns,
  maxQueued: number,
): Tool {
  return wrap(inner, async (call: Call, ctx: ToolContext): Promise<Result> => {
    const release = await turnsOf(ctx).take(resource, ctx.signal, maxQueued);
    try {
      return await inner.execute(call, ctx);
    } finally {
      release();
    }
  });
}
