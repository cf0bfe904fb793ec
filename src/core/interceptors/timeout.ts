import { AgentToolError } from '../errors';
import { goQuote } from '../quote';
import { type Result } from '../result';
import { type CallHandler, type Interceptor, type ToolExecutionContext } from './chain';
import { wholeNumber } from './options';

/** What {@link TimeoutInterceptor} takes. */
export interface TimeoutOptions {
  /** How long a call may run, in milliseconds, from the moment this interceptor runs. */
  readonly ms: number;
}

/**
 * Bounds how long a call runs: past `ms`, the signal the rest of the chain and the tool
 * run with (`ctx.signal`) aborts, with the error as its reason, and the call fails at
 * once with `AgentToolError` `TIMEOUT`, `tool "<name>" timed out after <ms> ms`, as
 * NestJS's `timeout()` operator fails a handler without waiting for it. A tool that
 * ignores its signal runs on in the background; a host that waits for its tools (an
 * executor leaving a batch) does not wait for that one, and the next call on the same
 * resource (`@Resource`, a resource chain) may start while it still runs: give such a
 * tool a timeout of its own that stops its work (as the shell's commands have) rather
 * than this interceptor. When the host aborts the call
 * first, the tool sees that abort as it would without this interceptor.
 */
export class TimeoutInterceptor implements Interceptor {
  readonly #ms: number;

  constructor(options: TimeoutOptions) {
    this.#ms = wholeNumber('TimeoutInterceptor', 'ms', options?.ms, 1);
  }

  /** The rest's result, or the `TIMEOUT` error once the time is up (the rest's signal aborted). */
  async intercept(context: ToolExecutionContext, next: CallHandler): Promise<Result> {
    const outer = context.ctx.signal;
    const controller = new AbortController();
    const forward = (): void => controller.abort(outer.reason);
    if (outer.aborted) forward();
    else outer.addEventListener('abort', forward, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new AgentToolError(
          'TIMEOUT',
          `tool ${goQuote(context.tool.name)} timed out after ${this.#ms} ms`,
        );
        controller.abort(error);
        reject(error);
      }, this.#ms);
    });
    const running = next.handle(context.ctx.with({ signal: controller.signal }));
    // Once the time is up, what the tool does next is nobody's to report.
    running.catch(() => undefined);
    try {
      return await Promise.race([running, expired]);
    } finally {
      clearTimeout(timer);
      outer.removeEventListener('abort', forward);
    }
  }
}
