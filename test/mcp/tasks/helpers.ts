/** A 2026-07-28 client of the tasks extension that writes its requests by hand. */
import {
  Client,
  ProtocolError,
  type StandardSchemaV1,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { newTool, ProgressInfo } from 'agenttool';
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

/** A tool that reports progress, then runs until the test lets it go (or its signal aborts). */
export function gated(name: string, mode: 'optional' | 'required' | 'never' = 'optional') {
  const started = signal();
  const release = signal<string>();
  const aborted = signal<unknown>();
  const tool = newTool({
    name,
    description: 'runs until released',
    taskSupport: mode,
    execute: async (_call, ctx) => {
      ctx.signal.addEventListener('abort', () => aborted.resolve(ctx.signal.reason));
      ctx.progress(new ProgressInfo(1, 2, 'half way'));
      started.resolve();
      const text = await Promise.race([
        release.promise,
        new Promise<string>((_, reject) =>
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error)),
        ),
      ]);
      return { output: text };
    },
  });
  return { tool, started, release, aborted };
}

/** Any JSON object, as a result schema for the SDK client's `request`. */
export const ANY_RESULT: StandardSchemaV1<Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: (value) =>
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? { value: value as Record<string, unknown> }
        : { issues: [{ message: 'not an object' }] },
  },
};

/**
 * A 2025-era client of the 2025-11-25 experimental tasks: the SDK's v2 `Client` (whose
 * default is the 2025 `initialize`), one session over Streamable HTTP, sending the task
 * requests as they are on that wire.
 */
export class LegacyTaskClient {
  private constructor(readonly client: Client) {}

  /** Opens a session at `url`, with a bearer `token` when given; it declares elicitation. */
  static async open(url: string, token?: string): Promise<LegacyTaskClient> {
    const client = new Client(
      { name: 'legacy-tasks', version: '1' },
      {
        capabilities: { elicitation: {} },
      },
    );
    const headers: Record<string, string> =
      token === undefined ? {} : { authorization: `Bearer ${token}` };
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
    );
    return new LegacyTaskClient(client);
  }

  /** The result of `method`; rejects with the SDK's ProtocolError for a JSON-RPC error. */
  request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.client.request({ method, params }, ANY_RESULT);
  }

  /** The JSON-RPC error `method` answers with; throws when it answers a result. */
  async error(
    method: string,
    params: Record<string, unknown>,
  ): Promise<{ code: number; message: string }> {
    try {
      const result = await this.request(method, params);
      throw new Error(`${method}: no error: ${JSON.stringify(result)}`);
    } catch (error) {
      if (!ProtocolError.isInstance(error)) throw error;
      return { code: error.code, message: error.message };
    }
  }

  /** Calls `name` as a task (`task: {}`, or with a `ttl`); answers the `CreateTaskResult`'s task. */
  async callAsTask(
    name: string,
    args: Record<string, unknown> = {},
    task: Record<string, unknown> = {},
  ): Promise<Record<string, unknown>> {
    const created = await this.request('tools/call', { name, arguments: args, task });
    return created.task as Record<string, unknown>;
  }

  get(taskId: string): Promise<Record<string, unknown>> {
    return this.request('tasks/get', { taskId });
  }

  /** Polls `taskId` until `done` holds for it (bounded); throws with the last state otherwise. */
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

  close(): Promise<void> {
    return this.client.close();
  }
}
