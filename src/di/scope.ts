import { type DependencyContainer } from 'tsyringe';
import { AgentToolError, errorMessage } from '../core';
import { type ProviderNode } from './graph';
import { callHook, closeInstance, type Created, type HookOrder } from './lifecycle';
import { type Scope } from './tokens';
import { registerValue, resolveIn } from './tsyringe-adapter';

/** What every scope of one app shares. */
export interface AppPlan extends HookOrder {
  /** Each node's effective scope. */
  readonly scopes: ReadonlyMap<ProviderNode, Scope>;
  /** Objects already closed app-wide, so a shared instance is closed once. */
  readonly closedObjects: WeakSet<object>;
  /** The values given with `useValue`: their giver's to close, never the app's. */
  readonly givenValues: WeakSet<object>;
}

/** What the app closes: instances it built, not values it was given nor aliases. */
const CLOSED_KINDS: ReadonlySet<ProviderNode['kind']> = new Set(['class', 'factory', 'tool']);
/** What lifecycle hooks are called on: every provider and tool, as NestJS does, but aliases. */
const HOOKED_KINDS: ReadonlySet<ProviderNode['kind']> = new Set([
  'class',
  'factory',
  'tool',
  'value',
]);

/**
 * The instances of one scope, the app's or one session's, kept in its tsyringe
 * container (the app's child container, or the session's child of it). Each node is
 * built once, after what it needs: a factory is awaited and its value registered, a
 * class is resolved from the container, which builds it. The scope keeps the order
 * of creation, for the lifecycle hooks and for closing newest first.
 */
export class InstanceScope {
  readonly #pending = new Map<ProviderNode, Promise<unknown>>();
  readonly #created: Created[] = [];
  /** The objects of `#created`, to tell a factory's own result from one it passes on. */
  readonly #createdObjects = new WeakSet<object>();
  /** Instances whose `onModuleInit` has run (or that have none): they get the shutdown hooks. */
  readonly #initialized = new Set<Created>();
  /** Nodes whose build has succeeded: their promise needs no watching for the scope's end. */
  readonly #built = new Set<ProviderNode>();
  /** Resolves when closing starts, ending the wait of callers whose build is still under way. */
  readonly #ended: Promise<void>;
  #end!: () => void;
  #ending = false;
  #closing: Promise<void> | undefined;

  constructor(
    readonly kind: Scope,
    readonly container: DependencyContainer,
    private readonly plan: AppPlan,
    private readonly parent: InstanceScope | undefined,
    /** Whether each instance's `onModuleInit` runs as soon as it is built (sessions). */
    private readonly initEach: boolean,
  ) {
    this.#ended = new Promise((resolve) => (this.#end = resolve));
  }

  /** True once `close()` has been called. */
  get closed(): boolean {
    return this.#ending;
  }

  /**
   * The instance of `node` in this scope, built on first use with what it needs; an
   * app-scoped node asked of a session comes from the app. In a session the instance's
   * `onModuleInit` has run when this resolves. A build that fails is not kept: the next
   * call builds again.
   */
  resolve(node: ProviderNode): Promise<unknown> {
    if (this.parent !== undefined && this.plan.scopes.get(node) !== 'session') {
      return this.parent.resolve(node);
    }
    if (this.closed) return Promise.reject(this.#closedError(node));
    let pending = this.#pending.get(node);
    if (pending === undefined) {
      const building = this.#build(node);
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
    // Closing does not wait for a build (a factory may never settle): its callers are
    // told the scope ended, and a result that comes later is closed as it comes.
    return Promise.race([
      pending,
      this.#ended.then(() => {
        throw this.#closedError(node, true);
      }),
    ]);
  }

  #closedError(node: ProviderNode, building = false): AgentToolError {
    const ended = this.kind === 'app' ? 'app was closed' : 'session ended';
    return new AgentToolError(
      'CLOSED',
      building
        ? `${node.label}: the ${ended} while it was being built`
        : `${node.label}: the ${this.kind === 'app' ? 'app is closed' : 'session has ended'}`,
    );
  }

  async #build(node: ProviderNode): Promise<unknown> {
    const args: unknown[] = [];
    for (const dep of node.deps) args.push(dep === undefined ? undefined : await this.resolve(dep));
    if (this.closed) throw this.#closedError(node, true);
    let instance: unknown;
    try {
      if (node.kind === 'factory') {
        // tsyringe has no asynchronous factories: the value is awaited, then registered.
        instance = await node.build(args);
        if (this.closed) {
          await this.#closeLate(instance, args);
          throw this.#closedError(node, true);
        }
        registerValue(this.container, node.key, instance);
        // What the factory passes on (one of its arguments, a given value, an instance
        // of this scope or the app's) is its owner's, as an alias is: not hooked again,
        // not closed here.
        if (this.#passedOn(instance, args)) return instance;
      } else {
        instance = resolveIn(this.container, node.key);
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
    const created: Created = { node, instance };
    this.#created.push(created);
    if (typeof instance === 'object' && instance !== null) this.#createdObjects.add(instance);
    if (this.initEach) {
      const {
        failures: [failure],
      } = await callHook('onModuleInit', [created], this.plan);
      if (failure !== undefined) throw failure.error;
      this.#initialized.add(created);
    }
    return instance;
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
   * Calls `onModuleInit` on every instance built so far whose hook has not run, in
   * NestJS's order, up to the first group with a failure; throws that failure once
   * every call of its group settled. Instances whose hook did not run or failed are
   * not initialized: they get no shutdown hooks, but are closed.
   */
  async initialize(): Promise<void> {
    const waiting = this.#created.filter((c) => !this.#initialized.has(c));
    const { failures, unreached } = await callHook('onModuleInit', waiting, this.plan);
    const left = new Set([...failures.map((f) => f.created), ...unreached]);
    for (const created of waiting) if (!left.has(created)) this.#initialized.add(created);
    if (failures[0] !== undefined) throw failures[0].error;
  }

  /**
   * Closes the scope, once, without waiting for builds still under way (a factory may
   * never settle): their callers are rejected with `CLOSED` now, and a result that
   * comes later is closed as it comes. In NestJS's order, `onModuleDestroy()` and
   * `beforeApplicationShutdown()` run on each instance that was initialized; then every instance the scope built that has `close()`,
   * `dispose()` or a dispose symbol is closed, newest first, each object once app-wide.
   * Failures are joined into one `AggregateError`. A second call returns the first's
   * promise, so it settles only when closing is over.
   */
  close(): Promise<void> {
    if (this.#closing === undefined) {
      this.#ending = true;
      this.#end();
      this.#closing = this.#closeAll();
    }
    return this.#closing;
  }

  async #closeAll(): Promise<void> {
    const initialized = this.#created.filter((c) => this.#initialized.has(c));
    const errors: unknown[] = [];
    for (const hook of ['onModuleDestroy', 'beforeApplicationShutdown'] as const) {
      const { failures } = await callHook(hook, initialized, this.plan);
      for (const failure of failures) errors.push(failure.error);
    }
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
    if (errors.length > 0) throw new AggregateError(errors, `closing: ${errors.length} failed`);
  }
}
