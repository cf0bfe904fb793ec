import {
  type Client,
  type CompleteResult,
  type GetPromptResult,
  type McpSubscription,
  type Prompt,
  type PromptReference,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateReference,
  type ResourceTemplateType,
} from '@modelcontextprotocol/client';
import { AgentToolError, goQuote } from '../../../core';
import { type RemoteCalls } from '../calls';
import { withInput } from './input-rounds';
import { listEvery, type Paged } from './paging';
import { type ListOptions, type PrimitiveRequestOptions } from './request-options';

/** What the primitives need of the connection they are reached through. */
export interface PrimitivesConnection {
  readonly calls: RemoteCalls;
  readonly client: () => Client;
  /** How the server is named in errors: its name, or the target it was reached at. */
  readonly serverName: () => string;
}

/** The argument a completion is asked for: its name, and what has been typed so far. */
export interface CompletionArgument {
  /** The argument's name (a prompt argument, or a template's variable). */
  readonly name: string;
  /** What has been typed so far ("" for every value). */
  readonly value: string;
}

/** What a completion may know besides: the values of the other arguments already given. */
export interface CompletionContext {
  /** The other arguments' values, by name. */
  readonly arguments?: Readonly<Record<string, string>>;
}

/** How long a dropped 2026-07-28 subscription stream first waits before it is opened again (ms). */
const REOPEN_DELAY_MS = 1000;
/** The longest wait between attempts to open it again (ms). */
const MAX_REOPEN_DELAY_MS = 60_000;

const PROMPTS: Paged<Prompt> = {
  method: 'prompts/list',
  page: async (client, cursor, options) => {
    const page = await client.request(
      { method: 'prompts/list', params: cursor === undefined ? {} : { cursor } },
      options,
    );
    return { items: page.prompts, nextCursor: page.nextCursor };
  },
};

const RESOURCES: Paged<Resource> = {
  method: 'resources/list',
  page: async (client, cursor, options) => {
    const page = await client.request(
      { method: 'resources/list', params: cursor === undefined ? {} : { cursor } },
      options,
    );
    return { items: page.resources, nextCursor: page.nextCursor };
  },
};

const TEMPLATES: Paged<ResourceTemplateType> = {
  method: 'resources/templates/list',
  page: async (client, cursor, options) => {
    const page = await client.request(
      { method: 'resources/templates/list', params: cursor === undefined ? {} : { cursor } },
      options,
    );
    return { items: page.resourceTemplates, nextCursor: page.nextCursor };
  },
};

/**
 * A server's prompts, resources, resource templates and completions, reached through
 * one connection: what `RemoteTools` offers besides the tools.
 */
export class RemotePrimitives {
  /** The open 2026-07-28 resource subscriptions (`subscriptions/listen` streams), by URI. */
  readonly #listening = new Map<string, Promise<McpSubscription>>();
  /** The URIs a 2025-era server was subscribed to: made again in a session that replaces its. */
  readonly #subscribed = new Set<string>();

  constructor(private readonly connection: PrimitivesConnection) {}

  listPrompts(options: ListOptions = {}): Promise<Prompt[]> {
    return this.#list(PROMPTS, 'prompts', options);
  }

  listResources(options: ListOptions = {}): Promise<Resource[]> {
    return this.#list(RESOURCES, 'resources', options);
  }

  listResourceTemplates(options: ListOptions = {}): Promise<ResourceTemplateType[]> {
    return this.#list(TEMPLATES, 'resources', options);
  }

  getPrompt(
    name: string,
    args: Readonly<Record<string, string>> | undefined,
    options: PrimitiveRequestOptions = {},
  ): Promise<GetPromptResult> {
    const where = this.#where('prompts/get', name);
    const params = { name, ...(args === undefined ? {} : { arguments: { ...args } }) };
    return withInput<GetPromptResult>(
      this.connection.calls,
      where,
      (client, retry, sent) => client.getPrompt({ ...params, ...retry }, sent),
      options,
    );
  }

  readResource(uri: string, options: PrimitiveRequestOptions = {}): Promise<ReadResourceResult> {
    const where = this.#where('resources/read', uri);
    return withInput<ReadResourceResult>(
      this.connection.calls,
      where,
      (client, retry, sent) => client.readResource({ uri, ...retry }, sent),
      options,
    );
  }

  complete(
    ref: PromptReference | ResourceTemplateReference,
    argument: CompletionArgument,
    context: CompletionContext | undefined,
    options: ListOptions = {},
  ): Promise<CompleteResult> {
    const target = ref.type === 'ref/prompt' ? ref.name : ref.uri;
    const where = this.#where('completion/complete', `${target} ${argument.name}`);
    const params = {
      ref,
      argument: { name: argument.name, value: argument.value },
      ...(context?.arguments === undefined
        ? {}
        : { context: { arguments: { ...context.arguments } } }),
    };
    return this.connection.calls.send(
      where,
      (client, sent) => client.complete(params, sent),
      options,
    );
  }

  async subscribeResource(uri: string, options: ListOptions = {}): Promise<void> {
    const where = this.#where('resources/subscribe', uri);
    const client = this.connection.client();
    if (client.getServerCapabilities()?.resources?.subscribe !== true) {
      throw new AgentToolError(
        'PROTOCOL',
        `${where}: the server does not offer resource subscriptions (its resources capability has no "subscribe")`,
      );
    }
    if (client.getProtocolEra() !== 'modern') {
      await this.connection.calls.send(
        where,
        (c, sent) => c.subscribeResource({ uri }, sent),
        options,
      );
      this.#subscribed.add(uri);
      return;
    }
    // 2026-07-28 has no resources/subscribe: updates come on a subscriptions/listen stream.
    if (this.#listening.has(uri)) return;
    const opening = this.#listen(where, uri, options);
    this.#listening.set(uri, opening);
    try {
      await opening;
    } catch (error) {
      this.#listening.delete(uri);
      throw error;
    }
    this.#reopenWhenDropped(where, uri, opening);
  }

  /**
   * Subscribes again, in a 2025-era session that replaced a lost one (the server's
   * instance went away with what it knew), to each URI subscribed to before; resolves
   * with the failures, one line each.
   */
  async subscribeAgain(): Promise<string[]> {
    const failures: string[] = [];
    for (const uri of [...this.#subscribed]) {
      const where = this.#where('resources/subscribe', uri);
      try {
        await this.connection.calls.send(
          where,
          (c, sent) => c.subscribeResource({ uri }, sent),
          {},
        );
      } catch (error) {
        failures.push(error instanceof Error ? error.message : `${where}: ${String(error)}`);
      }
    }
    return failures;
  }

  async unsubscribeResource(uri: string, options: ListOptions = {}): Promise<void> {
    const where = this.#where('resources/unsubscribe', uri);
    const client = this.connection.client();
    if (client.getProtocolEra() !== 'modern') {
      this.#subscribed.delete(uri);
      await this.connection.calls.send(
        where,
        (c, sent) => c.unsubscribeResource({ uri }, sent),
        options,
      );
      return;
    }
    const opening = this.#listening.get(uri);
    this.#listening.delete(uri);
    if (opening === undefined) return;
    const subscription = await opening.catch(() => undefined);
    await subscription?.close();
  }

  /** Ends every 2026-07-28 resource subscription (the connection is closing). */
  async close(): Promise<void> {
    const open = [...this.#listening.values()];
    this.#listening.clear();
    this.#subscribed.clear();
    await Promise.all(open.map(async (opening) => (await opening.catch(() => undefined))?.close()));
  }

  #listen(where: string, uri: string, options: ListOptions): Promise<McpSubscription> {
    return this.connection.calls.send(
      where,
      (c, sent) => c.listen({ resourceSubscriptions: [uri] }, sent),
      options,
    );
  }

  /**
   * A 2026-07-28 subscription's stream that ends while the URI is still subscribed to
   * and the connection open (dropped, or ended by the server, which restarts) is opened
   * again: a second later, then twice as long after each attempt that fails or ends at
   * once (up to a minute), as the connection's stream of list changes is. One that ends
   * for good leaves the URI unsubscribed, so that `subscribeResource` opens it anew.
   */
  #reopenWhenDropped(where: string, uri: string, opening: Promise<McpSubscription>): void {
    void (async () => {
      let current = opening;
      let delay = REOPEN_DELAY_MS;
      for (;;) {
        const opened = Date.now();
        const reason = await current.then(
          (subscription) => subscription.closed,
          () => 'remote' as const,
        );
        if (this.#listening.get(uri) !== current) return;
        if (reason === 'local' || this.connection.calls.closed.aborted) {
          this.#listening.delete(uri);
          return;
        }
        // A stream that stayed open a while starts the waits over.
        if (Date.now() - opened > MAX_REOPEN_DELAY_MS) delay = REOPEN_DELAY_MS;
        await new Promise((resolve) => setTimeout(resolve, delay).unref());
        delay = Math.min(delay * 2, MAX_REOPEN_DELAY_MS);
        if (this.#listening.get(uri) !== current) return;
        if (this.connection.calls.closed.aborted) {
          this.#listening.delete(uri);
          return;
        }
        const again = this.#listen(where, uri, {});
        // An unsubscribe meanwhile closes the new stream once it is open.
        again.catch(() => undefined);
        this.#listening.set(uri, again);
        current = again;
      }
    })();
  }

  async #list<T>(
    paged: Paged<T>,
    capability: 'prompts' | 'resources',
    options: ListOptions,
  ): Promise<T[]> {
    // A server that offers none lists none, as the SDK's own listing answers.
    if (this.connection.client().getServerCapabilities()?.[capability] === undefined) return [];
    const where = this.#where(paged.method);
    return listEvery(paged, where, (fetch) => this.connection.calls.send(where, fetch, options));
  }

  /** `mcp: <method> "<target>" on server "<name>"`: what failed, and where. */
  #where(method: string, target?: string): string {
    const on = `on server ${goQuote(this.connection.serverName())}`;
    return target === undefined
      ? `mcp: ${method} ${on}`
      : `mcp: ${method} ${goQuote(target)} ${on}`;
  }
}
