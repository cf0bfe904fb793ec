import { type DependencyContainer } from 'tsyringe';
import { AgentToolError, errorMessage } from '../core';
import { type ProviderNode } from './graph';
import {
  callHook,
  closeInstance,
  type Created,
  type HookOrder,
  type LifecycleHook,
  type Running,
  sinceStart,
  startFailure,
} from './lifecycle';
import { type Home, sharingOf } from './link';
import { registerValue, resolveIn } from './tsyringe-adapter';

/** What every scope of one app shares. */
export interface AppPlan extends HookOrder {
  /** Where each node's instances live: the app's scope, or a session's. */
  readonly homes: ReadonlyMap<ProviderNode, Home>;
  /** Objects already closed app-wide, so a shared instance is closed once. */
  readonly closedObjects: WeakSet<object>;
  /** The values given with `useValue`: their giver's to close, never the app's. */
  readonly givenValues: WeakSet<object>;
}

/** What the app closes: instances it built, not values it was given, aliases nor modules. */
const CLOSED_KINDS: ReadonlySet<ProviderNode['kind']> = new Set(['class', 'factory', 'tool']);
/** What lifecycle hooks are called on: every provider, tool and module class, as NestJS does, but aliases. */
const HOOKED_KINDS: ReadonlySet<ProviderNode['kind']> = new Set([
  'class',
  'factory',
  'tool',
  'value',
  'module',
]);

/**
 * What a scope is for: the app's (its instances started and closed all together), a
 * session's (each instance started as it is built, all closed when the session ends), or
 * one call's (what a tool built per call needs, unhooked, closed when the call ends).
 */
export type ScopeKind = 'app' | 'session' | 'call';

/** How errors say a scope ended: while a build was under way, and before one began. */
const ENDINGS: Readonly<Record<ScopeKind, readonly [string, string]>> = {
  app: ['app was closed', 'app is closed'],
  session: ['session ended', 'session has ended'],
  call: ['call ended', 'call has ended'],
};

/** The resolution-scoped instances of one resolution, by node. */
type Resolution = Map<ProviderNode, Promise<unknown>>;

/**
 * The instances of one scope, the app's, one session's or one call's, kept in its
 * tsyringe container (the app's child container, or a child of it). A shared node is
 * built once per scope, after what it needs; a transient one for each injection, in the
 * scope of what it is injected into; a resolution-scoped one once per resolution (the
 * building of one shared instance, or of one per-call tool). A factory is awaited and
 * its value registered; a class is resolved from the container, which builds it with
 * what the scope resolved for it. The scope keeps the order of creation, for the
 * lifecycle hooks and for closing newest first.
 */
export class InstanceScope {
  readonly #pending = new Map<ProviderNode, Promise<unknown>>();
  readonly #created: Created[] = [];
  /** The objects of `#created`, to tell a factory's own result from one it passes on. */
  readonly #createdObjects = new WeakSet<object>();
  /** Instances whose `onModuleInit` has run (or that have none): they get the closing hooks. */
  readonly #started = new Set<Created>();
  /** Nodes whose build has succeeded: their promise needs no watching for the scope's end. */
  readonly #built = new Set<ProviderNode>();
  /** Resolves when closing starts, ending the wait of callers whose build is still under way. */
  readonly #ended: Promise<void>;
  #end!: () => void;
  #ending = false;
  #closing: Promise<void> | undefined;
  #seq = 0;
  /** The factories and hooks under way, for the error of a start that does not finish. */
  readonly running = new Set<Running>();

  constructor(
    readonly kind: ScopeKind,
    readonly container: DependencyContainer,
    readonly plan: AppPlan,
    private readonly parent: InstanceScope | undefined,
  ) {
    this.#ended = new Promise((resolve) => (this.#end = resolve));
  }

  /** True once `close()` has been called. */
  get closed(): boolean {
    return this.#ending;
  }

  /**
   * The instance of `node` for this scope, built on first use with what it needs: a
   * shared node is one instance per scope (an app-scoped node asked of a session comes
   * from the app, anything shared asked of a call from the scope the call runs in); a
   * transient or resolution-scoped node is built anew, as a resolution of its own. In a
   * session the instance has had its starting hooks when this resolves. A build that
   * fails is not kept: the next call builds again.
   */
  resolve(node: ProviderNode): Promise<unknown> {
    return this.#get(node, new Map());
  }

  #get(node: ProviderNode, resolution: Resolution): Promise<unknown> {
    const sharing = sharingOf(node);
    if (sharing === 'shared') return this.#shared(node);
    if (this.closed) return Promise.reject(this.#closedError(node));
    if (sharing === 'transient') return this.#watched(this.#build(node, resolution), node);
    let pending = resolution.get(node);
    if (pending === undefined) {
      pending = this.#build(node, resolution);
      resolution.set(node, pending);
    }
    return this.#watched(pending, node);
  }

  #shared(node: ProviderNode): Promise<unknown> {
    const home = this.plan.homes.get(node) ?? 'app';
    if (this.parent !== undefined && (this.kind === 'call' || home === 'app')) {
      return this.parent.#shared(node);
    }
    if (this.closed) return Promise.reject(this.#closedError(node));
    let pending = this.#pending.get(node);
    if (pending === undefined) {
      const building = this.#build(node, new Map());
      pending = building;
      this.#pending.set(node, building);
      building.then(
        () => this.#built.add(node),
        () => {
          // A failed build is forgotten, so that the next use tries again; what it
          // built before failing stays with the scope, which closes it.
          if (this.#pending.get(node) === building) this.#pending.delete(node);
        },
      );
    }
    if (this.#built.has(node)) return pending;
    return this.#watched(pending, node);
  }

  /**
   * Closing does not wait for a build (a factory may never settle): its callers are
   * told the scope ended, and a result that comes later is closed as it comes.
   */
  #watched(pending: Promise<unknown>, node: ProviderNode): Promise<unknown> {
    return Promise.race([
      pending,
      this.#ended.then(() => {
        throw this.#closedError(node, true);
      }),
    ]);
  }

  #closedError(node: ProviderNode, building = false): AgentToolError {
    const [ended, over] = ENDINGS[this.kind];
    return new AgentToolError(
      'CLOSED',
      building
        ? `${node.label}: the ${ended} while it was being built`
        : `${node.label}: the ${over}`,
    );
  }

  async #build(node: ProviderNode, resolution: Resolution): Promise<unknown> {
    const args: unknown[] = [];
    for (const dep of node.deps) {
      args.push(dep === undefined ? undefined : await this.#get(dep, resolution));
    }
    if (this.closed) throw this.#closedError(node, true);
    let instance: unknown;
    try {
      switch (node.kind) {
        case 'alias':
          // Another name: the instance is the target's, hooked and closed as the target.
          return args[0];
        case 'value':
        case 'builtin':
          instance = node.build([]);
          break;
        case 'factory':
          // tsyringe has no asynchronous factories: the value is awaited, then registered.
          instance = await this.#running(`${node.module?.name ?? 'app'}: ${node.label}`, () =>
            node.build(args),
          );
          if (this.closed) {
            await this.#closeLate(instance, args);
            throw this.#closedError(node, true);
          }
          if (sharingOf(node) === 'shared') registerValue(this.container, node.key, instance);
          // What the factory passes on (one of its arguments, a given value, an instance
          // of this scope or the app's) is its owner's, as an alias is: not hooked again,
          // not closed here.
          if (this.#passedOn(instance, args)) return instance;
          break;
        default:
          instance = resolveIn(this.container, node.key, args);
      }
    } catch (error) {
      if (error instanceof AgentToolError && error.code === 'CLOSED') throw error;
      throw new AgentToolError(
        'PROVIDER_FAILED',
        `${node.module?.name ?? 'app'}: creating ${node.label} failed: ${errorMessage(error)}`,
        { cause: error },
      );
    }
    if (!HOOKED_KINDS.has(node.kind)) return instance;
    const created: Created = { node, instance, seq: this.#seq++ };
    this.#created.push(created);
    if (typeof instance === 'object' && instance !== null) this.#createdObjects.add(instance);
    // A session starts each instance as it comes; the app starts them all together.
    if (this.kind === 'session') await this.#startEach(created);
    return instance;
  }

  async #running<T>(what: string, work: () => T | Promise<T>): Promise<T> {
    const running: Running = { what, since: sinceStart() };
    this.running.add(running);
    try {
      return await work();
    } finally {
      this.running.delete(running);
    }
  }

  async #startEach(created: Created): Promise<void> {
    for (const hook of ['onModuleInit', 'onApplicationBootstrap'] as const) {
      const { failures } = await callHook(hook, [created], this.plan);
      if (failures[0] !== undefined) throw failures[0].error;
      this.#started.add(created);
    }
  }

  /**
   * Closes a factory's result that came after the scope began closing, which nobody will
   * use; a failure has nobody left to be told (the scope's close() has settled).
   */
  async #closeLate(instance: unknown, args: readonly unknown[]): Promise<void> {
    if (typeof instance !== 'object' || instance === null) return;
    if (this.#passedOn(instance, args) || this.plan.closedObjects.has(instance)) return;
    this.plan.closedObjects.add(instance);
    await closeInstance(instance).catch(() => undefined);
  }

  /** True when a factory's result is not its own: an argument, a given value, a known instance. */
  #passedOn(instance: unknown, args: readonly unknown[]): boolean {
    if (typeof instance !== 'object' || instance === null) return false;
    if (args.includes(instance) || this.plan.givenValues.has(instance)) return true;
    return this.#knows(instance);
  }

  /** True when this scope or an enclosing one built `instance`. */
  #knows(instance: object): boolean {
    if (this.#createdObjects.has(instance)) return true;
    return this.parent !== undefined && this.parent.#knows(instance);
  }

  /**
   * Starts every instance built so far that has not started, in NestJS's order:
   * `onModuleInit` across every module, then `onApplicationBootstrap` across every
   * module, each up to the first group with a failure. Throws that group's failures
   * once each of its calls settled. An instance whose `onModuleInit` did not run or
   * failed has not started: it gets no closing hooks, but is closed.
   */
  async start(): Promise<void> {
    const waiting = this.#created.filter((c) => !this.#started.has(c));
    const call = { running: this.running };
    const init = await callHook('onModuleInit', waiting, this.plan, {
      ...call,
      onDone: (created) => this.#started.add(created),
    });
    const initFailure = startFailure(init.failures);
    if (initFailure !== undefined) throw initFailure;
    const started = waiting.filter((c) => init.done.has(c));
    const bootstrap = await callHook('onApplicationBootstrap', started, this.plan, call);
    const bootstrapFailure = startFailure(bootstrap.failures);
    if (bootstrapFailure !== undefined) throw bootstrapFailure;
  }

  /**
   * Closes the scope, once, without waiting for builds still under way (a factory may
   * never settle): their callers are rejected with `CLOSED` now, and a result that
   * comes later is closed as it comes. In NestJS's order, `onModuleDestroy()` and then
   * `beforeApplicationShutdown(signal)` run on each instance that started; then every
   * instance the scope built that has `close()`, `dispose()` or a dispose symbol is
   * closed, newest first, each object once app-wide; then `onApplicationShutdown(signal)`
   * runs. A call's scope calls no hooks. Failures are joined into one `AggregateError`.
   * A second call returns the first's promise, so it settles only when closing is over.
   */
  close(signal?: string): Promise<void> {
    if (this.#closing === undefined) {
      this.#ending = true;
      this.#end();
      this.#closing = this.#closeAll(signal);
    }
    return this.#closing;
  }

  async #closeAll(signal: string | undefined): Promise<void> {
    const started = this.#created.filter((c) => this.#started.has(c));
    const errors: unknown[] = [];
    const hook = async (name: LifecycleHook): Promise<void> => {
      const { failures } = await callHook(name, started, this.plan, { signal });
      for (const failure of failures) errors.push(failure.error);
    };
    await hook('onModuleDestroy');
    await hook('beforeApplicationShutdown');
    for (const { node, instance } of [...this.#created].reverse()) {
      if (!CLOSED_KINDS.has(node.kind)) continue;
      if (typeof instance !== 'object' || instance === null) continue;
      if (this.plan.closedObjects.has(instance)) continue;
      this.plan.closedObjects.add(instance);
      try {
        await closeInstance(instance);
      } catch (error) {
        errors.push(
          new AgentToolError('CLOSE_FAILED', `closing ${node.label}: ${errorMessage(error)}`, {
            cause: error,
          }),
        );
      }
    }
    await hook('onApplicationShutdown');
    if (errors.length > 0) throw new AggregateError(errors, `closing: ${errors.length} failed`);
  }
}
