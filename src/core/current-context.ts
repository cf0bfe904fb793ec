import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { type Call, type ToolContext } from './context';
import { type Result } from './result';
import { type Tool } from './tool';

// The call being served, for code deep inside it: kept apart from context.ts, which
// defines what a context is, because running a tool in one needs the Tool as well.
const storage = new AsyncLocalStorage<ToolContext>();

/** The context of the call being served, for code deep inside it; undefined outside a call. */
export function currentContext(): ToolContext | undefined {
  return storage.getStore();
}

/** Runs `fn` with `ctx` as the {@link currentContext} for everything it awaits. */
export function runWithContext<T>(ctx: ToolContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

/**
 * Runs functions with a context as the {@link currentContext}, many in a row (such as
 * one batch's jobs); see {@link contextRunner}.
 */
export interface ContextRunner {
  /** Runs `fn` with `ctx` current. */
  run<T>(ctx: ToolContext, fn: () => T): T;
  /** `tool.execute(call, ctx)` with `ctx` current, without a closure per call. */
  execute(ctx: ToolContext, tool: Tool, call: Call): Result | Promise<Result>;
}

function enterAndRun<T>(ctx: ToolContext, fn: () => T): T {
  storage.enterWith(ctx);
  return fn();
}

function enterAndExecute(ctx: ToolContext, tool: Tool, call: Call): Result | Promise<Result> {
  storage.enterWith(ctx);
  return tool.execute(call, ctx);
}

function executeIn(ctx: ToolContext, tool: Tool, call: Call): Result | Promise<Result> {
  return tool.execute(call, ctx);
}

/**
 * A {@link runWithContext} for many calls in a row, such as one batch's jobs: each call
 * runs with `ctx` as the current context. Where AsyncLocalStorage is built on
 * AsyncContextFrame (Node 24), `run()` copies the context twice per call and this
 * once: `enterWith` inside `runInAsyncScope`, which restores the outer context after;
 * each call then runs in the async context that was current when the runner was made
 * (the other async-local state a call sees is the batch's, whatever path reaches it).
 */
export function contextRunner(): ContextRunner {
  // Where AsyncLocalStorage sits on async hooks, run() is the cheaper.
  if (!FRAMES) {
    return {
      run: runWithContext,
      execute: (ctx, tool, call) => storage.run(ctx, executeIn, ctx, tool, call),
    };
  }
  const scope = new AsyncResource('agenttool.batch');
  return {
    run: <T>(ctx: ToolContext, fn: () => T): T =>
      scope.runInAsyncScope(enterAndRun<T>, null, ctx, fn),
    execute: (ctx, tool, call) => scope.runInAsyncScope(enterAndExecute, null, ctx, tool, call),
  };
}

/**
 * Whether AsyncLocalStorage is built on AsyncContextFrame: the default from Node 24, and on
 * Node 22 with `--experimental-async-context-frame`. The hook-based storage keeps an
 * `enabled` flag on each instance; the frame-based one has no own state.
 */
const FRAMES = !Object.hasOwn(storage, 'enabled');
