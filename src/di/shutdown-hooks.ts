import { errorMessage } from '../core';

/**
 * The process signal listeners behind `ToolApp.enableShutdownHooks`: on the first of the
 * signals, `close(signal)` runs once; then the listeners are removed and the signal is
 * raised again, so the process ends as it would have without them.
 */
export class ShutdownHooks {
  readonly #listeners = new Map<NodeJS.Signals, () => void>();
  #signalled = false;

  constructor(private readonly close: (signal: string) => Promise<void>) {}

  /** Listens for `signals` (each once, however often it is asked). */
  listen(signals: readonly NodeJS.Signals[]): void {
    for (const signal of new Set(signals)) {
      if (this.#listeners.has(signal)) continue;
      const listener = (): void => {
        // A second signal while closing is ignored, as NestJS ignores it: closing goes on.
        if (this.#signalled) return;
        this.#signalled = true;
        void this.close(signal)
          .catch((error: unknown) => {
            process.exitCode = 1;
            process.emitWarning(`ToolApp.close(${signal}) failed: ${errorMessage(error)}`);
          })
          .finally(() => {
            this.remove();
            process.kill(process.pid, signal);
          });
      };
      this.#listeners.set(signal, listener);
      process.on(signal, listener);
    }
  }

  /** Removes every listener. */
  remove(): void {
    for (const [signal, listener] of this.#listeners) process.off(signal, listener);
    this.#listeners.clear();
  }
}
