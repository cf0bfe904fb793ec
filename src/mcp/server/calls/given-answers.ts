/**
 * The most answers a call without a request state keeps of those it carries up front,
 * and the most bytes they take as JSON, keys included.
 */
export const MAX_GIVEN_ANSWERS = 32;
export const MAX_GIVEN_BYTES = 64 * 1024;

/**
 * The answers a call without a request state carries, as a client that keeps no state
 * sends them (SEP-2322: the server may run the call again and read them). A request the
 * tool names with its own key (`ctx.ask({ key })`) is answered by the one under that key
 * instead of going back to the client; made-up keys (`elicit_<n>`) name requests of
 * another run, so answers under them are ignored, as are keys the tool never asks
 * under. Kept while the run lasts (a parked call, up to `abandonAfterMs`), so a bounded
 * few: at most {@link MAX_GIVEN_ANSWERS} of {@link MAX_GIVEN_BYTES}, the first given; an
 * answer not kept costs a round trip (its question goes back to the client).
 */
export class GivenAnswers {
  readonly #answers: Record<string, unknown>;
  /** What they take as JSON, keys included. */
  readonly bytes: number;

  private constructor(answers: Record<string, unknown>, bytes: number) {
    this.#answers = answers;
    this.bytes = bytes;
  }

  /** The answers kept of `responses`; undefined when none is. */
  static of(responses: Readonly<Record<string, unknown>> | undefined): GivenAnswers | undefined {
    if (responses === undefined || responses === null || typeof responses !== 'object') {
      return undefined;
    }
    const kept: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    let count = 0;
    let bytes = 0;
    for (const key of Object.keys(responses)) {
      if (count === MAX_GIVEN_ANSWERS) break;
      const size = key.length + (JSON.stringify(responses[key])?.length ?? 0);
      if (bytes + size > MAX_GIVEN_BYTES) continue;
      kept[key] = responses[key];
      count++;
      bytes += size;
    }
    return count > 0 ? new GivenAnswers(kept, bytes) : undefined;
  }

  /** The answer under the tool's own `key`, taken once. */
  take(key: string): unknown {
    if (!(key in this.#answers)) return undefined;
    const answer = this.#answers[key];
    delete this.#answers[key];
    return answer;
  }
}
