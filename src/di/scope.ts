import { AgentToolError } from '../core';
import { type ProviderNode } from './graph';
import { type Scope } from './tokens';

/** The ways an instance says it owns something: `close()`, `dispose()`, or the dispose symbols. */
export async function closeInstance(instance: unknown): Promise<boolean> {
  if (typeof instance !== 'object' || instance === null) return false;
  const target = instance as Record<string | symbol, unknown>;
  const asyncDispose = (Symbol as { asyncDispose?: symbol }).asyncDispose;
  const dispose = (Symbol as { dispose?: symbol }).dispose;
  for (const key of ['close', 'dispose', asyncDispose, dispose]) {
    if (key === undefined) continue;
    const method = target[key];
    if (typeof method === 'function') {
      await (method as () => unknown).call(instance);
      return true;
    }
  }
  return false;
}

const CLOSED_KINDS: ReadonlySet<ProviderNode['kind']> = new Set(['class', 'factory', 'tool']);

/**
 * The instances of one scope (the app's, or one session's): each built once, on first
 * use, after what it needs; closed in reverse order of creation.
 */
export class InstanceScope {
  readonly #instances = new Map<ProviderNode, Promise<unknown>>();
  readonly #created: { node: ProviderNode; instance: unknown }[] = [];
  #closed = false;
  #closing: Promise<void> | undefined;

  constructor(
    readonly kind: Scope,
    private readonly scopes: ReadonlyMap<ProviderNode, Scope>,
    private readonly parent: InstanceScope | undefined,
    /** Objects already closed app-wide, so a shared instance is closed once. */
    private readonly closedObjects: WeakSet<object>,
  ) {}

  /** The instance of `node` for this scope; app-scoped nodes come from the app's scope. */
  resolve(node: ProviderNode): Promise<unknown> {
    if (this.kind === 'session' && this.scopes.get(node) !== 'session' && this.parent) {
      return this.parent.resolve(node);
    }
    if (this.#closed) {
      return Promise.reject(
        new AgentToolError(
          'CANCELLED',
          `${node.label}: the ${this.kind === 'app' ? 'app is closed' : 'session has ended'}`,
        ),
      );
    }
    let pending = this.#instances.get(node);
    if (pending === undefined) {
      pending = this.#build(node);
      this.#instances.set(node, pending);
    }
    return pending;
  }

  async #build(node: ProviderNode): Promise<unknown> {
    const args: unknown[] = [];
    for (const dep of node.deps) args.push(await this.resolve(dep));
    let instance: unknown;
    try {
      instance = await node.build(args);
    } catch (error) {
      throw new AgentToolError(
        'INVALID_MODULE',
        `${node.module?.name ?? 'app'}: creating ${node.label} failed: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    if (CLOSED_KINDS.has(node.kind)) this.#created.push({ node, instance });
    return instance;
  }

  /**
   * Closes every instance this scope created, newest first, each once; errors joined.
   * Every call returns the first call's promise, so a second caller waits until the
   * scope is closed rather than returning while the first is still closing.
   */
  close(): Promise<void> {
    this.#closing ??= this.#closeAll();
    return this.#closing;
  }

  async #closeAll(): Promise<void> {
    this.#closed = true;
    // Let builds still under way finish, so what they create is closed too.
    await Promise.allSettled(this.#instances.values());
    const errors: unknown[] = [];
    for (const { node, instance } of [...this.#created].reverse()) {
      if (typeof instance !== 'object' || instance === null) continue;
      if (this.closedObjects.has(instance)) continue;
      this.closedObjects.add(instance);
      try {
        await closeInstance(instance);
      } catch (error) {
        errors.push(
          new AgentToolError(
            'INVALID_MODULE',
            `closing ${node.label}: ${error instanceof Error ? error.message : String(error)}`,
            { cause: error },
          ),
        );
      }
    }
    if (errors.length > 0) throw new AggregateError(errors, `closing: ${errors.length} failed`);
  }
}
