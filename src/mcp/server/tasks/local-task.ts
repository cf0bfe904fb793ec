import {
  type CallToolResult,
  type InputRequests,
  ProtocolError,
  type ServerNotification,
} from '@modelcontextprotocol/server';
import {
  AgentToolError,
  type Answer,
  CANCELLED_ANSWER,
  type Elicitation,
  errorMessage,
  goQuote,
  type JsonObject,
} from '../../../core';
import { type CallRoute, failure, type RunningCall } from '../call';
import {
  answerOf,
  type ElicitationOffer,
  inlineParams,
  offers,
  type Question,
  questionOf,
} from '../elicit';
import { type ErrorReporter } from '../session';
import { type TaskSettings } from './options';
import { type TaskStore } from './store';
import { isFinal, type TaskError, type TaskRecord, type TaskStatus } from './wire';

/** How much of a progress update a task keeps as its status message (characters). */
const STATUS_MESSAGE_LIMIT = 4096;

/** The JSON-RPC code of an error inside the server (a task that failed without its own code). */
const INTERNAL_ERROR = -32603;

interface OpenQuestion {
  readonly question: Question;
  readonly resolve: (answer: Answer) => void;
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
  readonly #offer: ElicitationOffer | undefined;
  readonly #open = new Map<string, OpenQuestion>();
  #seq = 0;
  #saving: Promise<void> | undefined;
  #dirty = false;
  #timer: NodeJS.Timeout | undefined;
  readonly #onOver: (() => void)[] = [];
  #over = false;

  constructor(init: {
    readonly record: TaskRecord;
    readonly store: TaskStore;
    readonly settings: TaskSettings;
    readonly report: ErrorReporter;
    /** Stops the tool (aborts its `ctx.signal`). */
    readonly abort: (reason: unknown) => void;
    /** What the client offered for elicitation; undefined: the task's questions are answered cancel. */
    readonly offer: ElicitationOffer | undefined;
  }) {
    this.#record = init.record;
    this.#store = init.store;
    this.#settings = init.settings;
    this.#report = init.report;
    this.#abort = init.abort;
    this.#offer = init.offer;
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

  /** The route of the tool's progress: each update becomes the task's status message. */
  readonly route: CallRoute = {
    progressToken: 'task',
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
   * The tool's elicitor: a question opens `input_required` with the question under a key
   * of its own (`elicit_<n>`, never reused) until `tasks/update` answers it. Undefined when
   * the client offered no elicitation (the tool then hears `cancel`, as in any call).
   */
  get elicitor(): ((elicitation: Elicitation) => Promise<Answer>) | undefined {
    const offer = this.#offer;
    if (offer === undefined) return undefined;
    return (elicitation) => {
      const question = questionOf(elicitation);
      if (!offers(offer, question)) return Promise.resolve(CANCELLED_ANSWER);
      if (isFinal(this.#record.status)) {
        return Promise.reject(new AgentToolError('CANCELLED', 'mcp: the task is over'));
      }
      return new Promise<Answer>((resolve, reject) => {
        this.#open.set(`elicit_${++this.#seq}`, { question, resolve, reject });
        this.#questionsChanged();
      });
    };
  }

  /**
   * Takes the client's answers: each answers the open question of its key and leaves the
   * open questions; keys that name no open question are ignored. Resolves once the new
   * state is stored.
   */
  async answer(responses: Readonly<Record<string, unknown>>): Promise<void> {
    let answered = false;
    for (const [key, response] of Object.entries(responses)) {
      const open = this.#open.get(key);
      if (open === undefined) continue;
      this.#open.delete(key);
      answered = true;
      try {
        open.resolve(
          response === null || response === undefined
            ? CANCELLED_ANSWER
            : answerOf(open.question, response),
        );
      } catch (error) {
        open.reject(error);
      }
    }
    if (answered) this.#questionsChanged();
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
   * `completed`, a JSON-RPC error `failed`. A task cancelled or stopped meanwhile keeps
   * its status. Resolves once the final state is stored.
   */
  async settle(running: RunningCall): Promise<void> {
    let outcome: { result: JsonObject } | { error: TaskError };
    try {
      outcome = { result: this.#bounded(await running.result) };
    } catch (error) {
      outcome = { error: jsonRpcError(error) };
    }
    if (!isFinal(this.#record.status)) {
      this.#end(
        'result' in outcome
          ? { status: 'completed', result: outcome.result }
          : { status: 'failed', statusMessage: outcome.error.message, error: outcome.error },
      );
    }
    await this.flushed();
    this.#finish();
  }

  /** Resolves once every state so far is stored (or failed to be, which is reported). */
  async flushed(): Promise<void> {
    while (this.#saving !== undefined) await this.#saving;
  }

  /** The task's result as stored: `resultType: "complete"`, within the size limit. */
  #bounded(result: CallToolResult): JsonObject {
    const complete: JsonObject = { ...(result as JsonObject), resultType: 'complete' };
    const bytes = Buffer.byteLength(JSON.stringify(complete));
    if (bytes <= this.#settings.maxResultBytes) return complete;
    return {
      ...(failure(
        `mcp: tool ${goQuote(this.#record.tool)}: the task's result is ${bytes} bytes of JSON, over the server's tasks.maxResultBytes (${this.#settings.maxResultBytes}); return less (e.g. write large output to a file and return its name), or raise the limit`,
      ) as JsonObject),
      resultType: 'complete',
    };
  }

  #questionsChanged(): void {
    if (isFinal(this.#record.status)) return;
    if (this.#open.size === 0) {
      this.#write({ ...this.#without('inputRequests'), status: 'working' });
      return;
    }
    const inputRequests: InputRequests = {};
    for (const [key, open] of this.#open) {
      inputRequests[key] = { method: 'elicitation/create', params: inlineParams(open.question) };
    }
    this.#write({ ...this.#record, status: 'input_required', inputRequests });
  }

  #status(status: TaskStatus, statusMessage: string): void {
    if (isFinal(this.#record.status)) return;
    this.#write({ ...this.#record, status, statusMessage });
  }

  /** Makes the task final with `fields`; its open questions end with it. */
  #end(fields: Partial<TaskRecord> & { status: TaskStatus }): void {
    const open = [...this.#open.values()];
    this.#open.clear();
    this.#write({ ...this.#without('inputRequests'), ...fields });
    for (const question of open) {
      question.reject(new AgentToolError('CANCELLED', `mcp: the task is ${fields.status}`));
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
        try {
          await this.#store.put(this.#record);
        } catch (error) {
          this.#report(`mcp: tasks: storing task ${this.#record.taskId} failed`, error);
        }
      }
    } finally {
      this.#saving = undefined;
    }
  }

  /** The TTL has passed: the store drops the task; a tool still running is stopped. */
  #expire(): void {
    this.#abort(new AgentToolError('CANCELLED', 'mcp: the task outlived its ttlMs'));
    for (const question of this.#open.values()) {
      question.reject(new AgentToolError('CANCELLED', 'mcp: the task outlived its ttlMs'));
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

function statusText(text: string): string {
  return text.length <= STATUS_MESSAGE_LIMIT ? text : `${text.slice(0, STATUS_MESSAGE_LIMIT)}…`;
}
