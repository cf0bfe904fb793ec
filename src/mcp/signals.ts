/**
 * A signal aborted when any of `signals` aborts, and a `dispose` that detaches it.
 * Unlike `AbortSignal.any`, nothing stays attached to a long-lived source (the
 * connection's close signal) once the call is over.
 */
export function linkedSignal(...signals: AbortSignal[]): {
  signal: AbortSignal;
  dispose: () => void;
} {
  const controller = new AbortController();
  const detach: (() => void)[] = [];
  for (const source of signals) {
    if (source.aborted) {
      controller.abort(source.reason);
      break;
    }
    const onAbort = (): void => controller.abort(source.reason);
    source.addEventListener('abort', onAbort, { once: true });
    detach.push(() => source.removeEventListener('abort', onAbort));
  }
  return { signal: controller.signal, dispose: () => detach.forEach((d) => d()) };
}

/** Resolves when `work` settles or `signal` aborts, whichever comes first. */
export function untilAborted(work: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const onAbort = (): void => resolve();
    signal.addEventListener('abort', onAbort, { once: true });
    void work.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

/** Resolves with what `work` resolves with, or undefined when `signal` aborts first. */
export async function unlessAborted<T>(
  work: Promise<T>,
  signal: AbortSignal,
): Promise<T | undefined> {
  if (signal.aborted) return undefined;
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
