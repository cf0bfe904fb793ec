import {
  type CallToolResult,
  type ClientCapabilities,
  type InputRequests,
  ProtocolError,
  type ServerNotification,
} from '@modelcontextprotocol/server';
import {
  AgentToolError,
  type Elicitor,
  errorMessage,
  goQuote,
  type JsonObject,
  type RootsLister,
  type Sampler,
} from '../../../core';
import {
  AUTO_KEY_PREFIX,
  type CallRoute,
  type ClientAsk,
  elicitationAsk,
  failure,
  missingCapabilityError,
  rootsAsk,
  type RunningCall,
  samplingAsk,
} from '../calls';
import { type ErrorReporter } from '../session';
import { type TaskSettings } from './options';
import { type TaskStore } from './store';
import { isFinal, type TaskError, type TaskRecord, type TaskStatus } from './wire';

/** A request the task has open with its client, under its key. */
export interface OpenClientRequest {
  readonly key: string;
  readonly ask: ClientAsk<unknown>;
}

/** How much of a progress update a task keeps as its status message (characters). */
const STATUS_MESSAGE_LIMIT = 4096;

/** The JSON-RPC code of an error inside the server (a task that failed without its own code). */
const INTERNAL_ERROR = -32603;

/** One request the task made of its client, and the tool waiting for its answer. */
interface OpenRequest {
  readonly ask: ClientAsk<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * A task whose tool runs in this process: it keeps the task's record up to date in the
 * store as the tool reports progress, asks, returns or fails, takes the client's answers
 * (`tasks/update`) and its cancellation (`tasks/cancel`). Writes to the store go out one
 * at a time, the latest state winning, so a slow store never reorders them.
 */
export class LocalTask {
  #record: TaskRecord;
  readonly #store: TaskStore;
  readonly #settings: TaskSettings;
  readonly #report: ErrorReporter;
  readonly #abort: (reason: unknown) => void;
  readonly #capabilities: ClientCapabilities | undefined;
  readonly #open = new Map<string, OpenRequest>();
  readonly #seq = { elicitation: 0, sampling: 0, roots: 0 };
  #saving: Promise<void> | undefined;
  #dirty = false;
  #timer: NodeJS.Timeout | undefined;
  readonly #onOver: (() => void)[] = [];
  #over = false;
  readonly #onStored = new Set<(record: TaskRecord) => void>();
  readonly #onOpened = new Set<() => void>();

  constructor(init: {
    readonly record: TaskRecord;
    readonly store: TaskStore;
    readonly settings: TaskSettings;
    readonly report: ErrorReporter;
    /** Stops the tool (aborts its `ctx.signal`). */
    readonly abort: (reason: unknown) => void;
    /**
     * The client capabilities of the request that made the task: what the tool may ask
     * of the client (a question, its model, its roots).
     */
    readonly capabilities: ClientCapabilities | undefined;
  }) {
    this.#record = init.record;
    this.#store = init.store;
    this.#settings = init.settings;
    this.#report = init.report;
    this.#abort = init.abort;
    this.#capabilities = init.capabilities;
    const left = Date.parse(init.record.createdAt) + init.record.ttlMs - Date.now();
    // A delay past 2^31-1 ms would fire at once: clamp it (about 24.8 days).
    this.#timer = setTimeout(() => this.#expire(), Math.min(Math.max(left, 0), 2 ** 31 - 1));
    this.#timer.unref();
  }

  /** True once a request of the client named the task: it knows the task's id. */
  claimed = false;

  /** The task as it stands here, fresher than the store while a write is on its way. */
  get record(): TaskRecord {
    return this.#record;
  }

  /** Runs `listener` once, when the task is final or dropped (nothing runs here any more). */
  onOver(listener: () => void): void {
    if (this.#over) listener();
    else this.#onOver.push(listener);
  }

  /**
   * Runs `listener` with each state of the task once it is stored (states written
   * together are stored as the last one); returns its remover.
   */
  onStored(listener: (record: TaskRecord) => void): () => void {
    this.#onStored.add(listener);
    return () => this.#onStored.delete(listener);
  }

  /** Runs `listener` whenever the task opens a request of its client; returns its remover. */
  onRequestOpened(listener: () => void): () => void {
    this.#onOpened.add(listener);
    return () => this.#onOpened.delete(listener);
  }

  /** The requests the task has open with its client, in the order they were made. */
  openRequests(): OpenClientRequest[] {
    return [...this.#open].map(([key, open]) => ({ key, ask: open.ask }));
  }

  /**
   * Fails the open request `key` with `error` (its client answered the request a
   * 2025-11-25 task sent it with a JSON-RPC error): the tool's request throws it, and the
   * request leaves the open ones. Nothing happens when `key` names no open request.
   */
  refuse(key: string, error: unknown): void {
    const open = this.#open.get(key);
    if (open === undefined) return;
    this.#open.delete(key);
    open.reject(error);
    this.#requestsChanged();
  }

  /** The route of the tool's progress: each update becomes the task's status message. */
  readonly route: CallRoute = {
    progressToken: 'task',
    // Its client polls the task: nothing waits on a request for a keepalive to keep open.
    polled: true,
    notify: (notification: ServerNotification): Promise<void> => {
      if (notification.method === 'notifications/progress') {
        const { message, progress, total } = notification.params;
        const text = message ?? (total === undefined ? `${progress}` : `${progress}/${total}`);
        this.#status(this.#record.status, statusText(text));
      }
      return Promise.resolve();
    },
    // MCP does not carry log lines for tasks.
    log: () => Promise.resolve(),
  };

  /**
   * The tool's elicitor: a question opens `input_required` with the question under its
   * key (the tool's, or `elicit_<n>`, never reused) until `tasks/update` answers it.
   * Undefined when the client declared no elicitation: then `ctx.ask` fails with a
   * MissingCapabilityError, as in any 2026-07-28 call, and a tool that does not catch it
   * ends the task `failed` with MissingRequiredClientCapability (-32021).
   */
  get elicitor(): Elicitor | undefined {
    if (!declares(this.#capabilities?.elicitation)) return undefined;
    return (elicitation) => this.put(elicitationAsk(elicitation));
  }

  /** The tool's sampler (`sample_<n>` unless keyed): as the elicitor, for `ctx.sample`. */
  get sampler(): Sampler | undefined {
    if (!declares(this.#capabilities?.sampling)) return undefined;
    return (request) => this.put(samplingAsk(request));
  }

  /** The tool's roots lister (`roots_<n>` unless keyed): as the elicitor, for `ctx.roots`. */
  get rootsLister(): RootsLister | undefined {
    if (!declares(this.#capabilities?.roots)) return undefined;
    return (request) => this.put(rootsAsk(request));
  }

  /**
   * Opens a request of the client under its key, the task `input_required` until
   * `tasks/update` answers it. It fails at once when the task is over, when the client
   * did not declare what it needs (a MissingCapabilityError), and when its key names
   * another request still open.
   */
  put<T>(ask: ClientAsk<T>): Promise<T> {
    if (isFinal(this.#record.status)) {
      return Promise.reject(new AgentToolError('CANCELLED', 'mcp: the task is over'));
    }
    const missing = ask.missingFrom(this.#capabilities);
    if (missing !== undefined) return Promise.reject(missing);
    let key = ask.key;
    if (key !== undefined && this.#open.has(key)) {
      return Promise.reject(
        new AgentToolError(
          'INVALID_OPTIONS',
          `mcpserver: ${ask.feature}: the key ${goQuote(key)} names another open request of the task; give each request its own key`,
        ),
      );
    }
    while (key === undefined || this.#open.has(key)) {
      key = `${AUTO_KEY_PREFIX[ask.feature]}_${++this.#seq[ask.feature]}`;
    }
    const opened = key;
    return new Promise<T>((resolve, reject) => {
      this.#open.set(opened, { ask, resolve: resolve as (value: unknown) => void, reject });
      this.#requestsChanged();
      for (const listener of [...this.#onOpened]) listener();
    });
  }

  /**
   * Takes the client's answers: each answers the open request of its key and leaves the
   * open requests (one answered null reads as the request says: a question `cancel`);
   * keys that name no open request are ignored. Only the responses' own members are
   * read. Resolves once the new state is stored.
   */
  async answer(responses: Readonly<Record<string, unknown>>): Promise<void> {
    let answered = false;
    for (const [key, open] of [...this.#open]) {
      if (!Object.hasOwn(responses, key)) continue;
      const response = responses[key];
      this.#open.delete(key);
      answered = true;
      try {
        open.resolve(
          response === null || response === undefined
            ? open.ask.unanswered()
            : open.ask.read(response),
        );
      } catch (error) {
        open.reject(error);
      }
    }
    if (answered) this.#requestsChanged();
    await this.flushed();
  }

  /** Cancels the task: it reads `cancelled` from now on and its tool's signal aborts. */
  async cancel(): Promise<void> {
    if (!isFinal(this.#record.status)) {
      this.#end({ status: 'cancelled', statusMessage: 'cancelled by the client' });
      this.#abort(new AgentToolError('CANCELLED', 'mcp: the task was cancelled'));
    }
    await this.flushed();
  }

  /**
   * Ends the task `failed` with `message` (the server stops while it runs) and stops its
   * tool; a final task stays as it is.
   */
  stop(message: string): void {
    if (isFinal(this.#record.status)) return;
    this.#end({
      status: 'failed',
      statusMessage: message,
      error: { code: INTERNAL_ERROR, message },
    });
    this.#abort(new AgentToolError('CANCELLED', message));
  }

  /**
   * Follows the tool's call to its end: a result (an isError one too) ends the task
   * `completed`, a JSON-RPC error `failed`. A 2025-11-25 task ends `failed` with an
   * isError result too (as that revision has it), the result kept for `tasks/result`.
   * A task cancelled or stopped meanwhile keeps its status. Resolves once the final
   * state is stored.
   */
  async settle(running: RunningCall): Promise<void> {
    const legacy = this.#record.era === 'legacy';
    let outcome: { result: JsonObject } | { error: TaskError };
    try {
      const result = await running.result;
      // A tool that failed for want of a capability the client did not declare fails its
      // 2026-07-28 request with -32021, as a plain call's does (a 2025-era call's is a
      // result).
      const missing = legacy ? undefined : running.missing();
      outcome =
        missing === undefined
          ? { result: this.#bounded(result) }
          : { error: jsonRpcError(missingCapabilityError(missing)) };
    } catch (error) {
      outcome = { error: jsonRpcError(error) };
    }
    if (!isFinal(this.#record.status)) {
      this.#end(
        'error' in outcome
          ? { status: 'failed', statusMessage: outcome.error.message, error: outcome.error }
          : legacy && outcome.result.isError === true
            ? {
                status: 'failed',
                statusMessage: statusText(resultText(outcome.result)),
                result: outcome.result,
              }
            : { status: 'completed', result: outcome.result },
      );
    }
    await this.flushed();
    this.#finish();
  }

  /** Resolves once every state so far is stored (or failed to be, which is reported). */
  async flushed(): Promise<void> {
    while (this.#saving !== undefined) await this.#saving;
  }

  /**
   * The task's result as stored, within the size limit: `resultType: "complete"` on the
   * 2026-07-28 wire, the call's result as it is on the 2025-11-25 one.
   */
  #bounded(result: CallToolResult): JsonObject {
    const legacy = this.#record.era === 'legacy';
    const complete: JsonObject = legacy
      ? { ...(result as JsonObject) }
      : { ...(result as JsonObject), resultType: 'complete' };
    const bytes = Buffer.byteLength(JSON.stringify(complete));
    if (bytes <= this.#settings.maxResultBytes) return complete;
    return {
      ...(failure(
        `mcp: tool ${goQuote(this.#record.tool)}: the task's result is ${bytes} bytes of JSON, over the server's tasks.maxResultBytes (${this.#settings.maxResultBytes}); return less (e.g. write large output to a file and return its name), or raise the limit`,
      ) as JsonObject),
      ...(legacy ? {} : { resultType: 'complete' }),
    };
  }

  #requestsChanged(): void {
    if (isFinal(this.#record.status)) return;
    if (this.#open.size === 0) {
      this.#write({ ...this.#without('inputRequests'), status: 'working' });
      return;
    }
    const inputRequests: InputRequests = {};
    for (const [key, open] of this.#open) {
      // A key such as `__proto__` is a member of its own, not the object's prototype.
      Object.defineProperty(inputRequests, key, {
        value: open.ask.inline,
        enumerable: true,
        configurable: true,
        writable: true,
      });
    }
    this.#write({ ...this.#record, status: 'input_required', inputRequests });
  }

  #status(status: TaskStatus, statusMessage: string): void {
    if (isFinal(this.#record.status)) return;
    this.#write({ ...this.#record, status, statusMessage });
  }

  /** Makes the task final with `fields`; its open requests end with it. */
  #end(fields: Partial<TaskRecord> & { status: TaskStatus }): void {
    const open = [...this.#open.values()];
    this.#open.clear();
    this.#write({ ...this.#without('inputRequests'), ...fields });
    for (const request of open) {
      request.reject(new AgentToolError('CANCELLED', `mcp: the task is ${fields.status}`));
    }
    this.#finish();
  }

  #without(key: keyof TaskRecord): TaskRecord {
    const { [key]: _dropped, ...rest } = this.#record;
    return rest as TaskRecord;
  }

  #write(record: TaskRecord): void {
    this.#record = { ...record, lastUpdatedAt: new Date().toISOString() };
    this.#dirty = true;
    this.#saving ??= this.#drainWrites();
  }

  async #drainWrites(): Promise<void> {
    try {
      while (this.#dirty) {
        this.#dirty = false;
        const record = this.#record;
        try {
          await this.#store.put(record);
        } catch (error) {
          this.#report(`mcp: tasks: storing task ${record.taskId} failed`, error);
          continue;
        }
        for (const listener of [...this.#onStored]) listener(record);
      }
    } finally {
      this.#saving = undefined;
    }
  }

  /** The TTL has passed: the store drops the task; a tool still running is stopped. */
  #expire(): void {
    this.#abort(new AgentToolError('CANCELLED', 'mcp: the task outlived its ttlMs'));
    for (const request of this.#open.values()) {
      request.reject(new AgentToolError('CANCELLED', 'mcp: the task outlived its ttlMs'));
    }
    this.#open.clear();
    this.#finish();
  }

  #finish(): void {
    if (this.#over) return;
    this.#over = true;
    clearTimeout(this.#timer);
    for (const listener of this.#onOver.splice(0)) listener();
  }
}

/** True when a client capability is declared (any object, an empty one too). */
function declares(capability: unknown): boolean {
  return capability !== undefined && capability !== null;
}

/** A JSON-RPC error as a failed task carries it: the error's own code, else an internal error. */
function jsonRpcError(error: unknown): TaskError {
  if (ProtocolError.isInstance(error)) {
    return {
      code: error.code,
      message: error.message,
      ...(error.data === undefined ? {} : { data: error.data }),
    };
  }
  return { code: INTERNAL_ERROR, message: errorMessage(error) };
}

/** The text of a tool result's text blocks, one a line (what a failed 2025-era task says). */
function resultText(result: JsonObject): string {
  const content = Array.isArray(result.content) ? result.content : [];
  const texts = content.flatMap((block) =>
    typeof block === 'object' &&
    block !== null &&
    !Array.isArray(block) &&
    typeof block.text === 'string'
      ? [block.text]
      : [],
  );
  return texts.length === 0 ? 'the tool failed' : texts.join('\n');
}

function statusText(text: string): string {
  return text.length <= STATUS_MESSAGE_LIMIT ? text : `${text.slice(0, STATUS_MESSAGE_LIMIT)}…`;
}
