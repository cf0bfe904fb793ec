import { type Session } from 'agenttool';

/**
 * The file changes under way (`write_file`, `edit_file`, `append_file`), by the session
 * that sent them, for the shell's commands to wait for: a command waits for its
 * session's changes under way when its turn comes (those sent before it, and those sent
 * with it that began first). Changes never wait for commands, so nothing waits in a
 * circle. Calls outside a session are counted together.
 */
export class FileChanges {
  readonly #bySession = new WeakMap<Session, Set<Promise<unknown>>>();
  readonly #sessionless = new Set<Promise<unknown>>();

  /** Counts `change` among `session`'s changes under way until it settles; returns it. */
  track<T>(session: Session | undefined, change: Promise<T>): Promise<T> {
    // Only a session not seen yet has none (calls outside one always have their set).
    const under = this.#under(session) ?? this.#opened(session as Session);
    under.add(change);
    const done = (): void => void under.delete(change);
    change.then(done, done);
    return change;
  }

  /**
   * Settles once every change `session` has under way now has (each fulfilled or
   * failed: a command waits for a change, not for its success); undefined when there is
   * none.
   */
  settled(session: Session | undefined): Promise<void> | undefined {
    const under = this.#under(session);
    if (under === undefined || under.size === 0) return undefined;
    return Promise.allSettled([...under]).then(() => undefined);
  }

  /** The changes of `session` (of calls outside one, when undefined), if it has had any. */
  #under(session: Session | undefined): Set<Promise<unknown>> | undefined {
    return session === undefined ? this.#sessionless : this.#bySession.get(session);
  }

  #opened(session: Session): Set<Promise<unknown>> {
    const under = new Set<Promise<unknown>>();
    this.#bySession.set(session, under);
    return under;
  }
}
