import 'reflect-metadata';
import { type DependencyContainer } from 'tsyringe';
import {
  type McpResource,
  type McpResourceTemplate,
  type Prompt,
  AgentToolError,
  type Call,
  type Constructor,
  createContext,
  type FunctionToolDefinition,
  type RecordFunc,
  type Session,
  type Tool,
  type ToolContext,
  ToolSet,
  errorMessage,
  goQuote,
} from '../core';
import {
  type ExecuteOptions,
  Executor,
  type ExecutorEvent,
  type Job,
  type JobOutcome,
} from '../executor';
import { bounded, checkStartBound } from './bounded-start';
import {
  buildPrimitives,
  type BuiltPrimitives,
  buildTools,
  planScopes,
  registerProviders,
  resolveAppInstances,
} from './app-build';
import { checkApp, readApp } from './checked-app';
import { HandleTable } from './handle-table';
import { jsonArguments } from './job-arguments';
import { type AppBatchOptions, maxQueuedCalls, type ToolAppOptions, warner } from './app-options';
import { SessionScopes } from './session-scopes';
import { ShutdownHooks } from './shutdown-hooks';
import { type AppGraph } from './graph';
import { sharingOf, visibleIn } from './link';
import { type AppPlan, InstanceScope } from './scope';
import { type ScopeChange } from './scope-report';
import { startWarning, warnAtStart } from './start-warnings';
import { type Token, tokenName } from './tokens';
import { exposeRootTokens } from './registration';
import { chainLiveSources } from './live-chain';
import { AppPrimitives, AppTools, type LiveSource, resolveLiveTools } from './live-tools';

let callCounter = 0;

/** How many tool names an unknown-tool error lists before it says how many more. */
const MAX_NAMED_TOOLS = 20;

/**
 * An app: the tools of a root `@Module` and everything they inject, built by tsyringe
 * in a child container of its own (never the global one, so two apps share nothing),
 * with an executor to run batches and `close()` to close what it created.
 */
export class ToolApp {
  readonly #tools: AppTools;
  readonly #primitives: AppPrimitives;
  /** The executor batches run on, configured from the options. */
  readonly executor: Executor;
  /**
   * The app's own tsyringe container (a child of tsyringe's global container). It
   * holds every provider of the app under keys of its own, and resolves each app-scoped
   * token the root module sees to the app's instance: `app.container.resolve(Config)`.
   * Each session gets a child of it.
   */
  readonly container: DependencyContainer;
  /**
   * The app-scoped providers and tools built per session because they need a
   * session-scoped provider, as reported when the app started (see `onScopeReport`).
   */
  readonly scopeReport: readonly ScopeChange[];
  readonly #options: ToolAppOptions;
  readonly #plan: AppPlan;
  readonly #graph: AppGraph;
  readonly #appScope: InstanceScope;
  readonly #sessionScopes: SessionScopes;
  /** The handles the app minted: their sessions end with the app, before the others. */
  readonly #handles: HandleTable;
  #closing: Promise<void> | undefined;
  readonly #shutdownHooks = new ShutdownHooks((signal) => this.close(signal));

  private constructor(init: {
    graph: AppGraph;
    plan: AppPlan;
    appScope: InstanceScope;
    options: ToolAppOptions;
    tools: Tool[];
    live: readonly LiveSource[];
    primitives: BuiltPrimitives;
    scopeReport: readonly ScopeChange[];
    handles: HandleTable;
  }) {
    this.#handles = init.handles;
    this.#graph = init.graph;
    this.#plan = init.plan;
    this.#appScope = init.appScope;
    this.#sessionScopes = new SessionScopes(init.plan, init.appScope);
    this.#options = init.options;
    this.scopeReport = init.scopeReport;
    this.container = init.appScope.container;
    this.#tools = new AppTools(init.tools, init.live, warner(init.options));
    this.#primitives = new AppPrimitives(init.primitives, init.live, warner(init.options));
    this.executor = new Executor({
      maxParallel: init.options.maxParallel,
      sequential: init.options.sequential,
      onStart: init.options.onStart,
    });
  }

  /**
   * Builds the app of `rootModule`. Everything is checked first, before anything is
   * built: the modules, every dependency and every tool class, all problems reported
   * together in one {@link ModuleError}. Then tsyringe builds the app-scoped providers,
   * tools and module classes in dependency order in the app's container (an async
   * factory is awaited before what needs it is built; a transient provider is built for
   * each injection), and the app starts them in NestJS's order: `onModuleInit()` across
   * every module, then `onApplicationBootstrap()` (see docs/modules-and-di.md for the order).
   * A failure closes what was built and rejects: `PROVIDER_FAILED` when a constructor or
   * factory threw, `HOOK_FAILED` when a starting hook did (every failure of the failing
   * group listed), `TIMEOUT` past `options.timeoutMs`, `CANCELLED` when
   * `options.signal` aborts.
   */
  static async create(rootModule: Constructor, options: ToolAppOptions = {}): Promise<ToolApp> {
    const rootName = typeof rootModule === 'function' ? rootModule.name : String(rootModule);
    checkStartBound(rootName, options);
    const checked = checkApp(readApp(rootModule, options.interceptors));
    const { plan, scopeReport } = planScopes(rootName, checked, options.onScopeReport);
    const container = registerProviders(checked);
    const appScope = new InstanceScope('app', container, plan, undefined);
    const warn = warner(options);
    const handles = new HandleTable((message, error) => warn(`${message}: ${errorMessage(error)}`));
    try {
      return await bounded(rootName, options, appScope.running, async () => {
        await resolveAppInstances(checked, appScope);
        await appScope.start();
        // The tools find a session's scope through the app, which exists by their first call.
        const scopeOf = (ctx: ToolContext): InstanceScope => app.#scopeFor(ctx.session);
        const tools = await buildTools(checked, appScope, scopeOf, {
          handles,
          maxQueued: maxQueuedCalls(options.maxQueuedCalls),
          open: () => app.#checkOpen(),
        });
        const primitives = await buildPrimitives(checked, appScope, scopeOf);
        const live = await chainLiveSources(
          checked,
          appScope,
          scopeOf,
          await resolveLiveTools(checked.graph, appScope),
        );
        exposeRootTokens(container, checked.graph, checked.homes);
        const app = new ToolApp({
          graph: checked.graph,
          plan,
          appScope,
          options,
          tools,
          live,
          primitives,
          scopeReport,
          handles,
        });
        warnAtStart(startWarning(rootName, tools), options.onWarning);
        return app;
      });
    } catch (error) {
      await appScope.close().catch(() => undefined);
      throw error;
    }
  }

  /**
   * The app's tools, validated (non-empty, unique names): those of its modules, then
   * those of its live sources (`@Module({ liveTools })`) as they are now. Read it again
   * after {@link ToolApp.onToolsChanged} reports a change.
   */
  get tools(): ToolSet {
    return this.#tools.set;
  }

  /**
   * Calls `listener` after each change of {@link ToolApp.tools} (a live source's tools
   * changed: a remote server went away or came back); returns its remover. An app
   * without live sources never changes. `serveTools(app)` follows it.
   */
  onToolsChanged(listener: () => void): () => void {
    return this.#tools.onChanged(listener);
  }

  /** True when the app has live sources (`liveTools`): only then can its tools change. */
  get mayChange(): boolean {
    return this.#tools.live;
  }

  /**
   * The app's prompts (`@Module({ prompts })`), then those of its live sources
   * (`McpServersModule`'s servers') as they are now: a name the app or an earlier source
   * has is left out, with a warning once. Served beside its tools by `serveTools(app)`;
   * read it again after {@link ToolApp.onPrimitivesChanged} reports a change.
   */
  get prompts(): readonly Prompt[] {
    return this.#primitives.prompts;
  }

  /**
   * The app's MCP resources and resource templates (`@Module({ resources })`), then those
   * of its live sources as they are now (a name or URI already served is left out, with a
   * warning once). Served beside its tools by `serveTools(app)`.
   */
  get resources(): readonly (McpResource | McpResourceTemplate)[] {
    return this.#primitives.resources;
  }

  /**
   * Calls `listener` after each change of a live source's prompts or resources (a remote
   * server came up, went away, or changed its own), after which {@link ToolApp.prompts}
   * and {@link ToolApp.resources} may read otherwise; returns its remover.
   * `serveTools(app)` follows it.
   */
  onPrimitivesChanged(listener: () => void): () => void {
    return this.#primitives.onChanged(listener);
  }

  /**
   * True when a live source's prompts or resources may change (`McpServersModule`):
   * only then can the app's.
   */
  get primitivesMayChange(): boolean {
    return this.#primitives.live;
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
   * error for a token the root module cannot see (`MISSING_PROVIDER`), that is
   * session-scoped (`SESSION_SCOPED`), or whose provider is transient or
   * resolution-scoped, so that the app has no one instance of it (`INVALID_OPTIONS`).
   */
  async get<T>(token: Token<T>): Promise<T> {
    const node = visibleIn(this.#graph.root, token);
    if (node === undefined) {
      throw new AgentToolError(
        'MISSING_PROVIDER',
        `ToolApp.get: no provider of ${tokenName(token)} is visible in ${this.#graph.root.name}`,
      );
    }
    if (this.#plan.homes.get(node) === 'session') {
      throw new AgentToolError(
        'SESSION_SCOPED',
        `ToolApp.get: ${tokenName(token)} is session-scoped; it exists only while a call of a session runs`,
      );
    }
    const sharing = sharingOf(node);
    if (sharing !== 'shared') {
      throw new AgentToolError(
        'INVALID_OPTIONS',
        `ToolApp.get: ${tokenName(token)} is ${sharing === 'transient' ? 'transient: each injection of it gets an instance of its own' : 'resolution-scoped: each resolution gets an instance of its own'}, and the app has none; inject it where it is needed`,
      );
    }
    return (await this.#appScope.resolve(node)) as T;
  }

  /**
   * A job for the tool called `name`, with `args` as the model would write them: JSON
   * text passed on as it is, or a value written as JSON. Throws `NO_TOOL` at once, naming
   * the app's tools, when the app has no tool of that name, and `INVALID_ARGUMENTS` when
   * `args` is a value JSON cannot write (a function, a symbol, a bigint, a cycle).
   */
  job(name: string, args: unknown = {}, id = `call_${++callCounter}`): Job {
    const tool = this.tools.lookup(name);
    if (tool === undefined) {
      const names = [...this.tools].map((t) => t.name);
      const shown =
        names.length > MAX_NAMED_TOOLS
          ? `${names.slice(0, MAX_NAMED_TOOLS).join(', ')} and ${names.length - MAX_NAMED_TOOLS} more`
          : names.join(', ');
      throw new AgentToolError(
        'NO_TOOL',
        `ToolApp.job: ${this.#graph.root.name} has no tool named ${goQuote(name)}; its tools: ${shown === '' ? 'none' : shown}`,
      );
    }
    const call: Call = { id, args: typeof args === 'string' ? args : jsonArguments(name, args) };
    return { tool, call };
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

  /** The scope of a session (see {@link SessionScopes}); none once the app is closing. */
  #scopeFor(session: Session | undefined): InstanceScope {
    this.#checkOpen();
    return this.#sessionScopes.scopeFor(session);
  }

  /** Throws `CLOSED` once the app is closing. */
  #checkOpen(): void {
    if (this.#closing !== undefined) {
      throw new AgentToolError('CLOSED', 'agenttool/di: the app is closed');
    }
  }

  /**
   * Closes, once, everything the app created: the instances of every live session,
   * then the app's own providers, tools and module classes. Each scope, in NestJS's
   * order, calls `onModuleDestroy()` across every module, then
   * `beforeApplicationShutdown(signal)`, then closes (`close()`, `dispose()`,
   * `Symbol.asyncDispose`) what it built, newest first, a provider several tools share
   * once, then calls `onApplicationShutdown(signal)`. Values given with `useValue` are
   * the giver's to close, as is what a factory returns without making it (an argument,
   * a given value, an instance the app already has). No build still under way is waited
   * for (a session's factory may never settle): the calls waiting for it fail with
   * `CLOSED`, and its result is closed when it comes. Failures (`HOOK_FAILED`,
   * `CLOSE_FAILED`) are joined into one `AggregateError`. A second call returns the
   * first's promise: it settles when closing is over.
   *
   * @param signal - What the shutdown hooks receive: the signal's name when a signal
   * closes the app (see {@link ToolApp.enableShutdownHooks}), else what the caller says.
   */
  close(signal?: string): Promise<void> {
    this.#closing ??= this.#closeAll(signal);
    return this.#closing;
  }

  /**
   * Closes the app when the process receives one of `signals` (by default `SIGINT` and
   * `SIGTERM`), as NestJS's `enableShutdownHooks` does: `close(signal)` runs, with the
   * signal's name given to `beforeApplicationShutdown` and `onApplicationShutdown`; then
   * the listeners are removed and the signal is raised again, so the process ends as it
   * would have without them. Closing the app otherwise removes them too.
   */
  enableShutdownHooks(signals: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM']): this {
    this.#shutdownHooks.listen(signals);
    return this;
  }

  async #closeAll(signal: string | undefined): Promise<void> {
    this.#tools.close();
    this.#primitives.close();
    const errors: unknown[] = [];
    try {
      await this.#handles.close();
    } catch (error) {
      errors.push(...(error instanceof AggregateError ? (error.errors as unknown[]) : [error]));
    }
    for (const scope of [...this.#sessionScopes.takeOpen(), this.#appScope]) {
      try {
        await scope.close(signal);
      } catch (error) {
        errors.push(...(error instanceof AggregateError ? (error.errors as unknown[]) : [error]));
      }
    }
    this.container.clearInstances();
    this.#shutdownHooks.remove();
    if (errors.length > 0) {
      throw new AggregateError(errors, `ToolApp.close: ${errors.length} failed`);
    }
  }
}
