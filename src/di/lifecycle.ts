import { AgentToolError, errorMessage } from '../core';
import { type ProviderNode } from './graph';

/** `onModuleInit()`: called once the app (or the session) has built the instance. */
export interface OnModuleInit {
  onModuleInit(): unknown;
}

/**
 * `onApplicationBootstrap()`: called once every instance of the app has had its
 * `onModuleInit()`, before `ToolApp.create` returns (so before the app serves).
 */
export interface OnApplicationBootstrap {
  /** Awaited when it returns a promise; a throw fails the start. */
  onApplicationBootstrap(): unknown;
}

/** `onModuleDestroy()`: called first when the app (or the session) closes. */
export interface OnModuleDestroy {
  onModuleDestroy(): unknown;
}

/**
 * `beforeApplicationShutdown(signal)`: called after every `onModuleDestroy()`, before
 * the app closes what it built. `signal` is what `app.close(signal)` was given (the
 * signal's name when a signal closed the app), else undefined.
 */
export interface BeforeApplicationShutdown {
  beforeApplicationShutdown(signal?: string): unknown;
}

/**
 * `onApplicationShutdown(signal)`: called last, once the app has closed what it built
 * (`close()`, `dispose()`): the place to release what those closings still used.
 */
export interface OnApplicationShutdown {
  /** Awaited when it returns a promise; a throw is reported by `close()`, after the others ran. */
  onApplicationShutdown(signal?: string): unknown;
}

/** The hooks, in the order of a life: two when starting, three when closing. */
export type LifecycleHook =
  | 'onModuleInit'
  | 'onApplicationBootstrap'
  | 'onModuleDestroy'
  | 'beforeApplicationShutdown'
  | 'onApplicationShutdown';

/** The hooks that start an instance's life: a failure stops the start. */
const STARTING: ReadonlySet<LifecycleHook> = new Set(['onModuleInit', 'onApplicationBootstrap']);

/** One instance a scope built, as its hooks and closing need it. */
export interface Created {
  readonly node: ProviderNode;
  readonly instance: unknown;
  /** Its place in the order of creation of its scope, for instances of one node (transient). */
  readonly seq: number;
}

/** A hook that threw, and the instance it was called on. */
export interface HookFailure {
  readonly created: Created;
  readonly error: AgentToolError;
}

/** Where the hooks of an instance are ordered from. */
export interface HookOrder {
  /**
   * Its module's place in the order the starting hooks go through the modules: the
   * farthest from the root first, modules at one distance in the order they were found.
   */
  moduleRankOf(node: ProviderNode): number;
  /** Its hierarchy level, as NestJS counts it: 0 for a value, else one more than its deepest dependency's. */
  levelOf(node: ProviderNode): number;
  /** Its place in its module's lists: guards first, then providers, then the other tools. */
  positionOf(node: ProviderNode): number;
}

/** A hook under way, for the error of a start that does not finish. */
export interface Running {
  readonly what: string;
  /** When it began, in {@link sinceStart}'s milliseconds. */
  readonly since: number;
}

/**
 * A monotonic clock in milliseconds, for how long something has been running: read from
 * `process.hrtime` rather than `performance.now()`, whose first use loads node:perf_hooks
 * and its nine modules (0.8 ms of a workspace's start, where nothing else reads it).
 */
export function sinceStart(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** What {@link callHook} did: the failures, and the instances it did not get to. */
export interface HookOutcome {
  readonly failures: HookFailure[];
  /** Instances whose hook succeeded (or that have none): the others failed or were not reached. */
  readonly done: Set<Created>;
}

/** How a hook is called: with the closing signal, and where to note the calls under way. */
export interface HookCall {
  readonly signal?: string | undefined;
  readonly running?: Set<Running> | undefined;
  /**
   * Told of each instance as soon as its hook succeeded (or at once when it has none),
   * not when its group is over: a start that is given up on still knows who started.
   */
  readonly onDone?: ((created: Created) => void) | undefined;
}

interface HookGroup {
  readonly rank: number;
  /** The module class's own group comes after its module's levels, in both directions. */
  readonly last: boolean;
  readonly level: number;
  readonly members: Created[];
}

/**
 * Calls `hook` on every instance that has it, in NestJS 12.5's order
 * (`NestApplicationContext.callInitHook` and its kin, and `hooks/*.hook.ts` in
 * @nestjs/core): module by module, the module farthest from the root first when
 * starting (modules at one distance in the order they were found), in the reverse order
 * when closing; inside a module, level by level (an instance after what it depends on
 * when starting, before it when closing), the instances of one level at once, in the
 * order their module lists them, and the module class itself last in both directions.
 * An object is called once however often it was provided. Each group is settled before
 * the next starts. A starting hook stops after the first group with a failure, every
 * failure of that group reported (what depends on a failed instance is not started
 * against it); the closing hooks run on every group. Failures come back each as a
 * `HOOK_FAILED` error naming the module and the class.
 */
export async function callHook(
  hook: LifecycleHook,
  created: readonly Created[],
  order: HookOrder,
  call: HookCall = {},
): Promise<HookOutcome> {
  const starting = STARTING.has(hook);
  const groups = new Map<string, HookGroup>();
  for (const entry of created) {
    const rank = order.moduleRankOf(entry.node);
    const last = entry.node.kind === 'module';
    const level = last ? 0 : order.levelOf(entry.node);
    const key = `${rank}:${last}:${level}`;
    let group = groups.get(key);
    if (group === undefined) {
      group = { rank, last, level, members: [] };
      groups.set(key, group);
    }
    group.members.push(entry);
  }
  const sign = starting ? 1 : -1;
  const ordered = [...groups.values()].sort(
    (a, b) =>
      sign * (a.rank - b.rank) || Number(a.last) - Number(b.last) || sign * (a.level - b.level),
  );
  const failures: HookFailure[] = [];
  const done = new Set<Created>();
  const markDone = (member: Created): void => {
    done.add(member);
    call.onDone?.(member);
  };
  const seen = new Set<object>();
  for (const group of ordered) {
    if (starting && failures.length > 0) break;
    const members = [...group.members].sort(
      (a, b) => order.positionOf(a.node) - order.positionOf(b.node) || a.seq - b.seq,
    );
    const called = members.filter((member) => {
      const { instance } = member;
      if (typeof instance !== 'object' || instance === null || seen.has(instance)) {
        markDone(member);
        return false;
      }
      seen.add(instance);
      if (typeof (instance as Record<string, unknown>)[hook] !== 'function') {
        markDone(member);
        return false;
      }
      return true;
    });
    const results = await Promise.allSettled(
      called.map(async (member) => {
        await runHook(hook, member, call);
        markDone(member);
      }),
    );
    results.forEach((result, i) => {
      if (result.status === 'fulfilled') return;
      const member = called[i]!;
      failures.push({ created: member, error: hookError(hook, member.node, result.reason) });
    });
  }
  return { failures, done };
}

async function runHook(hook: LifecycleHook, member: Created, call: HookCall): Promise<void> {
  const target = member.instance as Record<LifecycleHook, (signal?: string) => unknown>;
  const running: Running = { what: `${hookName(member.node, hook)}`, since: sinceStart() };
  call.running?.add(running);
  try {
    await (hook === 'beforeApplicationShutdown' || hook === 'onApplicationShutdown'
      ? target[hook](call.signal)
      : target[hook]());
  } finally {
    call.running?.delete(running);
  }
}

function hookName(node: ProviderNode, hook: LifecycleHook): string {
  return `${node.module?.name ?? 'app'}: ${node.label}.${hook}()`;
}

function hookError(hook: LifecycleHook, node: ProviderNode, reason: unknown): AgentToolError {
  return new AgentToolError(
    'HOOK_FAILED',
    `${hookName(node, hook)} failed: ${errorMessage(reason)}`,
    { cause: reason },
  );
}

/**
 * The error of a starting hook's failures: the one failure's own error, or one
 * `HOOK_FAILED` error listing them all (each with its module and class), whose cause is
 * an `AggregateError` of them.
 */
export function startFailure(failures: readonly HookFailure[]): AgentToolError | undefined {
  const [first] = failures;
  if (first === undefined) return undefined;
  if (failures.length === 1) return first.error;
  const errors = failures.map((f) => f.error);
  return new AgentToolError(
    'HOOK_FAILED',
    `${failures.length} hooks failed:\n${errors.map((e) => `  - ${e.message}`).join('\n')}`,
    { cause: new AggregateError(errors, `${failures.length} hooks failed`) },
  );
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
