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
  type ToolContext,
} from '../../core';
import { type RemoteTools } from '../client';
import { scrubbed } from './secrets';
import { type SupervisedServer } from './supervised-server';

/** The prompts and resources of the servers, as listed when they were gathered. */
export interface GatheredPrimitives {
  readonly prompts: Prompt[];
  readonly resources: (McpResource | McpResourceTemplate)[];
}

/** How long listing one server's prompts or resources may take (ms). */
const LIST_TIMEOUT_MS = 10_000;

/**
 * The prompts, resources and templates of the servers that are up, listed now: each
 * prompt as `<name>__<prompt>`, each resource and template under its own URI with its
 * name prefixed. Each is answered by the server's connection of the moment (a server
 * down then fails the request saying so). A server that offers completions has each
 * prompt argument and template variable completed by it (see {@link remoteCompleters}).
 * Listing failures are reported and skip that kind of that server; a URI or a name
 * already taken (by an earlier server or `taken`) is left out, reported.
 */
export async function gatherPrimitives(
  servers: readonly SupervisedServer[],
  report: (message: string) => void,
  taken: { readonly names: Set<string>; readonly uris: Set<string> } = {
    names: new Set(),
    uris: new Set(),
  },
): Promise<GatheredPrimitives> {
  const prompts: Prompt[] = [];
  const resources: (McpResource | McpResourceTemplate)[] = [];
  for (const server of servers) {
    const remote = server.remote;
    if (remote === undefined) continue;
    const name = server.config.name;
    const list = async <T>(what: string, run: () => Promise<T[]>): Promise<T[]> => {
      try {
        return await run();
      } catch (error) {
        const message = scrubbed(errorMessage(error), server.config.secrets);
        report(`mcp server ${goQuote(name)}: its ${what} are not served: ${message}`);
        return [];
      }
    };
    const options = { signal: AbortSignal.timeout(LIST_TIMEOUT_MS) };
    // Read from the connection listed: one that came up again is gathered again.
    const completes = remote.serverCapabilities.completions !== undefined;
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
    for (const prompt of await list('prompts', () => remote.listPrompts(options))) {
      const local = `${name}__${prompt.name}`;
      if (!take('name', `prompt:${local}`, `prompt ${goQuote(prompt.name)}`)) continue;
      prompts.push({
        name: local,
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
          const result = await connection(server).getPrompt(prompt.name, args, requestOf(ctx));
          return {
            ...(result.description === undefined ? {} : { description: result.description }),
            messages: result.messages as unknown as PromptMessage[],
          };
        },
      });
    }
    for (const resource of await list('resources', () => remote.listResources(options))) {
      if (!hasUriScheme(resource.uri)) {
        report(
          `mcp server ${goQuote(name)}: resource ${goQuote(resource.uri)} is left out: its uri is not a URI (scheme:...)`,
        );
        continue;
      }
      if (!take('uri', resource.uri, `resource ${goQuote(resource.uri)}`)) continue;
      if (
        !take('name', `resource:${name}__${resource.name}`, `resource ${goQuote(resource.uri)}`)
      ) {
        continue;
      }
      const described = description(resource);
      resources.push({
        ...described,
        name: `${name}__${resource.name}`,
        uri: resource.uri,
        ...(resource.size === undefined ? {} : { size: resource.size }),
        read: async (ctx: ToolContext) =>
          reply(await connection(server).readResource(resource.uri, requestOf(ctx))),
      });
    }
    for (const template of await list('resource templates', () =>
      remote.listResourceTemplates(options),
    )) {
      const unusable = templateProblem(template.uriTemplate);
      if (unusable !== undefined) {
        report(
          `mcp server ${goQuote(name)}: template ${goQuote(template.uriTemplate)} is left out: ${unusable}`,
        );
        continue;
      }
      if (!take('uri', template.uriTemplate, `template ${goQuote(template.uriTemplate)}`)) continue;
      if (
        !take(
          'name',
          `resource:${name}__${template.name}`,
          `template ${goQuote(template.uriTemplate)}`,
        )
      ) {
        continue;
      }
      resources.push({
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
        read: async (_vars: Readonly<Record<string, string>>, uri: string, ctx: ToolContext) =>
          reply(await connection(server).readResource(uri, requestOf(ctx))),
      });
    }
  }
  return { prompts, resources };
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
        const result = await connection(server).complete(
          ref,
          { name, value },
          { arguments: context },
          { signal: ctx.signal },
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
