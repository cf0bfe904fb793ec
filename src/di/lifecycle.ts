import { AgentToolError, errorMessage } from '../core';
import { type ProviderNode } from './graph';

/** `onModuleInit()`: called once the app (or the session) has built the instance. */
export interface OnModuleInit {
  onModuleInit(): unknown;
}

/** `onModuleDestroy()`: called first when the app (or the session) closes. */
export interface OnModuleDestroy {
  onModuleDestroy(): unknown;
}

/** `beforeApplicationShutdown()`: called after every `onModuleDestroy()`, before closing. */
export interface BeforeApplicationShutdown {
  beforeApplicationShutdown(signal?: string): unknown;
}

/** A hook that threw, and the instance it was called on. */
export interface HookFailure {
  readonly created: Created;
  readonly error: AgentToolError;
}

export type LifecycleHook = 'onModuleInit' | 'onModuleDestroy' | 'beforeApplicationShutdown';

/** One instance a scope built, as its hooks and closing need it. */
export interface Created {
  readonly node: ProviderNode;
  readonly instance: unknown;
}

/** Where the hooks of an instance are ordered from: its module's rank and its level. */
export interface HookOrder {
  /**
   * Its module's place in the order `onModuleInit` goes through the modules: the
   * farthest from the root first, modules at one distance in the order they were found.
   */
  moduleRankOf(node: ProviderNode): number;
  /** How deep it sits in its dependency tree (0 for one that needs nothing). */
  levelOf(node: ProviderNode): number;
}

/** What {@link callHook} did: the failures, and the instances it did not get to. */
export interface HookOutcome {
  readonly failures: HookFailure[];
  /** Instances of the groups after a failed `onModuleInit` group: never called. */
  readonly unreached: Created[];
}

/**
 * Calls `hook` on every instance that has it, in NestJS's order
 * (`NestApplicationContext.callInitHook` / `callDestroyHook` and
 * `hooks/on-module-init.hook.ts` in @nestjs/core 11): module by module, the module
 * farthest from the root first when starting (modules at one distance in the order
 * they were found), and in the reverse order when shutting down; inside a module, level by level (an instance after what it depends on when starting,
 * before it when shutting down), the instances of one level at once. An object is
 * called once however often it was provided. Each group is settled before the next
 * starts. `onModuleInit` stops after the first group with a failure, as NestJS does
 * (what needs a failed instance is not initialized against it); the shutdown hooks run
 * on every group. Failures come back each as a `HOOK_FAILED` error.
 */
export async function callHook(
  hook: LifecycleHook,
  created: readonly Created[],
  order: HookOrder,
): Promise<HookOutcome> {
  const starting = hook === 'onModuleInit';
  const groups = new Map<string, { rank: number; level: number; members: Created[] }>();
  for (const entry of created) {
    const rank = order.moduleRankOf(entry.node);
    const level = order.levelOf(entry.node);
    const key = `${rank}:${level}`;
    let group = groups.get(key);
    if (group === undefined) {
      group = { rank, level, members: [] };
      groups.set(key, group);
    }
    group.members.push(entry);
  }
  const sign = starting ? 1 : -1;
  const ordered = [...groups.values()].sort(
    (a, b) => sign * (a.rank - b.rank) || sign * (a.level - b.level),
  );
  const failures: HookFailure[] = [];
  const seen = new Set<object>();
  for (const [at, group] of ordered.entries()) {
    if (starting && failures.length > 0) {
      return { failures, unreached: ordered.slice(at).flatMap((g) => g.members) };
    }
    const called = group.members.filter(({ instance }) => {
      if (typeof instance !== 'object' || instance === null || seen.has(instance)) return false;
      if (typeof (instance as Record<string, unknown>)[hook] !== 'function') return false;
      seen.add(instance);
      return true;
    });
    const results = await Promise.allSettled(
      called.map(async ({ instance }) => {
        await (instance as Record<LifecycleHook, () => unknown>)[hook]();
      }),
    );
    results.forEach((result, i) => {
      if (result.status === 'fulfilled') return;
      const member = called[i]!;
      const { node } = member;
      failures.push({
        created: member,
        error: new AgentToolError(
          'HOOK_FAILED',
          `${node.module?.name ?? 'app'}: ${node.label}.${hook}() failed: ${errorMessage(result.reason)}`,
          { cause: result.reason },
        ),
      });
    });
  }
  return { failures, unreached: [] };
}

/** The ways an instance says it owns something: `close()`, `dispose()`, or the dispose symbols. */
export async function closeInstance(instance: unknown): Promise<boolean> {
  if (typeof instance !== 'object' || instance === null) return false;
  const target = instance as Record<string | symbol, unknown>;
  for (const key of ['close', 'dispose', Symbol.asyncDispose, Symbol.dispose]) {
    const method = target[key];
    if (typeof method === 'function') {
      await (method as () => unknown).call(instance);
      return true;
    }
  }
  return false;
}
