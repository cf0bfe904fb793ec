import type { Session, ToolContext } from 'agenttool';
import { MAX_TIMER_MS } from './shell-job';
import { type BeforeCommand } from './shell-options';

// What a command of the bash tool waits for before it runs (`ShellOptions.beforeCommand`):
// the hook asked with the call's session and a signal, the wait ended by that signal,
// and bounded by the command's timeout.

/**
 * Waits for what `hook` says a command of `session` must see done first; undefined when
 * there is nothing to wait for. Rejects when the hook's promise does, or with the
 * signal's reason once `signal` aborts (the hook is not asked when it has already).
 */
export function beforeCommand(
  hook: BeforeCommand | undefined,
  session: Session | undefined,
  signal: AbortSignal,
): Promise<void> | undefined {
  if (hook === undefined) return undefined;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  const waited = hook(session, signal);
  if (waited === undefined) return undefined;
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    waited.finally(() => signal.removeEventListener('abort', onAbort)).then(resolve, reject);
  });
}

/**
 * The wait of {@link beforeCommand} for a tool call, for at most the command's
 * `timeoutSeconds`: past it the call fails, saying so, and the command does not run.
 */
export async function waitBeforeCommand(
  wait: (session: Session | undefined, signal: AbortSignal) => Promise<void> | undefined,
  ctx: ToolContext,
  timeoutSeconds: number,
): Promise<void> {
  const timeout = AbortSignal.timeout(Math.min(timeoutSeconds * 1000, MAX_TIMER_MS));
  const waited = wait(ctx.session, AbortSignal.any([ctx.signal, timeout]));
  if (waited === undefined) return;
  try {
    await waited;
  } catch (error) {
    if (!timeout.aborted || ctx.signal.aborted) throw error;
    throw new Error(
      `the command did not run: what it waits for first (the file changes sent before it) had not settled after ${timeoutSeconds} s`,
    );
  }
}
