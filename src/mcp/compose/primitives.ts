import { UriTemplate } from '@modelcontextprotocol/server';
import {
  AgentToolError,
  type Completer,
  errorMessage,
  goQuote,
  hasUriScheme,
  type McpResource,
  type McpResourceTemplate,
  type Prompt,
  type PromptMessage,
  type ResourceBody,
  type ResourceReply,
  type StopFollowing,
  type ToolContext,
} from '../../core';
import { type RemoteTools } from '../client';
import { scrubbed, scrubbedError } from './secrets';
import { type SupervisedServer } from './supervised-server';

/** The prompts and resources of the servers, as listed when they were gathered. */
export interface GatheredPrimitives {
  readonly prompts: Prompt[];
  readonly resources: (McpResource | McpResourceTemplate)[];
}

/** What a server says changed: its prompts, or its resources (and templates). */
export type PrimitiveKind = 'prompts' | 'resources';

/** One kind of one server's primitives as last listed, and what listing them reported. */
interface Listed<T> {
  readonly items: readonly T[];
  readonly reports: readonly string[];
  /** The listing failed (reported): listed again at the next gathering, whoever changed. */
  readonly failed: boolean;
}

/** One server's prompts, resources and templates as last listed, over `remote`. */
export interface ServerPrimitives {
  readonly remote: RemoteTools;
  readonly prompts: Listed<Prompt>;
  readonly resources: Listed<McpResource | McpResourceTemplate>;
}

/**
 * Follows the resource at `uri` of `server` for the composition's subscribers (see
 * `UpstreamSubscriptions.follow`).
 */
export type FollowUpstream = (
  server: SupervisedServer,
  uri: string,
  changed: () => void,
) => Promise<StopFollowing>;

/** How long listing one server's prompts or resources may take (ms). */
const LIST_TIMEOUT_MS = 10_000;

/**
 * The prompts, resources and templates of `server` listed now (undefined when it is
 * down): each prompt as `<name>__<prompt>`, each resource and template under its own URI
 * with its name prefixed. Only the `kinds` given are listed when `last` was listed over
 * the same connection; the others are kept from it. Each is answered by the server's
 * connection of the moment (a server down then fails the request saying so). A server
 * that offers completions has each prompt argument and template variable completed by it
 * (see {@link remoteCompleters}). A failed listing is reported and leaves that kind empty.
 * Each resource and template is followed for its subscribers by `follow`, when given.
 */
export async function listServerPrimitives(
  server: SupervisedServer,
  kinds: ReadonlySet<PrimitiveKind>,
  last: ServerPrimitives | undefined,
  follow?: FollowUpstream,
): Promise<ServerPrimitives | undefined> {
  const remote = server.remote;
  if (remote === undefined) return undefined;
  const kept = last?.remote === remote ? last : undefined;
  return {
    remote,
    prompts:
      kept !== undefined && !kinds.has('prompts') && !kept.prompts.failed
        ? kept.prompts
        : await listPrompts(server, remote),
    resources:
      kept !== undefined && !kinds.has('resources') && !kept.resources.failed
        ? kept.resources
        : await listResources(server, remote, follow),
  };
}

/**
 * The servers' listings as one set, in the servers' order; a URI or a name already
 * taken (by an earlier server or `taken`) is left out, reported.
 */
export function combinePrimitives(
  listings: readonly { readonly server: SupervisedServer; readonly listed: ServerPrimitives }[],
  report: (message: string) => void,
  taken: { readonly names: Set<string>; readonly uris: Set<string> } = {
    names: new Set(),
    uris: new Set(),
  },
): GatheredPrimitives {
  const prompts: Prompt[] = [];
  const resources: (McpResource | McpResourceTemplate)[] = [];
  for (const { server, listed } of listings) {
    const name = server.config.name;
    const take = (kind: 'name' | 'uri', key: string, what: string): boolean => {
      const set = kind === 'name' ? taken.names : taken.uris;
      if (set.has(key)) {
        report(
          `mcp server ${goQuote(name)}: ${what} is left out: ${goQuote(key)} is served already`,
        );
        return false;
      }
      set.add(key);
      return true;
    };
    for (const message of listed.prompts.reports) report(message);
    for (const message of listed.resources.reports) report(message);
    for (const prompt of listed.prompts.items) {
      const remoteName = prompt.name.slice(name.length + 2);
      if (!take('name', `prompt:${prompt.name}`, `prompt ${goQuote(remoteName)}`)) continue;
      prompts.push(prompt);
    }
    for (const resource of listed.resources.items) {
      const uri = 'uri' in resource ? resource.uri : resource.uriTemplate;
      const what = `${'uri' in resource ? 'resource' : 'template'} ${goQuote(uri)}`;
      if (!take('uri', uri, what)) continue;
      if (!take('name', `resource:${resource.name}`, what)) continue;
      resources.push(resource);
    }
  }
  return { prompts, resources };
}

/** Lists with `run`; a failure is reported (credentials taken out) and lists none. */
async function listing<T>(
  server: SupervisedServer,
  what: string,
  reports: string[],
  run: () => Promise<T[]>,
): Promise<T[] | undefined> {
  try {
    return await run();
  } catch (error) {
    const message = scrubbed(errorMessage(error), server.config.secrets);
    reports.push(
      `mcp server ${goQuote(server.config.name)}: its ${what} are not served: ${message}`,
    );
    return undefined;
  }
}

async function listPrompts(server: SupervisedServer, remote: RemoteTools): Promise<Listed<Prompt>> {
  const name = server.config.name;
  const reports: string[] = [];
  // Read from the connection listed: one that came up again is listed again.
  const completes = remote.serverCapabilities.completions !== undefined;
  const options = { signal: AbortSignal.timeout(LIST_TIMEOUT_MS) };
  const items: Prompt[] = [];
  const listed = await listing(server, 'prompts', reports, () => remote.listPrompts(options));
  for (const prompt of listed ?? []) {
    items.push({
      name: `${name}__${prompt.name}`,
      ...(prompt.title === undefined ? {} : { title: prompt.title }),
      ...(prompt.description === undefined ? {} : { description: prompt.description }),
      ...(prompt.arguments === undefined ? {} : { arguments: prompt.arguments }),
      ...(completes
        ? remoteCompleters(
            server,
            { type: 'ref/prompt', name: prompt.name },
            (prompt.arguments ?? []).map((a) => a.name),
          )
        : {}),
      get: async (args, ctx) => {
        const result = await cleanly(server, () =>
          connection(server).getPrompt(prompt.name, args, requestOf(ctx)),
        );
        return {
          ...(result.description === undefined ? {} : { description: result.description }),
          messages: result.messages as unknown as PromptMessage[],
        };
      },
    });
  }
  return { items, reports, failed: listed === undefined };
}

async function listResources(
  server: SupervisedServer,
  remote: RemoteTools,
  follow: FollowUpstream | undefined,
): Promise<Listed<McpResource | McpResourceTemplate>> {
  const name = server.config.name;
  const reports: string[] = [];
  const report = (message: string): void =>
    void reports.push(`mcp server ${goQuote(name)}: ${message}`);
  const completes = remote.serverCapabilities.completions !== undefined;
  const options = { signal: AbortSignal.timeout(LIST_TIMEOUT_MS) };
  const items: (McpResource | McpResourceTemplate)[] = [];
  // Whether the server offers subscriptions is asked when one is made, over the
  // connection of that moment.
  const followed =
    follow === undefined
      ? {}
      : { follow: (uri: string, changed: () => void) => follow(server, uri, changed) };
  const listed = await listing(server, 'resources', reports, () => remote.listResources(options));
  for (const resource of listed ?? []) {
    if (!hasUriScheme(resource.uri)) {
      report(`resource ${goQuote(resource.uri)} is left out: its uri is not a URI (scheme:...)`);
      continue;
    }
    items.push({
      ...description(resource),
      name: `${name}__${resource.name}`,
      uri: resource.uri,
      ...(resource.size === undefined ? {} : { size: resource.size }),
      ...followed,
      read: async (ctx: ToolContext) =>
        reply(
          await cleanly(server, () =>
            connection(server).readResource(resource.uri, requestOf(ctx)),
          ),
        ),
    });
  }
  const templates = await listing(server, 'resource templates', reports, () =>
    remote.listResourceTemplates(options),
  );
  for (const template of templates ?? []) {
    const unusable = templateProblem(template.uriTemplate);
    if (unusable !== undefined) {
      report(`template ${goQuote(template.uriTemplate)} is left out: ${unusable}`);
      continue;
    }
    items.push({
      ...description(template),
      name: `${name}__${template.name}`,
      uriTemplate: template.uriTemplate,
      ...(completes
        ? remoteCompleters(
            server,
            { type: 'ref/resource', uri: template.uriTemplate },
            variablesOf(template.uriTemplate),
          )
        : {}),
      ...followed,
      read: async (_vars: Readonly<Record<string, string>>, uri: string, ctx: ToolContext) =>
        reply(await cleanly(server, () => connection(server).readResource(uri, requestOf(ctx)))),
    });
  }
  return { items, reports, failed: listed === undefined || templates === undefined };
}

/** The server's connection now, or an error saying it is not connected. */
function connection(server: SupervisedServer): RemoteTools {
  const remote = server.remote;
  if (remote === undefined) {
    throw new AgentToolError(
      'CONNECTION',
      `mcp server ${goQuote(server.config.name)} is not connected now (${server.status.state}); try again later`,
    );
  }
  return remote;
}

/**
 * What `run` answers over the server's connection; its failure without the server's
 * credentials, as a tool's is: the server may quote them, and the composition's clients
 * may be remote callers.
 */
async function cleanly<T>(server: SupervisedServer, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw scrubbedError(error, server.config.secrets);
  }
}

/**
 * Completers of `names` (a prompt's arguments, a template's variables) that ask the
 * server of `ref` (its own prompt name, its template), over its connection of the
 * moment, and give its values; none for no names (nothing to offer). A failed request
 * (the server down, its refusal, the client's cancel) fails the completion with the
 * server's message, as a local completer's throw does: the client sees that it failed,
 * not "no values".
 */
function remoteCompleters(
  server: SupervisedServer,
  ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
  names: readonly string[],
): { completions?: Record<string, Completer> } {
  if (names.length === 0) return {};
  const completions: Record<string, Completer> = {};
  for (const name of names) {
    // Defined, not assigned: a remote's argument named `__proto__` is one more key.
    Object.defineProperty(completions, name, {
      enumerable: true,
      value: async (value: string, context: Readonly<Record<string, string>>, ctx: ToolContext) => {
        const result = await cleanly(server, () =>
          connection(server).complete(
            ref,
            { name, value },
            { arguments: context },
            { signal: ctx.signal },
          ),
        );
        // The remote's count and hasMore pass through with its values.
        const { values, total, hasMore } = result.completion;
        return { values, total, hasMore };
      },
    });
  }
  return { completions };
}

/**
 * Why the SDK cannot match URIs against `uriTemplate`, or undefined: a template the
 * served catalog would refuse is left out here, so that it blocks none of the others.
 */
function templateProblem(uriTemplate: string): string | undefined {
  try {
    new UriTemplate(uriTemplate);
    return undefined;
  } catch (error) {
    return `it is not an RFC 6570 template: ${errorMessage(error)}`;
  }
}

/** The variable names of an RFC 6570 template, each once; none for one the SDK cannot parse. */
function variablesOf(uriTemplate: string): string[] {
  try {
    // The SDK keeps a prefix modifier on the name (`{id:3}` gives `id:3`).
    const names = new UriTemplate(uriTemplate).variableNames.map((n) => n.replace(/:\d+$/, ''));
    return [...new Set(names)];
  } catch {
    // Not served anyway: the served catalog refuses a template it cannot parse.
    return [];
  }
}

function requestOf(ctx: ToolContext): { context: ToolContext; signal: AbortSignal } {
  return { context: ctx, signal: ctx.signal };
}

function reply(result: { readonly contents: readonly unknown[] }): ResourceReply {
  return { contents: result.contents as ResourceBody[] };
}

function description(listed: {
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  readonly mimeType?: string | undefined;
}): { title?: string; description?: string; mimeType?: string } {
  return {
    ...(listed.title === undefined ? {} : { title: listed.title }),
    ...(listed.description === undefined ? {} : { description: listed.description }),
    ...(listed.mimeType === undefined ? {} : { mimeType: listed.mimeType }),
  };
}

/** Whether a kind of `listed` failed last time: it is listed again at the next gathering. */
export function listingFailed(listed: ServerPrimitives | undefined): boolean {
  return listed !== undefined && (listed.prompts.failed || listed.resources.failed);
}
