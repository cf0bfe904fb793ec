import { type Session } from '../core';
import { type AppPlan, InstanceScope } from './scope';

/**
 * The scopes of an app's sessions: one tsyringe child container per session, made on the
 * session's first call and closed when it ends. Calls without a session share one.
 */
export class SessionScopes {
  readonly #sessions = new WeakMap<Session, InstanceScope>();
  /** Kept until closed, so that an app closing meanwhile waits for them. */
  readonly #live = new Set<InstanceScope>();
  #default: InstanceScope | undefined;

  constructor(
    private readonly plan: AppPlan,
    private readonly appScope: InstanceScope,
  ) {}

  /** The scope of `session`, made on its first call. */
  scopeFor(session: Session | undefined): InstanceScope {
    if (session === undefined) {
      this.#default ??= this.#newScope();
      return this.#default;
    }
    let scope = this.#sessions.get(session);
    if (scope === undefined) {
      const created = this.#newScope();
      scope = created;
      this.#sessions.set(session, created);
      this.#live.add(created);
      session.onClose(async () => {
        // Kept among the live sessions until closed, so that an app closing meanwhile
        // waits for it (a second close() returns the first's promise).
        try {
          await created.close();
        } finally {
          this.#live.delete(created);
        }
      });
    }
    return scope;
  }

  /**
   * Every session's scope still open, the shared one last, and forgets the open ones:
   * the app closes them, then its own scope.
   */
  takeOpen(): InstanceScope[] {
    const open = [...this.#live];
    if (this.#default !== undefined) open.push(this.#default);
    this.#live.clear();
    return open;
  }

  #newScope(): InstanceScope {
    return new InstanceScope(
      'session',
      this.appScope.container.createChildContainer(),
      this.plan,
      this.appScope,
    );
  }
}
