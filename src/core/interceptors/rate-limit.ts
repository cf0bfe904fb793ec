import { AgentToolError } from '../errors';
import { goQuote } from '../quote';
import { type Result } from '../result';
import { type CallerKey, subjectOrSession } from './caller';
import { type CallHandler, type Interceptor, type ToolExecutionContext } from './chain';
import { optionalFunction, wholeNumber } from './options';

/** What {@link RateLimitInterceptor} takes. */
export interface RateLimitOptions {
  /** How many calls of one tool one caller may make per window: its budget. */
  readonly limit: number;
  /** The window, in milliseconds; a spent budget comes back evenly over it. */
  readonly windowMs: number;
  /**
   * Who a budget is kept for. By default the verified subject (`ctx.auth.subject`), else
   * the session when it outlives the call; calls that carry neither (an unauthenticated
   * 2026-07-28 request, a batch without a session) share one budget between them.
   */
  readonly caller?: CallerKey | undefined;
  /** How many budgets are kept at most (default 10,000): past it the full ones go, then the oldest. */
  readonly maxCallers?: number | undefined;
  /** The clock, in milliseconds (default `Date.now`). */
  readonly now?: (() => number) | undefined;
}

/**
 * A call refused by a {@link RateLimitInterceptor}: its caller has spent its budget for
 * the tool (HTTP's 429). Its message, which the model reads, says when to try again:
 * `rate limit exceeded for "<tool>"; retry after <n> s`.
 */
export class RateLimitError extends AgentToolError {
  /** The tool whose budget is spent. */
  readonly tool: string;
  /** Whole seconds until the caller may call the tool again (at least 1). */
  readonly retryAfter: number;

  constructor(tool: string, retryAfter: number) {
    super('RATE_LIMITED', `rate limit exceeded for ${goQuote(tool)}; retry after ${retryAfter} s`);
    this.name = 'RateLimitError';
    this.tool = tool;
    this.retryAfter = retryAfter;
  }
}

interface Budget {
  tokens: number;
  at: number;
}

/** The callers that share one budget: those {@link RateLimitOptions.caller} cannot tell apart. */
const UNKNOWN_CALLER = 'unknown';

/**
 * A per-caller, per-tool rate limit: each caller may make `limit` calls of each tool per
 * `windowMs` (a token bucket: the budget comes back evenly, a full one holds `limit`);
 * past it the call fails with a {@link RateLimitError} before the tool runs. One
 * caller's calls never spend another's budget; callers nothing tells apart share one (see
 * {@link RateLimitOptions.caller}).
 */
export class RateLimitInterceptor implements Interceptor {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #caller: CallerKey;
  readonly #maxCallers: number;
  readonly #now: () => number;
  readonly #budgets = new Map<string, Budget>();

  constructor(options: RateLimitOptions) {
    const where = 'RateLimitInterceptor';
    this.#limit = wholeNumber(where, 'limit', options?.limit, 1);
    this.#windowMs = wholeNumber(where, 'windowMs', options.windowMs, 1);
    this.#caller = optionalFunction<CallerKey>(where, 'caller', options.caller) ?? subjectOrSession;
    this.#maxCallers = wholeNumber(where, 'maxCallers', options.maxCallers ?? 10_000, 1);
    this.#now = optionalFunction<() => number>(where, 'now', options.now) ?? Date.now;
  }

  /** Spends one of the caller's budget of the tool and runs the rest, or refuses the call. */
  intercept(context: ToolExecutionContext, next: CallHandler): Promise<Result> {
    const tool = context.tool.name;
    const key = `${tool}\u0000${this.#caller(context.ctx) ?? UNKNOWN_CALLER}`;
    const now = this.#now();
    const budget = this.#refilled(key, now);
    if (budget.tokens < 1) {
      const waitMs = ((1 - budget.tokens) * this.#windowMs) / this.#limit;
      return Promise.reject(new RateLimitError(tool, Math.max(1, Math.ceil(waitMs / 1000))));
    }
    budget.tokens -= 1;
    return next.handle();
  }

  /** The budget under `key` as it stands at `now`, made the newest. */
  #refilled(key: string, now: number): Budget {
    let budget = this.#budgets.get(key);
    if (budget === undefined) {
      budget = { tokens: this.#limit, at: now };
      if (this.#budgets.size >= this.#maxCallers) this.#evict(now);
    } else {
      this.#budgets.delete(key);
      const earned = (Math.max(0, now - budget.at) * this.#limit) / this.#windowMs;
      budget.tokens = Math.min(this.#limit, budget.tokens + earned);
      budget.at = now;
    }
    this.#budgets.set(key, budget);
    return budget;
  }

  /** Makes room for one budget: the full ones go (nothing is lost), then the oldest. */
  #evict(now: number): void {
    for (const [key, budget] of this.#budgets) {
      const earned = (Math.max(0, now - budget.at) * this.#limit) / this.#windowMs;
      if (budget.tokens + earned >= this.#limit) this.#budgets.delete(key);
    }
    while (this.#budgets.size >= this.#maxCallers) {
      const oldest = this.#budgets.keys().next().value;
      if (oldest === undefined) break;
      this.#budgets.delete(oldest);
    }
  }
}
