import 'reflect-metadata';
import { container as globalContainer, type DependencyContainer } from 'tsyringe';
import {
  AgentToolError,
  type Call,
  createContext,
  type Elicitor,
  type FunctionToolDefinition,
  newTool,
  type RecordFunc,
  type Session,
  type Tool,
  type ToolContext,
  ToolSet,
} from '../core';
import { isToolClass, toolFromInstance } from '../decorators';
import {
  type ExecuteOptions,
  Executor,
  type ExecutorEvent,
  type Job,
  type JobOutcome,
  type OnStart,
} from '../executor';
import { ModuleError } from './errors';
import { type AppGraph, effectiveScopes, linkGraph, type ProviderNode, readModules } from './graph';
import { InstanceScope } from './scope';
import { type Constructor, type Scope, type Token, tokenName } from './tokens';

/** How an app runs its tools. */
export interface ToolAppOptions {
  /** The bound on tools running at once (default 8). */
  readonly maxParallel?: number;
  /** Run every batch one call at a time. */
  readonly sequential?: boolean;
  /** Where records go, for every batch that does not bring its own. */
  readonly recorder?: RecordFunc;
  /** Who answers the tools' questions, for every batch that does not bring its own. */
  readonly elicitor?: Elicitor;
  /** Called the moment each call is handed to its tool; a throw refuses the call. */
  readonly onStart?: OnStart;
}

/** What one batch of an app runs with, besides its jobs. */
export interface AppBatchOptions {
  readonly signal?: AbortSignal;
  /** This batch's recorder; wins over the app's. */
  readonly recorder?: RecordFunc;
  /** This batch's elicitor; wins over the app's. */
  readonly elicitor?: Elicitor;
  /** The client session the batch serves (session-scoped providers are per session). */
  readonly session?: Session;
}

let callCounter = 0;

/**
 * An app: the tools of a root `@Module` and everything they inject, built in a
 * container of its own (never the global one, so two apps share nothing), with an
 * executor to run batches and `close()` to close what it created.
 */
export class ToolApp {
  /** The app's tools, validated (non-empty, unique names). */
  readonly tools: ToolSet;
  /** The executor batches run on, configured from the options. */
  readonly executor: Executor;
  /** The app's own tsyringe container, holding every app-scoped instance the root module sees. */
  readonly container: DependencyContainer;
  readonly #options: ToolAppOptions;
  readonly #appScope: InstanceScope;
  readonly #sessions: WeakMap<Session, InstanceScope>;
  readonly #liveSessions = new Set<InstanceScope>();
  /** The closes of sessions that ended and are still closing. */
  readonly #endingSessions = new Set<Promise<void>>();
  readonly #defaultSession: InstanceScope;
  readonly #scopes: ReadonlyMap<ProviderNode, Scope>;
  readonly #closedObjects: WeakSet<object>;
  readonly #graph: AppGraph;
  #closing: Promise<void> | undefined;

  private constructor(init: {
    graph: AppGraph;
    scopes: ReadonlyMap<ProviderNode, Scope>;
    appScope: InstanceScope;
    closedObjects: WeakSet<object>;
    tools: Tool[];
    options: ToolAppOptions;
    container: DependencyContainer;
  }) {
    this.#graph = init.graph;
    this.#scopes = init.scopes;
    this.#appScope = init.appScope;
    this.#closedObjects = init.closedObjects;
    this.#options = init.options;
    this.#sessions = new WeakMap();
    this.#defaultSession = new InstanceScope(
      'session',
      init.scopes,
      init.appScope,
      init.closedObjects,
    );
    this.tools = new ToolSet(init.tools);
    this.container = init.container;
    this.executor = new Executor({
      ...(init.options.maxParallel === undefined ? {} : { maxParallel: init.options.maxParallel }),
      ...(init.options.sequential === undefined ? {} : { sequential: init.options.sequential }),
      ...(init.options.onStart === undefined ? {} : { onStart: init.options.onStart }),
    });
  }

  /**
   * Builds the app of `rootModule`: reads its modules, checks every dependency (all
   * problems reported together in one {@link ModuleError}), creates the app-scoped
   * providers and tools, and validates the tool set.
   */
  static async create(rootModule: Constructor, options: ToolAppOptions = {}): Promise<ToolApp> {
    const graph = readModules(rootModule, isToolClass);
    linkGraph(graph);
    if (graph.problems.length > 0) throw new ModuleError(rootModule.name, graph.problems);

    const scopes = effectiveScopes(graph);
    const closedObjects = new WeakSet<object>();
    const appScope = new InstanceScope('app', scopes, undefined, closedObjects);
    const container = globalContainer.createChildContainer();
    const tools: Tool[] = [];
    let app: ToolApp | undefined;
    try {
      // Every app-scoped provider is created now, in dependency order, as NestJS does.
      for (const module of graph.modules) {
        for (const node of module.own.values()) {
          if (scopes.get(node) === 'app') await appScope.resolve(node);
        }
      }
      for (const module of graph.modules) {
        for (const node of module.tools) {
          tools.push(
            scopes.get(node) === 'app'
              ? toolFromInstance((await appScope.resolve(node)) as object)
              : sessionTool(node, (ctx) => app!.#scopeFor(ctx.session)),
          );
        }
      }
      for (const [token, node] of graph.root.own) {
        if (scopes.get(node) === 'app') {
          container.registerInstance(token as never, await appScope.resolve(node));
        }
      }
      app = new ToolApp({ graph, scopes, appScope, closedObjects, tools, options, container });
      app.tools.validate();
      return app;
    } catch (error) {
      await appScope.close().catch(() => undefined);
      throw error;
    }
  }

  /** The definitions of the app's tools, in order. */
  definitions(): FunctionToolDefinition[] {
    return this.tools.definitions();
  }

  /**
   * An app-scoped instance visible from the root module, by its token. Throws a clear
   * error for a token the root module cannot see or that is session-scoped.
   */
  async get<T>(token: Token<T>): Promise<T> {
    const node = this.#graph.root.own.get(token) ?? findExported(this.#graph, token);
    if (node === undefined) {
      throw new AgentToolError(
        'MISSING_PROVIDER',
        `ToolApp.get: no provider of ${tokenName(token)} is visible in ${this.#graph.root.name}`,
      );
    }
    if (this.#scopes.get(node) === 'session') {
      throw new AgentToolError(
        'INVALID_MODULE',
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
    return { context, ...(options.signal === undefined ? {} : { signal: options.signal }) };
  }

  #scopeFor(session: Session | undefined): InstanceScope {
    if (session === undefined) return this.#defaultSession;
    let scope = this.#sessions.get(session);
    if (scope === undefined) {
      const created = new InstanceScope(
        'session',
        this.#scopes,
        this.#appScope,
        this.#closedObjects,
      );
      scope = created;
      this.#sessions.set(session, created);
      this.#liveSessions.add(created);
      session.onClose(async () => {
        this.#liveSessions.delete(created);
        // Kept until closed, so that app.close() waits for it; its errors go to this caller.
        const closing = created.close();
        this.#endingSessions.add(closing);
        try {
          await closing;
        } finally {
          this.#endingSessions.delete(closing);
        }
      });
    }
    return scope;
  }

  /**
   * Closes, once, everything the app created: the instances of every live session,
   * then the app's own providers and tools in reverse order of creation (a provider
   * several tools share is closed once). Values given with `useValue` are the giver's
   * to close. Failures are joined into one `AggregateError`. Closing again is harmless:
   * it returns the same promise. It resolves only once sessions that ended before it
   * have finished closing too (their failures went to whoever ended them).
   */
  close(): Promise<void> {
    this.#closing ??= this.#closeAll();
    return this.#closing;
  }

  async #closeAll(): Promise<void> {
    const errors: unknown[] = [];
    const closeScope = async (scope: InstanceScope): Promise<void> => {
      try {
        await scope.close();
      } catch (error) {
        errors.push(...(error instanceof AggregateError ? (error.errors as unknown[]) : [error]));
      }
    };
    for (const scope of [...this.#liveSessions, this.#defaultSession]) await closeScope(scope);
    // Sessions that ended are closing already; the app's own instances close after them.
    await Promise.allSettled(this.#endingSessions);
    await closeScope(this.#appScope);
    this.#liveSessions.clear();
    this.container.clearInstances();
    if (errors.length > 0)
      throw new AggregateError(errors, `ToolApp.close: ${errors.length} failed`);
  }
}

function findExported(graph: AppGraph, token: Token): ProviderNode | undefined {
  for (const module of graph.root.imports) {
    const node = module.own.get(token);
    if (node !== undefined && module.options.exports.includes(token)) return node;
  }
  return undefined;
}

/**
 * A tool whose class needs a session-scoped provider: one instance per session, made on
 * the session's first call. Its definition and properties come from the class, read once
 * through an instance that is never constructed (the decorators' metadata is on the
 * class); execute and the per-call readers go to the session's instance.
 */
function sessionTool(node: ProviderNode, scopeOf: (ctx: ToolContext) => InstanceScope): Tool {
  const cls = node.token as Constructor;
  const template = toolFromInstance(Object.create(cls.prototype as object) as object);
  const perSession = new WeakMap<object, Tool>();
  const toolFor = async (ctx: ToolContext): Promise<Tool> => {
    const instance = (await scopeOf(ctx).resolve(node)) as object;
    let tool = perSession.get(instance);
    if (tool === undefined) {
      tool = toolFromInstance(instance);
      perSession.set(instance, tool);
    }
    return tool;
  };
  return newTool({
    name: template.name,
    description: template.description,
    parameters: template.parameters,
    ...(template.strict === undefined ? {} : { strict: template.strict }),
    ...(template.sequential === undefined ? {} : { sequential: template.sequential }),
    ...(template.resource === undefined ? {} : { resource: template.resource }),
    ...(template.annotations === undefined ? {} : { annotations: template.annotations }),
    ...(template.confined === undefined
      ? {}
      : { confined: (args, ctx) => template.confined!(args, ctx) }),
    ...(template.replay === undefined
      ? {}
      : { replay: (args, ctx) => template.replay!(args, ctx) }),
    execute: async (call, ctx) => (await toolFor(ctx)).execute(call, ctx),
  });
}
