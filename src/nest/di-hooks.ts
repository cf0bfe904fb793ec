import { AgentToolError, errorMessage } from 'agenttool';
import { type HookPlace } from 'agenttool/di';

/** The five lifecycle hooks, in the order of a life. */
export type LifecycleHook =
  | 'onModuleInit'
  | 'onApplicationBootstrap'
  | 'onModuleDestroy'
  | 'beforeApplicationShutdown'
  | 'onApplicationShutdown';

/** One instance an agenttool/di app built (or was given) under NestJS, as its hooks need it. */
export interface Hooked {
  readonly instance: unknown;
  /** Its module's name and its label, for errors: `DataModule`, `Store`. */
  readonly module: string;
  readonly label: string;
  /** Where its hooks come in NestJS's order. */
  readonly place: HookPlace;
  /** A module class: called last in its module, in both directions. */
  readonly last: boolean;
  /** Its place in the order of creation, for instances of one provider (transient). */
  readonly seq: number;
}

/** What {@link callHooks} did. */
export interface HooksOutcome {
  /** Each hook that threw, as `HOOK_FAILED` naming its module and class. */
  readonly failures: AgentToolError[];
}

/**
 * Calls `hook` on each of `entries` that has it, in the order `ToolApp` calls it
 * (NestJS 12.5's): module by module, level by level, the module class last in its
 * module, ascending when starting and descending when closing, the instances of one
 * level at once in the order their module lists them, an object once. A starting hook
 * stops after the first level with a failure; a closing hook runs on every level.
 */
export async function callHooks(
  hook: LifecycleHook,
  entries: readonly Hooked[],
  signal?: string,
): Promise<HooksOutcome> {
  const starting = hook === 'onModuleInit' || hook === 'onApplicationBootstrap';
  const sign = starting ? 1 : -1;
  const groups = new Map<string, Hooked[]>();
  for (const entry of entries) {
    const key = `${entry.place.moduleRank}:${entry.last}:${entry.last ? 0 : entry.place.level}`;
    groups.set(key, [...(groups.get(key) ?? []), entry]);
  }
  const rank = (entry: Hooked): [number, number, number] => [
    entry.place.moduleRank,
    Number(entry.last),
    entry.last ? 0 : entry.place.level,
  ];
  const ordered = [...groups.values()].sort((a, b) => {
    const [ra, la, va] = rank(a[0]!);
    const [rb, lb, vb] = rank(b[0]!);
    return sign * (ra - rb) || la - lb || sign * (va - vb);
  });
  const failures: AgentToolError[] = [];
  const seen = new Set<object>();
  for (const group of ordered) {
    if (starting && failures.length > 0) break;
    const members = [...group].sort((a, b) => a.place.position - b.place.position || a.seq - b.seq);
    const called = members.filter(({ instance }) => {
      if (typeof instance !== 'object' || instance === null || seen.has(instance)) return false;
      seen.add(instance);
      return typeof (instance as Record<string, unknown>)[hook] === 'function';
    });
    const results = await Promise.allSettled(
      called.map(async ({ instance }) => {
        const target = instance as Record<LifecycleHook, (signal?: string) => unknown>;
        await (hook === 'beforeApplicationShutdown' || hook === 'onApplicationShutdown'
          ? target[hook](signal)
          : target[hook]());
      }),
    );
    results.forEach((result, i) => {
      if (result.status === 'rejected') failures.push(hookError(hook, called[i]!, result.reason));
    });
  }
  return { failures };
}

/** `HOOK_FAILED`: `DataModule: Store.onModuleInit() failed: <why>`. */
export function hookError(hook: LifecycleHook, entry: Hooked, reason: unknown): AgentToolError {
  return new AgentToolError(
    'HOOK_FAILED',
    `${entry.module}: ${entry.label}.${hook}() failed: ${errorMessage(reason)}`,
    { cause: reason },
  );
}
