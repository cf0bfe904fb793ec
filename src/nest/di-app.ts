import {
  AgentToolError,
  type Constructor,
  errorMessage,
  type Session,
  type ToolBuildOptions,
} from 'agenttool';
import { type ModuleDescription, type ProviderDescription } from 'agenttool/di';
import { type ModuleRef } from '@nestjs/core';
import { type Hooked, hookError } from './di-hooks';
import { type CallBuild, callBuilds } from './sessions';
import { claim, madeHere, noteCallMade } from './call-made';
import { closeEach, closeScope, SessionScope } from './session-scope';
import { StartBound, type StartLimits } from './start-bound';
import { toolBuildOptions } from './tool-build';

/** A provider of the app, with the module that lists it. */
export interface AppProvider {
  readonly provider: ProviderDescription;
  readonly module: string;
}

/**
 * One agenttool/di app built by NestJS's container (`asNestModule`): what its
 * translated providers made, its sessions, its bounded start, and the closing NestJS
 * has no part in.
 */
export class NestDiApp {
  /** What the app made outside calls, in order of creation: it closes them. */
  readonly #made: Hooked[] = [];
  /** The values given with `useValue`: their giver's to close. */
  readonly given = new WeakSet<object>();
  /** Objects closed, app-wide (a session's included), so that each is closed once. */
  readonly #closed = new WeakSet<object>();
  /** The values, hooked by NestJS like the rest. */
  readonly #values: Hooked[] = [];
  /** Each module's NestJS `ModuleRef`, captured as NestJS builds the module. */
  readonly moduleRefs = new Map<Constructor, ModuleRef>();
  readonly bound: StartBound;
  #seq = 0;
  /** `building` until NestJS starts calling hooks; the factories are bounded until then. */
  #phase: 'building' | 'started' | 'closed' = 'building';
  /** Instances whose `onModuleInit` ran (or that have none) during the start. */
  readonly #started = new Set<Hooked>();
  /** Undoes the start's hook wrappers not called yet. */
  readonly #restores = new Set<() => void>();
  /** The module classes' instances, once NestJS calls the hooks. */
  #moduleEntries: Hooked[] = [];
  readonly #sessions = new WeakMap<Session, SessionScope>();
  readonly #live = new Set<SessionScope>();

  constructor(
    readonly root: string,
    readonly modules: readonly ModuleDescription[],
    limits: StartLimits,
  ) {
    this.bound = new StartBound(root, limits, () => this.#closeFailedStart());
  }

  /** Notes a `useValue` value: hooked by NestJS, never closed by the app. */
  keepValue(value: unknown, at: AppProvider): void {
    if (typeof value !== 'object' || value === null) return;
    this.given.add(value);
    this.#values.push(this.#entry(value, at));
  }

  /**
   * The factory NestJS calls for a class or factory provider of the app: it makes the
   * value as `ToolApp` would, and keeps it where it lives: the app's (bounded while the
   * app starts), a session's (started at once, closed when the session ends), or the
   * call's (closed when the call ends, unless what it was made for is a session's).
   */
  async make(at: AppProvider, deps: unknown[]): Promise<unknown> {
    const { provider } = at;
    const build = callBuilds.getStore();
    const shared = provider.scope !== 'transient' && provider.scope !== 'resolution';
    if (provider.home === 'session' && shared) return this.#makeForSession(at, deps, build);
    if (build !== undefined) {
      const value = await this.#build(at, deps);
      this.#keepForCall(value, deps, at, build);
      return value;
    }
    if (this.#phase !== 'building') {
      const value = await this.#build(at, deps);
      this.#keepForApp(value, deps, at);
      return value;
    }
    const value = await this.bound.run(
      `${at.module}: ${provider.label}`,
      () => provider.make(...deps),
      (error) => providerFailed(at, error),
    );
    if (this.bound.failure !== undefined) {
      // The start failed while this was being made: nobody will use it.
      await this.#closeLate(value, deps);
      throw this.bound.failure;
    }
    this.#keepForApp(value, deps, at);
    return value;
  }

  async #build(at: AppProvider, deps: unknown[]): Promise<unknown> {
    try {
      return await at.provider.make(...deps);
    } catch (error) {
      throw providerFailed(at, error);
    }
  }

  async #makeForSession(
    at: AppProvider,
    deps: unknown[],
    build: CallBuild | undefined,
  ): Promise<unknown> {
    const { provider } = at;
    if (build === undefined) {
      throw new AgentToolError(
        'SESSION_SCOPED',
        `agenttool/nest: ${at.module}: ${provider.label} ${provider.scope === 'session' ? 'is session-scoped' : 'needs a session-scoped provider'}: its instances belong to the MCP sessions whose tool calls AgentToolModule serves, and it was asked for outside one; inject it into tools (or what they use), not into what serves HTTP routes`,
      );
    }
    const scope = this.scopeFor(build.session);
    if (scope.closed) {
      throw new AgentToolError('CLOSED', `${provider.label}: the session has ended`);
    }
    // Transient instances made for this one are the session's now, started before it.
    for (const claimed of claim(deps, build)) {
      madeHere.add(claimed.instance as object);
      await scope.add(claimed);
    }
    const value = await this.#build(at, deps);
    if (scope.closed) {
      await this.#closeLate(value, deps);
      throw new AgentToolError(
        'CLOSED',
        `${provider.label}: the session ended while it was being built`,
      );
    }
    if (this.#passedOn(value, deps) || typeof value !== 'object' || value === null) return value;
    madeHere.add(value);
    await scope.add(this.#entry(value, at));
    return value;
  }

  #keepForApp(value: unknown, deps: readonly unknown[], at: AppProvider): void {
    if (typeof value !== 'object' || value === null || this.#passedOn(value, deps)) return;
    madeHere.add(value);
    this.#made.push(this.#entry(value, at));
  }

  #keepForCall(value: unknown, deps: readonly unknown[], at: AppProvider, build: CallBuild): void {
    if (typeof value !== 'object' || value === null || this.#passedOn(value, deps)) return;
    madeHere.add(value);
    const children = deps.filter(
      (dep): dep is object => typeof dep === 'object' && dep !== null && build.made.includes(dep),
    );
    build.made.push(value);
    noteCallMade(value, this.#entry(value, at), children);
  }

  /** True when a factory's result is not its own: an argument, a given value, a known instance. */
  #passedOn(value: unknown, deps: readonly unknown[]): boolean {
    if (typeof value !== 'object' || value === null) return false;
    return deps.includes(value) || this.given.has(value) || madeHere.has(value);
  }

  #entry(instance: unknown, at: AppProvider): Hooked {
    return {
      instance,
      module: at.module,
      label: at.provider.label,
      place: at.provider.hookPlace,
      last: false,
      seq: this.#seq++,
    };
  }

  /** Closes a result that came after its scope (or the start) ended, which nobody will use. */
  async #closeLate(value: unknown, deps: readonly unknown[]): Promise<void> {
    if (typeof value !== 'object' || value === null || this.#passedOn(value, deps)) return;
    await closeEach([value], this.#closed).catch(() => undefined);
  }

  /**
   * The session's scope of this app, made on its first use and closed when the session
   * ends (or when the app closes). Throws `CLOSED` once the app has closed.
   */
  scopeFor(session: Session): SessionScope {
    if (this.#phase === 'closed') {
      throw new AgentToolError('CLOSED', `agenttool/nest: ${this.root}: the app is closed`);
    }
    let scope = this.#sessions.get(session);
    if (scope === undefined) {
      const created = new SessionScope(this.#closed);
      scope = created;
      this.#sessions.set(session, created);
      this.#live.add(created);
      session.onClose(async () => {
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
   * Starts the start's hooks: run from `onModuleInit` of the app's own global module,
   * which NestJS calls before any other module's, once everything is built. Each
   * instance's `onModuleInit` and `onApplicationBootstrap` is wrapped for this one call
   * (an own property, removed when called): the call is bounded as the factories were,
   * and who started is known, for the closing if the start fails.
   */
  beginHooks(): void {
    this.#phase = 'started';
    if (this.bound.failure !== undefined) return;
    const seen = new Set<object>();
    this.#moduleEntries = this.#moduleInstances();
    const entries = [...this.#values, ...this.#made, ...this.#moduleEntries];
    for (const entry of entries) {
      const { instance } = entry;
      if (typeof instance !== 'object' || instance === null || seen.has(instance)) continue;
      seen.add(instance);
      if (!this.#wrap(entry, 'onModuleInit', () => this.#started.add(entry))) {
        this.#started.add(entry);
      }
      if (typeof (instance as Record<string, unknown>).onApplicationBootstrap === 'function') {
        this.#wrap(entry, 'onApplicationBootstrap', () => undefined);
      }
    }
  }

  #moduleInstances(): Hooked[] {
    const entries: Hooked[] = [];
    for (const module of this.modules) {
      let instance: unknown;
      try {
        instance = this.moduleRefs.get(module.module)?.get(module.module, { strict: true });
      } catch {
        continue;
      }
      entries.push({
        instance,
        module: module.module.name,
        label: module.module.name,
        place: { moduleRank: module.moduleRank, level: 0, position: 0 },
        last: true,
        seq: this.#seq++,
      });
    }
    return entries;
  }

  /** Wraps one starting hook of an instance for its one call; false when it cannot be. */
  #wrap(entry: Hooked, hook: 'onModuleInit' | 'onApplicationBootstrap', done: () => void): boolean {
    const target = entry.instance as Record<string, unknown>;
    const own = Object.getOwnPropertyDescriptor(target, hook);
    const original = target[hook] as (() => unknown) | undefined;
    const restore = (): void => {
      this.#restores.delete(restore);
      if (own === undefined) delete target[hook];
      else Object.defineProperty(target, hook, own);
    };
    const wrapper = (): Promise<void> => {
      restore();
      return this.bound.run(
        `${entry.module}: ${entry.label}.${hook}()`,
        async () => {
          if (typeof original === 'function') await original.call(target);
          done();
        },
        (error) => hookError(hook, entry, error),
      );
    };
    try {
      Object.defineProperty(target, hook, {
        value: wrapper,
        configurable: true,
        writable: true,
        enumerable: false,
      });
    } catch {
      // A frozen or sealed value: NestJS calls its own hook, unbounded.
      return false;
    }
    this.#restores.add(restore);
    return true;
  }

  /**
   * After a start that failed: the hook wrappers not called are removed, and what the
   * app built is closed, as `ToolApp` closes it: `onModuleDestroy` and
   * `beforeApplicationShutdown` on what started, closing, `onApplicationShutdown`.
   */
  async #closeFailedStart(): Promise<void> {
    for (const restore of [...this.#restores]) restore();
    this.#phase = 'closed';
    const hooked = [...this.#values, ...this.#made, ...this.#moduleEntries];
    const started = hooked.filter((entry) => this.#started.has(entry));
    await closeScope(started, this.#made.splice(0), this.#closed, undefined).catch(() => undefined);
  }

  /**
   * Ends every session of the app still open, one after the other in the order they
   * began (their instances get their closing hooks and are closed), as `ToolApp.close()`
   * ends them before it closes the app's own: run from `onModuleDestroy` of a provider
   * of the root module that NestJS calls before any other of the app's (and, last, from
   * the app's own global module), when the server has not ended them before.
   */
  async closeSessions(): Promise<void> {
    this.#phase = 'closed';
    const errors: unknown[] = [];
    for (const scope of [...this.#live]) {
      try {
        await scope.close();
      } catch (error) {
        errors.push(...failuresOf(error));
      }
    }
    this.#live.clear();
    if (errors.length > 0) {
      throw new AggregateError(errors, `agenttool/nest: ${errors.length} failed to close`);
    }
  }

  /**
   * Closes what the app made (`close()`, `dispose()`, the dispose symbols), newest first,
   * each once, and joins the failures: run from `beforeApplicationShutdown` of the app's
   * own global module, which NestJS calls after every other module's.
   */
  async closeAll(): Promise<void> {
    const made = this.#made.splice(0).map((entry) => entry.instance as object);
    const errors = await closeEach(made.reverse(), this.#closed);
    if (errors.length > 0) {
      throw new AggregateError(errors, `agenttool/nest: ${errors.length} failed to close`);
    }
  }

  /**
   * Waits for `resolving` (a tool's instance for a call of `session`), or fails with
   * `CLOSED` as soon as the session ends, as `ToolApp` does not keep a call waiting on
   * a session that ended.
   */
  async untilSessionEnds<T>(session: Session, resolving: Promise<T>, what: string): Promise<T> {
    const scope = this.scopeFor(session);
    resolving.catch(() => undefined);
    return Promise.race([
      resolving,
      scope.ended.then(() => {
        throw new AgentToolError('CLOSED', `${what}: the session ended while it was being built`);
      }),
    ]);
  }

  /**
   * How the tools of `module` are built: the guards of the modules that import it, then
   * its own (guard classes as NestJS built them in the module that lists them), and its
   * tools' `@Guard` classes from itself.
   */
  toolOptions(module: ModuleDescription): ToolBuildOptions {
    return toolBuildOptions(module, (owner, what) => {
      const ref = this.moduleRefs.get(owner);
      if (ref === undefined) {
        throw new AgentToolError(
          'INTERNAL',
          `agenttool/nest: the module ${owner.name} of ${what} was not built`,
        );
      }
      return ref;
    });
  }
}

function providerFailed(at: AppProvider, error: unknown): AgentToolError {
  if (
    error instanceof AgentToolError &&
    (error.code === 'CLOSED' || error.code === 'PROVIDER_FAILED')
  ) {
    return error;
  }
  return new AgentToolError(
    'PROVIDER_FAILED',
    `${at.module}: creating ${at.provider.label} failed: ${errorMessage(error)}`,
    { cause: error },
  );
}

function failuresOf(reason: unknown): unknown[] {
  return reason instanceof AggregateError ? (reason.errors as unknown[]) : [reason];
}
