import { type IncomingMessage, type ServerResponse } from 'node:http';
import {
  AgentToolError,
  type McpResource,
  type McpResourceTemplate,
  type Prompt,
  type Tool,
} from 'agenttool';
import { type HttpHandler, type McpToolServer, serveTools } from 'agenttool/mcp';
import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, ExternalContextCreator, HttpAdapterHost, ModuleRef } from '@nestjs/core';
import { AGENTTOOL_MODULE_OPTIONS, type AgentToolModuleOptions } from './options';
import { OwnSession } from './sessions';
import { requests } from './calls';
import { type DiscoveredPrimitives, discoverPrimitives } from './primitives';
import { type DiscoveredTool, discoverTools } from './tools';

/** Express's request and response, or Fastify's (which wrap Node's as `raw`). */
interface FrameworkRequest {
  readonly raw?: IncomingMessage;
  readonly body?: unknown;
}
interface FrameworkReply {
  readonly raw?: ServerResponse;
  hijack?(): void;
}

/** What the route check needs of an Express app (its router, Express 5) or a Fastify instance. */
interface RoutedApp {
  readonly router?: {
    readonly stack?: readonly { readonly route?: { readonly path?: unknown } }[];
  };
  readonly supportedMethods?: readonly string[];
  hasRoute?(route: { method: string; url: string }): boolean;
}

/** True when the app already has a route on `path` (a controller's), for any method. */
function isRouted(app: RoutedApp, fastify: boolean, path: string): boolean {
  if (fastify) {
    return (app.supportedMethods ?? []).some((method) => app.hasRoute?.({ method, url: path }));
  }
  return (app.router?.stack ?? []).some((layer) => layer.route?.path === path);
}

/** A path of the endpoint that a controller routes already: which, and the option that moves it. */
function routedAlready(path: string, endpoint: string): AgentToolError {
  const what =
    path === endpoint
      ? 'set the path option to another'
      : path.startsWith('/.well-known/')
        ? 'it serves the OAuth protected resource metadata of http.auth.resource; route the controller elsewhere'
        : 'it is the health route; set http.healthPath to another, or to false';
  return new AgentToolError(
    'INVALID_OPTIONS',
    `agenttool/nest: path ${JSON.stringify(path)} is already routed by a controller; ${what}`,
  );
}

/**
 * The paths each HTTP app (Express's or Fastify's instance) has had mounted by an
 * `AgentToolServer`, with the path of the endpoint each belongs to: a second
 * `AgentToolModule` on one of them is told apart from a controller there.
 */
const mountedPaths = new WeakMap<object, Map<string, string>>();

/** A path of the endpoint that another AgentToolModule of the app serves already. */
function servedAlready(path: string, endpoint: string, other: string): AgentToolError {
  const what =
    path === endpoint
      ? 'the path option'
      : path.startsWith('/.well-known/')
        ? 'the path option (the protected resource metadata is served under it)'
        : 'http.healthPath (or false)';
  return new AgentToolError(
    'INVALID_OPTIONS',
    `agenttool/nest: path ${JSON.stringify(path)} is already served by another AgentToolModule of this app (its endpoint is ${JSON.stringify(other)}): AgentToolModule.forRoot is imported more than once with different options; import it once, or give each its own ${what} and the modules it serves with include`,
  );
}

/**
 * The module's MCP server: discovers the `@Tool`, `@Prompt`, `@McpResource` and
 * `@McpResourceTemplate` providers when the module initializes,
 * serves them on the app's HTTP adapter (Express or Fastify) at the module's path, for
 * clients of both protocol eras, and stops when the app closes. Inject it to reach the
 * `McpToolServer` of `agenttool/mcp` (to serve stdio too, or add tools).
 */
@Injectable()
export class AgentToolServer implements OnModuleInit, OnModuleDestroy {
  #mcp: McpToolServer | undefined;
  #handler: HttpHandler | undefined;
  #served: DiscoveredTool[] = [];
  #primitives: DiscoveredPrimitives = { prompts: [], resources: [] };
  #closing: Promise<void> | undefined;
  /** The session of calls that come without one; it ends when the server closes. */
  readonly #ownSession = new OwnSession();

  constructor(
    @Inject(AGENTTOOL_MODULE_OPTIONS) private readonly options: AgentToolModuleOptions,
    private readonly discovery: DiscoveryService,
    private readonly moduleRef: ModuleRef,
    private readonly contextCreator: ExternalContextCreator,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  /** The MCP server of the app's tools; there once the module has initialized. */
  get mcp(): McpToolServer {
    if (this.#mcp === undefined) {
      throw new Error('agenttool/nest: the MCP server exists once the module has initialized');
    }
    return this.#mcp;
  }

  /** The tools served, in discovery order. */
  get tools(): readonly Tool[] {
    return this.#served.map((found) => found.tool);
  }

  /** The prompts of the app's `@Prompt` providers, in discovery order. */
  get prompts(): readonly Prompt[] {
    return this.#primitives.prompts;
  }

  /**
   * The MCP resources and resource templates of the app's `@McpResource` and
   * `@McpResourceTemplate` providers, in discovery order.
   */
  get resources(): readonly (McpResource | McpResourceTemplate)[] {
    return this.#primitives.resources;
  }

  /** The endpoint's path on the app's HTTP adapter. */
  get path(): string {
    return this.options.path ?? '/mcp';
  }

  /**
   * Discovers the tools, prompts and resources and mounts the endpoint. Runs in Nest's `onModuleInit`, after
   * every provider exists and before Nest adds its not-found handler to the adapter.
   */
  onModuleInit(): void {
    const { path: _path, http, include, ...serverOptions } = this.options;
    const nest = {
      discovery: this.discovery,
      moduleRef: this.moduleRef,
      contextCreator: this.contextCreator,
      ownSession: this.#ownSession,
    };
    this.#served = discoverTools(nest, include);
    this.#primitives = discoverPrimitives(nest, include);
    // Prompts and resources given in the options are served after these.
    this.#mcp = serveTools(
      { tools: this.#served.map((found) => found.tool), ...this.#primitives },
      serverOptions,
    );
    const adapter = this.adapterHost.httpAdapter as
      HttpAdapterHost['httpAdapter'] | null | undefined;
    // An application context (no HTTP adapter: null in NestJS 12) serves nothing over
    // HTTP; stdio is the app's.
    if (adapter === undefined || adapter === null) return;
    const handler = this.#mcp.handler({ ...http, path: this.path });
    this.#handler = handler;
    const fastify = adapter.getType() === 'fastify';
    // Controllers are routed by now: one on a path of ours would shadow it (Express) or
    // fail the app with Fastify's words, so it is said plainly first.
    const app: RoutedApp & object = adapter.getInstance();
    const mounted = mountedPaths.get(app) ?? new Map<string, string>();
    mountedPaths.set(app, mounted);
    for (const path of handler.paths) {
      const other = mounted.get(path);
      if (other !== undefined) throw servedAlready(path, this.path, other);
      if (isRouted(app, fastify, path)) throw routedAlready(path, this.path);
    }
    for (const path of handler.paths) {
      mounted.set(path, this.path);
      adapter.all(path, (req: FrameworkRequest, res: FrameworkReply) => {
        const raw = fastify ? req.raw! : (req as unknown as IncomingMessage);
        const out = fastify ? res.raw! : (res as unknown as ServerResponse);
        // Fastify would answer itself: the handler writes the raw response, streams included.
        if (fastify) res.hijack?.();
        void requests.run(req, () => handler.node(raw, out, req.body));
      });
    }
  }

  /**
   * Stops serving when the app closes (Nest's `onModuleDestroy`): running calls are
   * stopped and answered, sessions end (with the instances an agenttool/di module
   * made for them, see `asNestModule`), and so does the session of calls that came
   * without one, streams close, and then the tools that are closers (a singleton with
   * `close()`) are closed, once. Nest's own hooks of the tool
   * providers run as Nest runs them.
   */
  onModuleDestroy(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    await this.#mcp?.close();
    await this.#handler?.close();
    const errors: unknown[] = await this.#ownSession.end();
    for (const found of this.#served) {
      try {
        await found.close?.();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) {
      throw new AggregateError(errors, `agenttool/nest: ${errors.length} tools failed to close`);
    }
  }
}
