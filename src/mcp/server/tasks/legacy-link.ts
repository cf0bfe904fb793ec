import { type InputRequest, ProtocolError } from '@modelcontextprotocol/server';
import { AgentToolError, errorMessage, type JsonObject } from '../../../core';
import { legacyTask, withRelatedTask } from './legacy-wire';
import { type LocalTask } from './local-task';
import { msLeft } from './store';
import { type TaskRecord } from './wire';

/** The longest a request may wait for its answer (the timers' own bound, about 24.8 days). */
const LONGEST_WAIT_MS = 2 ** 31 - 1;

/**
 * A way to a 2025-era client: the session a task was made in (its standalone stream),
 * or a `tasks/result` request waiting on the task (its response stream).
 */
export interface LegacyChannel {
  /** Sends a request of the server's; resolves with the client's result. */
  request(
    request: { readonly method: InputRequest['method']; readonly params: JsonObject },
    options: { readonly signal: AbortSignal; readonly timeout: number },
  ): Promise<unknown>;
  /** Sends a notification. */
  notify(notification: { readonly method: string; readonly params: JsonObject }): Promise<void>;
  /** True while the channel can carry messages (its connection is open). */
  live(): boolean;
}

/**
 * What a 2025-11-25 task sends its client: its requests (`elicitation/create`,
 * `sampling/createMessage`, `roots/list`, each naming the task under
 * `io.modelcontextprotocol/related-task`) and `notifications/tasks/status` on each
 * stored change. That revision has no `tasks/update`: a request goes out as a request of
 * the server's, once, over a `tasks/result` request waiting on the task when there is
 * one (that revision's way), else over the session the task was made in (its clients
 * take messages on any stream, the standalone one too). One whose way closed before the
 * answer came goes out again on the next way there is. Its answer answers the tool's
 * request; a JSON-RPC error from the client fails it.
 */
export class LegacyLink {
  readonly #task: LocalTask;
  readonly #home: LegacyChannel | undefined;
  readonly #report: (message: string, error: unknown) => void;
  /** `tasks/result` requests waiting on the task, the latest last. */
  readonly #waiting: LegacyChannel[] = [];
  /** The requests out with the client, by key, each with what stops its wait. */
  readonly #out = new Map<string, AbortController>();
  readonly #unlisten: (() => void)[] = [];

  constructor(
    task: LocalTask,
    home: LegacyChannel | undefined,
    report: (message: string, error: unknown) => void,
  ) {
    this.#task = task;
    this.#home = home;
    this.#report = report;
    this.#unlisten.push(
      task.onRequestOpened(() => this.#deliver()),
      task.onStored((record) => this.#notify(record)),
    );
    task.onOver(() => {
      for (const controller of this.#out.values()) controller.abort();
      this.#out.clear();
      // Its final state is still on its way to the store: told once it is there.
      void task.flushed().then(() => {
        for (const unlisten of this.#unlisten.splice(0)) unlisten();
      });
    });
  }

  /**
   * A `tasks/result` request waits on the task: what has not gone out to the client goes
   * out over it. Returns what ends its wait.
   */
  attach(channel: LegacyChannel): () => void {
    this.#waiting.push(channel);
    this.#deliver();
    return () => {
      const at = this.#waiting.indexOf(channel);
      if (at >= 0) this.#waiting.splice(at, 1);
    };
  }

  /** The way a request goes out now: the latest live `tasks/result`, else the session. */
  #channel(): LegacyChannel | undefined {
    for (let i = this.#waiting.length - 1; i >= 0; i--) {
      const channel = this.#waiting[i]!;
      if (channel.live()) return channel;
    }
    return this.#home?.live() === true ? this.#home : undefined;
  }

  #deliver(): void {
    for (const { key, ask } of this.#task.openRequests()) {
      if (this.#out.has(key)) continue;
      const channel = this.#channel();
      if (channel === undefined) return;
      const controller = new AbortController();
      this.#out.set(key, controller);
      const taskId = this.#task.record.taskId;
      const params = ask.request.params as JsonObject;
      const request = {
        method: ask.request.method,
        params: { ...params, _meta: withRelatedTask(params._meta, taskId) },
      };
      const timeout = Math.min(Math.max(msLeft(this.#task.record), 1), LONGEST_WAIT_MS);
      channel.request(request, { signal: controller.signal, timeout }).then(
        (result) => {
          this.#out.delete(key);
          void this.#task.answer({ [key]: result });
        },
        (error: unknown) => {
          this.#out.delete(key);
          if (controller.signal.aborted) return;
          // The client answered with an error, or the way is open and failed anyway: the
          // tool's request fails. A way that closed: the request goes out on the next one.
          if (ProtocolError.isInstance(error) || channel.live()) {
            const failed = `mcpserver: ${ask.feature}: ${errorMessage(error)}`;
            this.#task.refuse(key, new AgentToolError('PROTOCOL', failed, { cause: error }));
          } else {
            this.#deliver();
          }
        },
      );
    }
  }

  /** `notifications/tasks/status`: over the session, else over the waiting requests. */
  #notify(record: TaskRecord): void {
    const notification = { method: 'notifications/tasks/status', params: legacyTask(record) };
    const home = this.#home?.live() === true ? [this.#home] : [];
    const channels = home.length > 0 ? home : this.#waiting.filter((channel) => channel.live());
    for (const channel of channels) {
      channel.notify(notification).catch((error: unknown) => {
        // A session that closed meanwhile is not worth a report; the client polls.
        if (channel.live()) this.#report('mcp: tasks: a task status notification failed', error);
      });
    }
  }
}

/** The link of each 2025-11-25 task running here. */
const links = new WeakMap<LocalTask, LegacyLink>();

/** Links `task` to its client (see {@link LegacyLink}); `home` is the session it was made in. */
export function linkLegacyTask(
  task: LocalTask,
  home: LegacyChannel | undefined,
  report: (message: string, error: unknown) => void,
): LegacyLink {
  const link = new LegacyLink(task, home, report);
  links.set(task, link);
  return link;
}

/** The link of `task`, when it is a 2025-11-25 task running here. */
export function legacyLinkOf(task: LocalTask): LegacyLink | undefined {
  return links.get(task);
}
