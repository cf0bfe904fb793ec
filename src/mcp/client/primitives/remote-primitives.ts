import {
  type Client,
  type CompleteResult,
  type GetPromptResult,
  type Prompt,
  type PromptReference,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateReference,
  type ResourceTemplateType,
} from '@modelcontextprotocol/client';
import { AgentToolError } from '../../../core';
import { cancelledAt, type RemoteCalls } from '../calls';
import { quotedExcerpt } from '../excerpts';
import { withInput } from './input-rounds';
import { listEvery, type Paged } from './paging';
import { type ListOptions, type PrimitiveRequestOptions } from './request-options';
import { ResourceListens } from './resource-listens';

/** What the primitives need of the connection they are reached through. */
export interface PrimitivesConnection {
  readonly calls: RemoteCalls;
  readonly client: () => Client;
  /** How the server is named in errors: its name, or the target it was reached at. */
  readonly serverName: () => string;
  /** Emits a process warning once per message. */
  readonly warn: (message: string, code: string) => void;
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
  /** The 2026-07-28 resource subscriptions, on `subscriptions/listen` streams. */
  readonly #listens: ResourceListens;
  /** The URIs a 2025-era server was subscribed to: made again in a session that replaces its. */
  readonly #subscribed = new Set<string>();

  constructor(private readonly connection: PrimitivesConnection) {
    const calls = connection.calls;
    this.#listens = new ResourceListens({
      open: (where, uris, options) =>
        calls.send(
          where,
          (c, sent) => c.listen({ resourceSubscriptions: [...uris] }, sent),
          options,
        ),
      subscribing: (uri) => this.#where('resources/subscribe', uri),
      reopening: () => this.#where('subscriptions/listen'),
      closed: calls.closed,
      cancelled: cancelledAt,
      lost: (message) => connection.warn(message, 'AGENTTOOL_MCP_SUBSCRIBE_AGAIN_FAILED'),
    });
  }

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
    // 2026-07-28 has no resources/subscribe: updates come on subscriptions/listen streams.
    await this.#listens.subscribe(uri, options);
  }

  /**
   * True when an update of `uri` from a 2026-07-28 server is wanted: its URI is
   * subscribed to (a stream being opened anew may still name one unsubscribed from).
   */
  follows(uri: string): boolean {
    return this.#listens.follows(uri);
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
    await this.#listens.unsubscribe(uri);
  }

  /** Ends every 2026-07-28 resource subscription (the connection is closing). */
  async close(): Promise<void> {
    this.#subscribed.clear();
    await this.#listens.close();
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

  /**
   * `mcp: <method> "<target>" on server "<name>"`: what failed, and where; each quoted cut
   * short (the server names itself, and may give the names and URIs asked for).
   */
  #where(method: string, target?: string): string {
    const on = `on server ${quotedExcerpt(this.connection.serverName())}`;
    return target === undefined
      ? `mcp: ${method} ${on}`
      : `mcp: ${method} ${quotedExcerpt(target)} ${on}`;
  }
}
