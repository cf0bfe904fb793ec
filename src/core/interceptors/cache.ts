import { type Call } from '../context';
import { canonicalJson } from '../definition';
import { type Result } from '../result';
import { annotationsOf } from '../tool';
import { type CallerKey, credentialsOrSession } from './caller';
import { type CallHandler, type Interceptor, type ToolExecutionContext } from './chain';
import { optionalFunction, wholeNumber } from './options';

/** What {@link ResultCacheInterceptor} takes. */
export interface ResultCacheOptions {
  /** How long a result is handed out again, in milliseconds. */
  readonly ttlMs: number;
  /** How many results are kept at most (default 1,000): past it the least recently used go. */
  readonly maxEntries?: number | undefined;
  /**
   * Who results are kept for: a result is only ever handed to the caller it was made
   * for. By default the verified caller (subject, client and scopes together), else the
   * session when it outlives the call; a call that carries neither is never answered
   * from the cache, nor kept (two such callers could not be told apart). Answering
   * undefined leaves the call uncached.
   */
  readonly caller?: CallerKey | undefined;
  /** The clock, in milliseconds (default `Date.now`). */
  readonly now?: (() => number) | undefined;
}

interface Entry {
  readonly result: Result;
  readonly expires: number;
}

/**
 * Caches the results of read-only tools (`@Annotations({ readOnly: true })`; any other
 * tool's calls pass through untouched) for `ttlMs`, keyed by the tool, the caller and the
 * call's arguments in RFC 8785 canonical JSON (so `{"a":1,"b":2}` and `{"b":2,"a":1}` are
 * one entry). Only successful results are kept; a call answered from the cache does not
 * run the tool, so it reports no progress and writes no records. Results are never shared
 * between callers (see {@link ResultCacheOptions.caller}); one caller is handed the same
 * result object again, which nobody should change.
 */
export class ResultCacheInterceptor implements Interceptor {
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #caller: CallerKey;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();

  constructor(options: ResultCacheOptions) {
    const where = 'ResultCacheInterceptor';
    this.#ttlMs = wholeNumber(where, 'ttlMs', options?.ttlMs, 1);
    this.#maxEntries = wholeNumber(where, 'maxEntries', options.maxEntries ?? 1000, 1);
    this.#caller =
      optionalFunction<CallerKey>(where, 'caller', options.caller) ?? credentialsOrSession;
    this.#now = optionalFunction<() => number>(where, 'now', options.now) ?? Date.now;
  }

  /** The caller's kept result for these arguments, or the rest's result, kept. */
  async intercept(context: ToolExecutionContext, next: CallHandler): Promise<Result> {
    if (annotationsOf(context.tool)?.readOnly !== true) return next.handle();
    const caller = this.#caller(context.ctx);
    const args = caller === undefined ? undefined : canonicalArguments(context.call);
    if (args === undefined) return next.handle();
    const key = JSON.stringify([context.tool.name, caller, args]);
    const kept = this.#entries.get(key);
    if (kept !== undefined) {
      this.#entries.delete(key);
      if (kept.expires > this.#now()) {
        this.#entries.set(key, kept);
        return kept.result;
      }
    }
    const result = await next.handle();
    this.#entries.delete(key);
    this.#entries.set(key, { result, expires: this.#now() + this.#ttlMs });
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
    return result;
  }
}

/** The call's arguments in canonical JSON; undefined when they cannot be written so. */
function canonicalArguments(call: Call): string | undefined {
  try {
    const value: unknown =
      call.value !== undefined ? call.value : call.args.trim() === '' ? {} : JSON.parse(call.args);
    return canonicalJson(value);
  } catch {
    // Arguments a tool took but JSON cannot read back (or too deep to write): not cached.
    return undefined;
  }
}
