import { InMemoryTransport } from '@modelcontextprotocol/server';
import {
  AgentToolError,
  annotationsOf,
  type Call,
  type ContextInit,
  createContext,
  definitionHash,
  definitionOf,
  type Elicitation,
  type FunctionToolDefinition,
  type JsonObject,
  outputSchemaOf,
  outputText,
  type StatedAnnotations,
  type Tool,
  type ToolRecord,
} from 'agenttool';
import { type ToolApp, type ToolAppOptions } from 'agenttool/di';
import {
  type ConnectOptions,
  connectMcp,
  type McpServerOptions,
  type McpToolServer,
  type RemoteTools,
  serveTools,
} from 'agenttool/mcp';
import { type CallOutcome, failed, type LogLine, succeeded } from './outcome';
import { CallProbe, probed, probingRecorder, type ToolSettled, withProbe } from './probes';
import {
  type ScriptedAnswer,
  type ScriptedElicitor,
  ScriptError,
  scriptedElicitor,
} from './scripted-answers';
import { serveTarget, type TestTarget } from './target';

/** The two protocol eras: `modern` is MCP 2026-07-28, `legacy` the 2025 era (sessions). */
export type ProtocolEra = 'modern' | 'legacy';

/** Both eras, for `describe.each(PROTOCOL_ERAS)` (or `for ... of`): a test of each. */
export const PROTOCOL_ERAS: readonly ProtocolEra[] = Object.freeze(['modern', 'legacy']);

/** How {@link testClient} serves the target and connects to it. */
export interface TestClientOptions {
  /** The protocol the client speaks: `modern` (2026-07-28, the default) or `legacy` (2025). */
  readonly protocol?: ProtocolEra;
  /** How the app is built, when the client builds it (from a `@Module` or `@Tool` classes). */
  readonly app?: ToolAppOptions;
  /**
   * The server's options (`localAuth` for tools that need a caller, `instructions`, ...).
   * A `recorder` here, or the app's own, still receives every record.
   */
  readonly server?: McpServerOptions;
  /** The client's options (`sampling`, `roots`, `prefix`, `callTimeout`, ...). Elicitation is always on. */
  readonly client?: Omit<
    ConnectOptions,
    'transport' | 'protocol' | 'elicitation' | 'elicitationHandler'
  >;
}

/** What one call takes besides its tool and arguments. */
export interface CallOptions {
  /**
   * The answers to the tool's questions, in order (see {@link ScriptedAnswer}). A
   * question with no answer left fails the call's test; so do answers left unused.
   */
  readonly answers?: readonly ScriptedAnswer[];
  /** Cancels the call when aborted, as a host's interrupt does. */
  readonly signal?: AbortSignal;
  /** The call's id (`call_<n>` by default). */
  readonly id?: string;
  /** More of the call's context on the client's side: a `sampler`, a `rootsLister`, an `auth`. */
  readonly context?: Omit<ContextInit, 'call' | 'signal' | 'elicitor' | 'log'>;
}

/** A call under way, for a test that interrupts it. */
export interface RunningCall {
  /** Resolves once the tool's `execute` has begun on the server; rejects if it never will. */
  readonly started: Promise<void>;
  /** The call's outcome, as the model's host sees it (cancelled, once {@link RunningCall.cancel}led). */
  readonly outcome: Promise<CallOutcome>;
  /**
   * What the tool itself did once its `execute` settled on the server, which a cancelled
   * call's client never hears: whether it ran into the abort, and what it returned or
   * threw. Rejects if the tool never started.
   */
  readonly settled: Promise<ToolSettled>;
  /** Cancels the call, as a host's interrupt (Esc) does: MCP's cancellation reaches the tool's signal. */
  cancel(reason?: unknown): void;
}

/** A tool as a connecting host lists it: its definition, hash and hints. */
export interface ListedTool extends FunctionToolDefinition {
  /** The definition hash (`sha256:` + hex of its canonical JSON), as the host computes it. */
  readonly hash: string;
  /** The MCP hints the server stated, read with MCP's defaults; undefined when none. */
  readonly annotations: StatedAnnotations | undefined;
  /** The declared output schema, when the tool has one. */
  readonly outputSchema: JsonObject | undefined;
}

/**
 * An MCP client of a served target, in this process and without a socket: a test calls
 * tools as a model's host would and reads what the model would read. Made by
 * {@link testClient}; close it when done (or `await using` it).
 */
export class TestClient {
  /** The era this client speaks. */
  readonly protocol: ProtocolEra;
  /** The connection (prompts, resources, completions, `tools()`), for what the helpers do not cover. */
  readonly remote: RemoteTools;
  /** The server the target is served by (`addTools`, `resourceUpdated`, ...). */
  readonly server: McpToolServer;
  /** The app served: the test's own, or the one built for it. Undefined for plain tools. */
  readonly app: ToolApp | undefined;
  readonly #owned: ToolApp | undefined;
  readonly #records: ToolRecord[];
  #calls = 0;
  #closing: Promise<void> | undefined;

  /** @internal */
  constructor(init: {
    protocol: ProtocolEra;
    remote: RemoteTools;
    server: McpToolServer;
    app: ToolApp | undefined;
    owned: ToolApp | undefined;
    records: ToolRecord[];
  }) {
    this.protocol = init.protocol;
    this.remote = init.remote;
    this.server = init.server;
    this.app = init.app;
    this.#owned = init.owned;
    this.#records = init.records;
  }

  /** Every record the served tools wrote through this client's server, in order. */
  get records(): readonly ToolRecord[] {
    return [...this.#records];
  }

  /** The tools, listed afresh: each as a connecting host reads it. */
  async list(): Promise<ListedTool[]> {
    this.#checkOpen();
    await this.remote.refresh();
    return this.remote.tools().map((tool) => {
      const definition = definitionOf(tool);
      return {
        ...definition,
        hash: definitionHash(definition),
        annotations: annotationsOf(tool),
        outputSchema: outputSchemaOf(tool),
      };
    });
  }

  /**
   * Calls a tool with `args` (an object, or the raw JSON text a model wrote) and resolves
   * with its outcome, a failure included. Rejects for an unknown tool, a closed client,
   * and a broken answer script (a {@link ScriptError} naming the question).
   */
  async call(name: string, args: unknown = {}, options: CallOptions = {}): Promise<CallOutcome> {
    return this.start(name, args, options).outcome;
  }

  /**
   * Calls a tool that asks the user, answering its questions with `answers` in order:
   * {@link TestClient.call} with {@link CallOptions.answers}. Each question asked is in
   * the outcome's `questions`; one with no answer left, or answers left unused, reject
   * with a {@link ScriptError}.
   */
  async ask(
    name: string,
    args: unknown,
    answers: readonly ScriptedAnswer[],
    options: Omit<CallOptions, 'answers'> = {},
  ): Promise<CallOutcome> {
    return this.start(name, args, { ...options, answers }).outcome;
  }

  /** Starts a call and hands it over under way: to cancel it and watch the tool stop. */
  start(name: string, args: unknown = {}, options: CallOptions = {}): RunningCall {
    this.#checkOpen();
    const tool = this.#lookup(name);
    const script = scriptedElicitor(options.answers ?? [], `tool ${JSON.stringify(name)}`);
    const interrupt = new AbortController();
    const unlink = follow(options.signal, interrupt);
    const progress: string[] = [];
    const logs: LogLine[] = [];
    const call: Call = {
      id: options.id ?? `call_${++this.#calls}`,
      args: typeof args === 'string' ? args : JSON.stringify(args),
      onUpdate: (update) => void progress.push(outputText(update.output)),
    };
    const ctx = createContext({
      ...options.context,
      call,
      signal: interrupt.signal,
      elicitor: script.elicitor,
      log: (level, data) => void logs.push({ level, data }),
    });
    const probe = new CallProbe();
    const gathered = (questions: readonly Elicitation[]) => ({
      tool: name,
      written: probe.records,
      progress,
      questions,
      logs,
    });
    const outcome = withProbe(probe, () => Promise.resolve().then(() => tool.execute(call, ctx)))
      .then(
        (result) => succeeded(result, gathered(script.questions)),
        (thrown: unknown) => failed(thrown, interrupt.signal.aborted, gathered(script.questions)),
      )
      .then((done) => {
        unlink();
        probe.endWithoutTool(done.text);
        // A broken script fails the test whatever the tool made of it; answers left
        // unused count only for a call that ran to its end.
        if (done.cancelled) {
          if (script.failure !== undefined) throw script.failure;
        } else {
          checkScript(script, probe, this.protocol);
        }
        return done;
      });
    return {
      started: probe.started,
      settled: probe.settled,
      outcome,
      cancel: (reason?: unknown) => interrupt.abort(reason),
    };
  }

  /** Closes the connection, the server, and the app the client built (not the test's own). */
  close(): Promise<void> {
    return (this.#closing ??= this.#close());
  }

  /** For `await using client = await testClient(...)`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #close(): Promise<void> {
    const failures: unknown[] = [];
    for (const step of [
      () => this.remote.close(),
      () => this.server.close(),
      () => this.#owned?.close(),
    ]) {
      try {
        await step();
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1) {
      throw new AggregateError(failures, 'agenttool/testing: closing the test client failed');
    }
  }

  #checkOpen(): void {
    if (this.#closing !== undefined) {
      throw new AgentToolError('CLOSED', 'agenttool/testing: the test client is closed');
    }
  }

  #lookup(name: string): Tool {
    const tools = this.remote.tools();
    const tool = tools.find((t) => t.name === name);
    if (tool !== undefined) return tool;
    const names = tools.map((t) => t.name).join(', ');
    throw new AgentToolError(
      'NO_TOOL',
      `agenttool/testing: no tool ${JSON.stringify(name)} is served; the client lists ${names === '' ? 'none' : names}`,
    );
  }
}

/**
 * Serves `target` (an app, a module, tools: see {@link TestTarget}) over MCP in memory,
 * in the era asked (2026-07-28 by default), and connects a client to it: no socket, no
 * process, no test framework. Records the tools write are kept for the call that wrote
 * them, and every question the tools ask goes to the call's scripted answers.
 */
export async function testClient(
  target: TestTarget,
  options: TestClientOptions = {},
): Promise<TestClient> {
  const protocol = options.protocol ?? 'modern';
  if (protocol !== 'modern' && protocol !== 'legacy') {
    throw new AgentToolError(
      'INVALID_OPTIONS',
      `agenttool/testing: testClient: protocol must be "modern" (2026-07-28) or "legacy" (2025), got ${JSON.stringify(protocol)}`,
    );
  }
  const served = await serveTarget(target, options.app);
  const records: ToolRecord[] = [];
  const server = serveTools(
    {
      tools: served.tools.map(probed),
      prompts: served.prompts,
      resources: served.resources,
    },
    {
      ...options.server,
      recorder: probingRecorder(records, options.server?.recorder ?? served.recorder),
    },
  );
  try {
    const remote = await connect(server, protocol, options.client ?? {});
    return new TestClient({
      protocol,
      remote,
      server,
      app: served.app,
      owned: served.owned,
      records,
    });
  } catch (error) {
    await server.close().catch(() => undefined);
    await served.owned?.close().catch(() => undefined);
    throw error;
  }
}

/** Our client on the server in memory: the 2025 era over a transport pair, 2026-07-28 through its fetch face. */
async function connect(
  server: McpToolServer,
  protocol: ProtocolEra,
  options: NonNullable<TestClientOptions['client']>,
): Promise<RemoteTools> {
  if (protocol === 'legacy') {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    return connectMcp({ ...options, transport: clientSide, protocol, elicitation: true });
  }
  const handler = server.handler();
  return connectMcp({
    ...options,
    transport: {
      url: 'http://localhost/mcp',
      fetch: (url, init) => handler.fetch(new Request(url, init)),
    },
    protocol,
    elicitation: true,
  });
}

/**
 * Throws what broke the call's answer script, saying so when some of the tool's
 * questions never reached the call: in the 2025 era the protocol ties no question to a
 * call, and the client answers `cancel` to one that comes while several are in flight.
 */
function checkScript(script: ScriptedElicitor, probe: CallProbe, protocol: ProtocolEra): void {
  try {
    script.check();
  } catch (error) {
    const lost = probe.asked.length - script.questions.length;
    if (!(error instanceof ScriptError) || lost <= 0) throw error;
    throw new ScriptError(
      `${error.message}; ${lost === 1 ? '1 question' : `${lost} questions`} the tool asked never reached this call${protocol === 'legacy' ? ': in the 2025 era the protocol ties no question to a call, and the client answers "cancel" to one asked while several calls are in flight' : ''}`,
    );
  }
}

/** Aborts `controller` when `signal` aborts; returns what stops following. */
function follow(signal: AbortSignal | undefined, controller: AbortController): () => void {
  if (signal === undefined) return () => undefined;
  if (signal.aborted) {
    controller.abort(signal.reason);
    return () => undefined;
  }
  const abort = () => controller.abort(signal.reason);
  signal.addEventListener('abort', abort, { once: true });
  return () => signal.removeEventListener('abort', abort);
}
