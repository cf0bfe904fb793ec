import { AgentToolError, errorMessage } from 'agenttool';

/** A factory or hook under way, for the error of a start that does not finish. */
interface Running {
  readonly what: string;
  readonly since: number;
  /** Resolves once it has settled, or has been given up on. */
  readonly settled: Promise<void>;
}

/** How long each part of a start may take, and what may stop it. */
export interface StartLimits {
  readonly signal?: AbortSignal | undefined;
  readonly timeoutMs?: number | undefined;
}

/** Throws `INVALID_OPTIONS` for limits that cannot be used. */
export function checkStartLimits(root: string, limits: StartLimits): void {
  const { signal, timeoutMs } = limits;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new AgentToolError(
      'INVALID_OPTIONS',
      `agenttool/nest: asNestModule(${root}): signal must be an AbortSignal`,
    );
  }
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new AgentToolError(
      'INVALID_OPTIONS',
      `agenttool/nest: asNestModule(${root}): timeoutMs must be a positive number of milliseconds, not ${String(timeoutMs)}`,
    );
  }
}

/** Why a part of the start was given up on: the error is the start's. */
class GivenUp extends Error {
  constructor(readonly error: AgentToolError) {
    super(error.message);
  }
}

/**
 * The start of one agenttool/di app under NestJS: every async factory and starting hook
 * the app hands to NestJS runs through {@link StartBound.run}, which bounds it by
 * `timeoutMs` and the signal. NestJS has no bound on a start of its own, so each part is
 * bounded: one that has not settled within `timeoutMs` fails the start with `TIMEOUT`
 * (naming every part still under way and how long it had been waited for), an abort with
 * `CANCELLED`; a factory or hook that throws fails it with its error. Once failed,
 * `onFailure` (closing what the app built) runs once, before the error reaches NestJS;
 * every part still under way, and every later one, fails with the same error, and
 * builds nothing.
 */
export class StartBound {
  readonly #running = new Set<Running>();
  #error: AgentToolError | undefined;
  #failing: Promise<void> | undefined;
  #begun = false;
  /** Rejects with the start's error once closing after a failure is done: every part under way stops. */
  readonly #stopped: Promise<never>;
  #stop!: (error: GivenUp) => void;

  constructor(
    private readonly root: string,
    private readonly limits: StartLimits,
    private readonly onFailure: () => Promise<void>,
  ) {
    this.#stopped = new Promise<never>((_, reject) => (this.#stop = reject));
    this.#stopped.catch(() => undefined);
  }

  /** The error the start failed with, once it has. */
  get failure(): AgentToolError | undefined {
    return this.#error;
  }

  /**
   * Runs `work`, one factory or hook of the start named `what`, within the limits.
   * `wrap` turns what `work` throws into the start's error (`PROVIDER_FAILED`,
   * `HOOK_FAILED`); what was under way beside it settles first, so that a hook that
   * succeeds beside a failing one still counts as done, as `ToolApp` counts it.
   */
  async run<T>(
    what: string,
    work: () => T | Promise<T>,
    wrap: (error: unknown) => AgentToolError,
  ): Promise<T> {
    const failed = this.#error;
    if (failed !== undefined) throw failed;
    const { signal, timeoutMs } = this.limits;
    if (signal?.aborted === true) {
      const before = !this.#begun;
      await this.#fail(
        new AgentToolError(
          'CANCELLED',
          before
            ? `agenttool/nest: asNestModule(${this.root}): the start was aborted (${errorMessage(signal.reason)}) before it began; nothing was built`
            : `agenttool/nest: asNestModule(${this.root}): the start was aborted (${errorMessage(signal.reason)}): ${this.#underWay()}; what was built is closed`,
          { cause: signal.reason },
        ),
        false,
      );
      throw this.#error!;
    }
    this.#begun = true;
    let settle!: () => void;
    const running: Running = {
      what,
      since: performance.now(),
      settled: new Promise<void>((resolve) => (settle = resolve)),
    };
    this.#running.add(running);
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const limit = new Promise<never>((_, reject) => {
      // Not unref'd: a start waiting on nothing but a promise that never settles would
      // otherwise let the process end without the error.
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => reject(new GivenUp(this.#timedOut(timeoutMs))), timeoutMs);
      }
      if (signal !== undefined) {
        onAbort = () => reject(new GivenUp(this.#aborted(signal)));
        signal.addEventListener('abort', onAbort, { once: true });
      }
    });
    try {
      return await Promise.race([Promise.resolve().then(work), limit, this.#stopped]);
    } catch (error) {
      this.#running.delete(running);
      settle();
      const failed = this.#error;
      if (failed !== undefined) {
        await this.#failing;
        throw failed;
      }
      if (error instanceof GivenUp) {
        await this.#fail(error.error, false);
      } else {
        await this.#fail(wrap(error), true);
      }
      throw this.#error!;
    } finally {
      clearTimeout(timer);
      if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
      this.#running.delete(running);
      settle();
    }
  }

  /** Fails the start with `error`, once: closes what was built (after the parts under way when `wait`). */
  async #fail(error: AgentToolError, wait: boolean): Promise<void> {
    if (this.#error === undefined) {
      this.#error = error;
      this.#failing = (async () => {
        if (wait) await Promise.all([...this.#running].map((r) => r.settled));
        await this.onFailure().catch(() => undefined);
        this.#stop(new GivenUp(error));
      })();
    }
    await this.#failing;
  }

  #underWay(): string {
    const now = performance.now();
    const waited = [...this.#running].map(
      ({ what, since }) => `${what} had not settled after ${Math.round(now - since)} ms`,
    );
    return waited.length === 0 ? 'nothing was under way' : waited.join('; ');
  }

  #timedOut(timeoutMs: number): AgentToolError {
    return new AgentToolError(
      'TIMEOUT',
      `agenttool/nest: asNestModule(${this.root}): the start did not finish: a factory or starting hook did not settle within timeoutMs (${timeoutMs} ms): ${this.#underWay()}; what was built is closed. Make the factory or hook settle, or give it more time`,
    );
  }

  #aborted(signal: AbortSignal): AgentToolError {
    return new AgentToolError(
      'CANCELLED',
      `agenttool/nest: asNestModule(${this.root}): the start was aborted (${errorMessage(signal.reason)}): ${this.#underWay()}; what was built is closed`,
      { cause: signal.reason },
    );
  }
}
