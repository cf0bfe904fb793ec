/**
 * The bytes of request bodies an endpoint holds while it reads them, all requests
 * together (at most `limit`) and each caller's (at most `share`): past either a request is
 * refused rather than read, so that memory for bodies is bounded by configuration, not by
 * how many a client sends at once, and one caller holding bodies open cannot shut the
 * others out.
 */
export class BodyBudget {
  #used = 0;
  readonly #byCaller = new Map<string, number>();

  constructor(
    readonly limit: number,
    readonly share: number,
  ) {}

  /** What one body of `caller` may take, read by `readLimited` or `readNodeBody`. */
  for(caller: string): BodyAllowance {
    return new BodyAllowance(this, caller);
  }

  /**
   * Takes `bytes` of the budget for `caller`; the bound they would pass (`share` or
   * `limit`) when they do not fit, and nothing taken.
   */
  take(caller: string, bytes: number): 'share' | 'limit' | undefined {
    const held = this.#byCaller.get(caller) ?? 0;
    const over = this.#over(held, bytes);
    if (over !== undefined) return over;
    this.#byCaller.set(caller, held + bytes);
    this.#used += bytes;
    return undefined;
  }

  /** Gives back `bytes` taken for `caller` before. */
  give(caller: string, bytes: number): void {
    if (bytes === 0) return;
    const held = (this.#byCaller.get(caller) ?? 0) - bytes;
    if (held > 0) this.#byCaller.set(caller, held);
    else this.#byCaller.delete(caller);
    this.#used -= bytes;
  }

  /** The bound a body of `declared` bytes of `caller` would pass now, if any. */
  wouldExceed(caller: string, declared: number): 'share' | 'limit' | undefined {
    if (!Number.isFinite(declared)) return undefined;
    return this.#over(this.#byCaller.get(caller) ?? 0, declared);
  }

  #over(held: number, bytes: number): 'share' | 'limit' | undefined {
    // A share of the whole budget is no share: the budget refuses.
    if (this.share < this.limit && held + bytes > this.share) return 'share';
    if (this.#used + bytes > this.limit) return 'limit';
    return undefined;
  }
}

/** One body's take of a {@link BodyBudget}: its caller's, and the bound that refused it. */
export class BodyAllowance {
  /** The bound that refused the body, once one has. */
  refused: 'share' | 'limit' | undefined;

  constructor(
    readonly budget: BodyBudget,
    readonly caller: string,
  ) {}

  /** Takes `bytes`; false (and nothing taken) when they do not fit. */
  take(bytes: number): boolean {
    this.refused = this.budget.take(this.caller, bytes);
    return this.refused === undefined;
  }

  give(bytes: number): void {
    this.budget.give(this.caller, bytes);
  }

  /** True when a body of `declared` bytes would not fit now. */
  wouldExceed(declared: number): boolean {
    this.refused = this.budget.wouldExceed(this.caller, declared);
    return this.refused !== undefined;
  }
}
