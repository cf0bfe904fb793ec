import { AgentToolError, errorMessage } from 'agenttool';
import { callHooks, type Hooked, type LifecycleHook } from './di-hooks';

/** Closes each of `instances` not closed yet, in order, and gives back the failures. */
export async function closeEach(
  instances: readonly object[],
  closed: WeakSet<object> = new WeakSet(),
): Promise<unknown[]> {
  const errors: unknown[] = [];
  for (const instance of instances) {
    if (closed.has(instance)) continue;
    closed.add(instance);
    const target = instance as Record<string | symbol, unknown>;
    const key = ['close', 'dispose', Symbol.asyncDispose, Symbol.dispose].find(
      (k) => typeof target[k] === 'function',
    );
    if (key === undefined) continue;
    try {
      await (target[key] as () => unknown).call(instance);
    } catch (error) {
      errors.push(
        new AgentToolError(
          'CLOSE_FAILED',
          `closing ${instance.constructor.name}: ${errorMessage(error)}`,
          { cause: error },
        ),
      );
    }
  }
  return errors;
}

/**
 * The instances one session made for one app, as `ToolApp` keeps a session's: each
 * started (`onModuleInit`, `onApplicationBootstrap`) as soon as it is built, and all
 * closed when the session ends: `onModuleDestroy`, `beforeApplicationShutdown`, closing
 * (`close()`, `dispose()`), `onApplicationShutdown`, in NestJS's order.
 */
export class SessionScope {
  readonly #created: Hooked[] = [];
  readonly #started = new Set<Hooked>();
  #closing: Promise<void> | undefined;
  #end!: () => void;
  /** Resolves when the session's closing starts. */
  readonly ended = new Promise<void>((resolve) => (this.#end = resolve));

  constructor(private readonly closedObjects: WeakSet<object>) {}

  /** True once closing has started. */
  get closed(): boolean {
    return this.#closing !== undefined;
  }

  /** Keeps `entry` and starts it; a starting hook that throws is thrown (`HOOK_FAILED`). */
  async add(entry: Hooked): Promise<void> {
    this.#created.push(entry);
    for (const hook of ['onModuleInit', 'onApplicationBootstrap'] as const) {
      const { failures } = await callHooks(hook, [entry]);
      if (failures[0] !== undefined) throw failures[0];
      this.#started.add(entry);
    }
  }

  /** Closes, once; a second call returns the first's promise. */
  close(signal?: string): Promise<void> {
    if (this.#closing === undefined) {
      this.#end();
      const started = this.#created.filter((entry) => this.#started.has(entry));
      this.#closing = closeScope(started, this.#created, this.closedObjects, signal);
    }
    return this.#closing;
  }
}

/**
 * Runs the closing of what a scope built: `onModuleDestroy` and then
 * `beforeApplicationShutdown(signal)` on what started, closing `closable` (newest
 * first, each object once), then `onApplicationShutdown(signal)`; failures joined.
 */
export async function closeScope(
  started: readonly Hooked[],
  closable: readonly Hooked[],
  closedObjects: WeakSet<object>,
  signal: string | undefined,
): Promise<void> {
  const errors: unknown[] = [];
  const hook = async (name: LifecycleHook): Promise<void> => {
    errors.push(...(await callHooks(name, started, signal)).failures);
  };
  await hook('onModuleDestroy');
  await hook('beforeApplicationShutdown');
  const objects = closable
    .map((entry) => entry.instance)
    .filter((instance): instance is object => typeof instance === 'object' && instance !== null);
  errors.push(...(await closeEach(objects.reverse(), closedObjects)));
  await hook('onApplicationShutdown');
  if (errors.length > 0) throw new AggregateError(errors, `closing: ${errors.length} failed`);
}
