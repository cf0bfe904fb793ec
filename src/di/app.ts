import 'reflect-metadata';
import { type DependencyContainer } from 'tsyringe';
import {
  AgentToolError,
  type Call,
  type Constructor,
  createContext,
  type Elicitor,
  type FunctionToolDefinition,
  type RecordFunc,
  type Session,
  type Tool,
  type ToolContext,
  ToolSet,
} from '../core';
import {
  type CanActivate,
  classTool,
  DecoratorError,
  isToolClass,
  type ToolBuildOptions,
  toolDescriptorOf,
  toolFromInstance,
} from '../decorators';
import {
  type ExecuteOptions,
  Executor,
  type ExecutorEvent,
  type Job,
  type JobOutcome,
  type OnStart,
} from '../executor';
import { ModuleError, type ModuleProblem } from './errors';
import { addGuardNodes, type AppGraph, type ProviderNode, readModules } from './graph';
import {
  allNodes,
  dependencyOrder,
  effectiveScopes,
  hierarchyLevels,
  linkGraph,
  visibleIn,
} from './link';
import { type AppPlan, InstanceScope } from './scope';
import { type Token, tokenName } from './tokens';
import { checkGuardScopes, ModuleGuards } from './module-guards';
import { exposeRootTokens, register } from './registration';
import { appContainer } from './tsyringe-adapter';

/** How an app runs its tools. */
export interface ToolAppOptions {
  /** The bound on tools running at once (default 8). */
  readonly maxParallel?: number | undefined;
  /** Run every batch one call at a time. */
  readonly sequential?: boolean | undefined;
  /** Where records go, for every batch that does not bring its own. */
  readonly recorder?: RecordFunc | undefined;
  /** Who answers the tools' questions, for every batch that does not bring its own. */
  readonly elicitor?: Elicitor | undefined;
  /** Called the moment each call is handed to its tool; a throw refuses the call. */
  readonly onStart?: OnStart | undefined;
}

/** What one batch of an app runs with, besides its jobs. */
export interface AppBatchOptions {
  readonly signal?: AbortSignal | undefined;
  /** This batch's recorder; wins over the app's. */
  readonly recorder?: RecordFunc | undefined;
  /** This batch's elicitor; wins over the app's. */
  readonly elicitor?: Elicitor | undefined;
  /** The client session the batch serves (session-scoped providers are per session). */
  readonly session?: Session | undefined;
}

let callCounter = 0;

/**
 * An app: the tools of a root `@Module` and everything they inject, built by tsyringe
 * in a child container of its own (never the global one, so two apps share nothing),
 * with an executor to run batches and `close()` to close what it created.
 */
export class ToolApp {
  /** The app's tools, validated (non-empty, unique names). */
  readonly tools: ToolSet;
  /** The executor batches run on, configured from the options. */
  readonly executor: Executor;
  /**
   * The app's own tsyringe container (a child of tsyringe's global container). It
   * holds every provider of the app under keys of its own, and resolves each app-scoped
   * token the root module sees to the app's instance: `app.container.resolve(Config)`.
   * Each session gets a child of it.
   */
  readonly container: DependencyContainer;
  readonly #options: ToolAppOptions;
  readonly #plan: AppPlan;
  readonly #graph: AppGraph;
  readonly #appScope: InstanceScope;
  readonly #sessions = new WeakMap<Session, InstanceScope>();
  readonly #liveSessions = new Set<InstanceScope>();
  #defaultSession: InstanceScope | undefined;
  #closing: Promise<void> | undefined;

  private constructor(init: {
    graph: AppGraph;
    plan: AppPlan;
    appScope: InstanceScope;
    options: ToolAppOptions;
    tools: Tool[];
  }) {
    this.#graph = init.graph;
    this.#plan = init.plan;
    this.#appScope = init.appScope;
    this.#options = init.options;
    this.container = init.appScope.container;
    this.tools = new ToolSet(init.tools);
    this.executor = new Executor({
      maxParallel: init.options.maxParallel,
      sequential: init.options.sequential,
      onStart: init.options.onStart,
    });
  }

  /**
   * Builds the app of `rootModule`. Everything is checked first, before anything is
   * built: the modules, every dependency and every tool class, all problems reported
   * together in one {@link ModuleError}. Then tsyringe builds the app-scoped providers
   * and tools in dependency order in the app's container (an async factory is awaited
   * before what needs it is built), and `onModuleInit()` runs on each in NestJS's
   * order. A failure closes what was built and rejects:
   * `PROVIDER_FAILED` when a constructor or factory threw, `HOOK_FAILED` when
   * `onModuleInit()` did.
   */
  static async create(rootModule: Constructor, options: ToolAppOptions = {}): Promise<ToolApp> {
    const graph = readModules(rootModule, isToolClass);
    addGuardNodes(graph);
    linkGraph(graph);
    checkTools(graph);
    const scopes = effectiveScopes(graph);
    checkGuardScopes(graph, scopes);
    if (graph.problems.length > 0) throw new ModuleError(rootModule.name, graph.problems);

    const levels = hierarchyLevels(graph);
    // NestJS's order of modules for the hooks: by distance, farthest first, then as found.
    const ranks = new Map(
      [...graph.modules].sort((a, b) => b.distance - a.distance).map((m, i) => [m, i]),
    );
    const plan: AppPlan = {
      scopes,
      closedObjects: new WeakSet(),
      givenValues: givenValues(graph),
      moduleRankOf: (node) => (node.module === undefined ? 0 : (ranks.get(node.module) ?? 0)),
      levelOf: (node) => levels.get(node) ?? 0,
    };
    const container = appContainer();
    register(container, graph, plan);
    const appScope = new InstanceScope('app', container, plan, undefined, false);
    let app: ToolApp | undefined;
    try {
      // Every app-scoped provider and tool is built now, in dependency order, and
      // initialized once all are built, as NestJS does.
      for (const node of dependencyOrder(allNodes(graph))) {
        if (scopes.get(node) === 'app') await appScope.resolve(node);
      }
      await appScope.initialize();
      const guards = new Map<ProviderNode, CanActivate>();
      for (const module of graph.modules) {
        for (const node of module.guards.values()) {
          guards.set(node, (await appScope.resolve(node)) as CanActivate);
        }
      }
      const guarding = new ModuleGuards(graph, guards);
      const tools: Tool[] = [];
      for (const module of graph.modules) {
        const build = guarding.buildOptions(module);
        for (const node of module.tools) {
          tools.push(
            scopes.get(node) === 'app'
              ? toolFromInstance((await appScope.resolve(node)) as object, build)
              : sessionTool(node, (ctx) => app!.#scopeFor(ctx.session), build),
          );
        }
      }
      exposeRootTokens(container, graph, plan);
      // The tool set was validated with the modules (checkTools): same classes, same names.
      app = new ToolApp({ graph, plan, appScope, options, tools });
      return app;
    } catch (error) {
      await appScope.close().catch(() => undefined);
      throw error;
    }
  }

  /**
   * Where the app's records go: the `recorder` it was created with. Every host that runs
   * the app's tools uses it unless given another: a batch (`execute`, `results`), and
   * `serveTools(app)` for every call it serves.
   */
  get recorder(): RecordFunc | undefined {
    return this.#options.recorder;
  }

  /** The definitions of the app's tools, in order. */
  definitions(): FunctionToolDefinition[] {
    return this.tools.definitions();
  }

  /**
   * An app-scoped instance visible from the root module, by its token. Throws a clear
   * error for a token the root module cannot see (`MISSING_PROVIDER`) or that is
   * session-scoped (`SESSION_SCOPED`).
   */
  async get<T>(token: Token<T>): Promise<T> {
    const node = visibleIn(this.#graph.root, token);
    if (node === undefined) {
      throw new AgentToolError(
        'MISSING_PROVIDER',
        `ToolApp.get: no provider of ${tokenName(token)} is visible in ${this.#graph.root.name}`,
      );
    }
    if (this.#plan.scopes.get(node) === 'session') {
      throw new AgentToolError(
        'SESSION_SCOPED',
        `ToolApp.get: ${tokenName(token)} is session-scoped; it exists only while a call of a session runs`,
      );
    }
    return (await this.#appScope.resolve(node)) as T;
  }

  /** A job for the tool called `name`, with `args` as the model would write them. */
  job(name: string, args: unknown = {}, id = `call_${++callCounter}`): Job {
    const call: Call = { id, args: typeof args === 'string' ? args : JSON.stringify(args) };
    return { tool: this.tools.lookup(name), call };
  }

  /** Runs a batch through the app's executor; see `Executor.execute` for the rules. */
  execute(jobs: readonly Job[], options: AppBatchOptions = {}): AsyncIterable<ExecutorEvent> {
    return this.executor.execute(jobs, this.#batchOptions(options));
  }

  /** Runs a batch and collects each job's outcome in job order. */
  results(jobs: readonly Job[], options: AppBatchOptions = {}): Promise<JobOutcome[]> {
    return this.executor.results(jobs, this.#batchOptions(options));
  }

  #batchOptions(options: AppBatchOptions): ExecuteOptions {
    const context: ToolContext = createContext({
      recorder: options.recorder ?? this.#options.recorder,
      elicitor: options.elicitor ?? this.#options.elicitor,
      session: options.session,
    });
    return { context, signal: options.signal };
  }

  /**
   * The scope of a session: one tsyringe child container per session, made on the
   * session's first call and closed when it ends. Calls without a session share one.
   */
  #scopeFor(session: Session | undefined): InstanceScope {
    if (this.#closing !== undefined) {
      throw new AgentToolError('CLOSED', 'agenttool/di: the app is closed');
    }
    if (session === undefined) {
      this.#defaultSession ??= this.#newSession();
      return this.#defaultSession;
    }
    let scope = this.#sessions.get(session);
    if (scope === undefined) {
      const created = this.#newSession();
      scope = created;
      this.#sessions.set(session, created);
      this.#liveSessions.add(created);
      session.onClose(async () => {
        // Kept among the live sessions until closed, so that an app closing meanwhile
        // waits for it (a second close() returns the first's promise).
        try {
          await created.close();
        } finally {
          this.#liveSessions.delete(created);
        }
      });
    }
    return scope;
  }

  #newSession(): InstanceScope {
    const container = this.container.createChildContainer();
    return new InstanceScope('session', container, this.#plan, this.#appScope, true);
  }

  /**
   * Closes, once, everything the app created: the instances of every live session,
   * then the app's own providers and tools. Each scope first calls `onModuleDestroy()`
   * and then `beforeApplicationShutdown()` on its instances in NestJS's order, then
   * closes (`close()`, `dispose()`, `Symbol.asyncDispose`) what it built, newest first;
   * a provider several tools share is closed once. Values given with `useValue` are the
   * giver's to close, as is what a factory returns without making it (an argument, a
   * given value, an instance the app already has). No build still under way is waited
   * for (a session's factory may never settle): the calls waiting for it fail with
   * `CLOSED`, and its result is closed when it comes. Failures (`HOOK_FAILED`,
   * `CLOSE_FAILED`) are joined into one `AggregateError`. A second call returns the
   * first's promise: it settles when closing is over.
   */
  close(): Promise<void> {
    this.#closing ??= this.#closeAll();
    return this.#closing;
  }

  async #closeAll(): Promise<void> {
    const errors: unknown[] = [];
    const scopes = [...this.#liveSessions, this.#defaultSession, this.#appScope];
    for (const scope of scopes) {
      if (scope === undefined) continue;
      try {
        await scope.close();
      } catch (error) {
        errors.push(...(error instanceof AggregateError ? (error.errors as unknown[]) : [error]));
      }
    }
    this.#liveSessions.clear();
    this.container.clearInstances();
    if (errors.length > 0) {
      throw new AggregateError(errors, `ToolApp.close: ${errors.length} failed`);
    }
  }
}

/**
 * Reads every tool class before anything is built, so a class that cannot be a tool
 * (a bad `@Param`, a missing `execute`) or two tools with one name are reported with
 * the module's other problems.
 */
function checkTools(graph: AppGraph): void {
  const templates: Tool[] = [];
  for (const module of graph.modules) {
    for (const node of module.tools) {
      try {
        const descriptor = toolDescriptorOf(node.token as Constructor);
        // Guard classes are the app's to build, later.
        templates.push(classTool(descriptor.cls, unbuilt, { resolveGuard: () => UNBUILT_GUARD }));
      } catch (error) {
        if (!(error instanceof DecoratorError)) throw error;
        for (const problem of error.problems) {
          graph.problems.push({ code: 'INVALID_DECORATOR', message: `${module.name}: ${problem}` });
        }
      }
    }
  }
  try {
    new ToolSet(templates).validate();
  } catch (error) {
    const problem: ModuleProblem = {
      code: 'INVALID_TOOL_SET',
      message: error instanceof Error ? error.message : String(error),
    };
    graph.problems.push(problem);
  }
}

/** The objects given with `useValue` anywhere in the app. */
function givenValues(graph: AppGraph): WeakSet<object> {
  const values = new WeakSet<object>();
  for (const node of allNodes(graph)) {
    if (node.kind !== 'value') continue;
    const value = node.build([]);
    if (typeof value === 'object' && value !== null) values.add(value);
  }
  return values;
}

const UNBUILT_GUARD: CanActivate = { canActivate: unbuilt };

function unbuilt(): never {
  throw new AgentToolError('INTERNAL', 'agenttool/di: a tool was called before its app was built');
}

/**
 * A tool whose class needs a session-scoped provider: one instance per session, made on
 * the session's first call. Its definition and properties come from the class; execute
 * goes to the session's instance.
 */
function sessionTool(
  node: ProviderNode,
  scopeOf: (ctx: ToolContext) => InstanceScope,
  options: ToolBuildOptions,
): Tool {
  return classTool(
    node.token as Constructor,
    async (ctx) => (await scopeOf(ctx).resolve(node)) as object,
    options,
  );
}
