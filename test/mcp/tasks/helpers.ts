/** A 2026-07-28 client of the tasks extension that writes its requests by hand. */
import { type Answer, modern, post } from '../auth/helpers';

export const TASKS = 'io.modelcontextprotocol/tasks';
export const FINAL = ['completed', 'failed', 'cancelled'];

export interface TaskClientOptions {
  /** Declare the tasks extension (default true). */
  readonly tasks?: boolean;
  /** Extra headers (a bearer token). */
  readonly headers?: Record<string, string>;
  /** The client capabilities besides the extension (default: form elicitation only). */
  readonly capabilities?: Record<string, unknown>;
}

/** One client: its own requests, its own connection (fetch opens one per request). */
export class TaskClient {
  #id = 0;

  constructor(
    readonly url: string,
    readonly options: TaskClientOptions = {},
  ) {}

  /** Sends `method` with `params` (and `meta` in its `_meta`); answers the JSON-RPC message. */
  async request(
    method: string,
    params: Record<string, unknown>,
    meta: Record<string, unknown> = {},
  ): Promise<Answer> {
    const declared: Record<string, unknown> = this.options.capabilities ?? {
      elicitation: { form: {} },
    };
    const extensions = {
      ...(declared.extensions as Record<string, unknown> | undefined),
      ...(this.options.tasks === false ? {} : { [TASKS]: {} }),
    };
    const capabilities = { ...declared, extensions };
    const body = modern(
      method,
      params,
      { ...meta, 'io.modelcontextprotocol/clientCapabilities': capabilities },
      ++this.#id,
    );
    const taskId = typeof params.taskId === 'string' ? { 'mcp-name': params.taskId } : {};
    return post(this.url, body, { ...taskId, ...this.options.headers });
  }

  /** The result of `method`; throws with the JSON-RPC error otherwise. */
  async result(
    method: string,
    params: Record<string, unknown>,
    meta: Record<string, unknown> = {},
  ): Promise<Record<string, unknown>> {
    const answer = await this.request(method, params, meta);
    const result = answer.message?.result as Record<string, unknown> | undefined;
    if (result === undefined) throw new Error(`${method}: no result: ${answer.text}`);
    return result;
  }

  /** The JSON-RPC error `method` answers with; throws when it answers a result. */
  async error(
    method: string,
    params: Record<string, unknown>,
  ): Promise<{ code: number; message: string; data?: Record<string, unknown> }> {
    const answer = await this.request(method, params);
    const error = answer.message?.error as
      { code: number; message: string; data?: Record<string, unknown> } | undefined;
    if (error === undefined) throw new Error(`${method}: no error: ${answer.text}`);
    return error;
  }

  call(name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    return this.result('tools/call', { name, arguments: args });
  }

  get(taskId: string): Promise<Record<string, unknown>> {
    return this.result('tasks/get', { taskId });
  }

  /**
   * Polls `taskId` until `done` holds for it (at most `polls` times, `pauseMs` apart);
   * throws with the last state otherwise.
   */
  async until(
    taskId: string,
    done: (task: Record<string, unknown>) => boolean,
    polls = 500,
    pauseMs = 20,
  ): Promise<Record<string, unknown>> {
    let task: Record<string, unknown> = {};
    for (let i = 0; i < polls; i++) {
      task = await this.get(taskId);
      if (done(task)) return task;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
    throw new Error(`task ${taskId} never got there: ${JSON.stringify(task)}`);
  }

  /** Polls `taskId` until it is final. */
  final(taskId: string): Promise<Record<string, unknown>> {
    return this.until(taskId, (task) => FINAL.includes(String(task.status)));
  }
}

/** The text of a result's first content block. */
export function firstText(result: unknown): string {
  const content = (result as { content?: { text?: string }[] } | undefined)?.content;
  return content?.[0]?.text ?? '';
}

/** A promise and its resolver, for a tool to tell the test what happened. */
export function signal<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
