import {
  type GetPromptResult,
  type Prompt as McpPrompt,
  type BlobResourceContents,
  type Resource as McpListedResource,
  type ResourceTemplateType as McpTemplateDefinition,
  type TextResourceContents,
  UriTemplate,
} from '@modelcontextprotocol/server';
import {
  AgentToolError,
  goQuote,
  hasUriScheme,
  isResourceTemplate,
  type ListedResource,
  type McpResource,
  type McpResourceTemplate,
  type Prompt,
  type PromptMessage,
  type PromptReply,
  type ResourceBody,
  type ResourceReply,
} from '../../../core';

/** A template as served: the template, its matcher, and its definition. */
export interface ServedTemplate {
  readonly template: McpResourceTemplate;
  readonly matcher: UriTemplate;
  readonly definition: McpTemplateDefinition;
}

/** What a server serves besides tools: prompts, resources and templates, each checked once. */
export class Catalog {
  readonly prompts = new Map<string, { prompt: Prompt; definition: McpPrompt }>();
  readonly resources = new Map<string, { resource: McpResource; definition: McpListedResource }>();
  readonly templates: ServedTemplate[] = [];
  /**
   * True when a prompt or template completes an argument (`completion/complete` is
   * served); read once, since every SDK instance (one per 2026-07-28 request) asks.
   */
  readonly completes: boolean;

  /**
   * Checks and keeps `prompts` and `resources` (templates among them): every name
   * non-empty and unique among its kind, every URI and template unique and well formed,
   * every `get` and `read` a function. Throws one error naming each problem.
   */
  constructor(
    prompts: Iterable<Prompt> = [],
    resources: Iterable<McpResource | McpResourceTemplate> = [],
  ) {
    const problems: string[] = [];
    let i = 0;
    for (const prompt of prompts) {
      const at = `prompt[${i++}]`;
      if (typeof prompt?.name !== 'string' || prompt.name === '') {
        problems.push(`${at}: empty name`);
        continue;
      }
      if (typeof prompt.get !== 'function')
        problems.push(`${at} ${goQuote(prompt.name)}: no get()`);
      if (this.prompts.has(prompt.name)) {
        problems.push(`${at}: duplicate prompt name ${goQuote(prompt.name)}`);
        continue;
      }
      this.prompts.set(prompt.name, { prompt, definition: promptDefinition(prompt) });
    }
    i = 0;
    const names = new Set<string>();
    for (const entry of resources) {
      const at = `resource[${i++}]`;
      if (typeof entry?.name !== 'string' || entry.name === '') {
        problems.push(`${at}: empty name`);
        continue;
      }
      if (typeof entry.read !== 'function')
        problems.push(`${at} ${goQuote(entry.name)}: no read()`);
      if (names.has(entry.name)) {
        problems.push(`${at}: duplicate resource name ${goQuote(entry.name)}`);
        continue;
      }
      names.add(entry.name);
      if (isResourceTemplate(entry)) {
        let matcher: UriTemplate;
        try {
          matcher = new UriTemplate(entry.uriTemplate);
        } catch (error) {
          problems.push(
            `${at} ${goQuote(entry.name)}: uriTemplate ${goQuote(entry.uriTemplate)} is not an RFC 6570 template: ${error instanceof Error ? error.message : String(error)}`,
          );
          continue;
        }
        if (this.templates.some((t) => t.template.uriTemplate === entry.uriTemplate)) {
          problems.push(`${at}: duplicate uriTemplate ${goQuote(entry.uriTemplate)}`);
          continue;
        }
        this.templates.push({ template: entry, matcher, definition: templateDefinition(entry) });
      } else {
        const uri = (entry as Partial<McpResource>).uri;
        if (typeof uri !== 'string' || !hasUriScheme(uri)) {
          problems.push(`${at} ${goQuote(entry.name)}: uri ${JSON.stringify(uri)} is not a URI`);
          continue;
        }
        if (this.resources.has(uri)) {
          problems.push(`${at}: duplicate resource uri ${goQuote(uri)}`);
          continue;
        }
        this.resources.set(uri, { resource: entry, definition: listedDefinition(entry) });
      }
    }
    if (problems.length > 0) {
      throw new AgentToolError(
        'INVALID_TOOL_SET',
        `mcp: serve: ${problems.length === 1 ? problems[0] : `\n  - ${problems.join('\n  - ')}`}`,
      );
    }
    this.completes =
      [...this.prompts.values()].some((p) => p.prompt.completions !== undefined) ||
      this.templates.some((t) => t.template.completions !== undefined);
  }

  get hasPrompts(): boolean {
    return this.prompts.size > 0;
  }

  get hasResources(): boolean {
    return this.resources.size > 0 || this.templates.length > 0;
  }

  /** The template a URI matches (the first, in the order served), with its variables. */
  match(uri: string): { served: ServedTemplate; vars: Record<string, string> } | undefined {
    for (const served of this.templates) {
      let matched;
      try {
        matched = served.matcher.match(uri);
      } catch {
        continue;
      }
      if (matched === null) continue;
      const vars: Record<string, string> = {};
      for (const [key, value] of Object.entries(matched)) {
        vars[key] = Array.isArray(value) ? value.join(',') : String(value);
      }
      return { served, vars };
    }
    return undefined;
  }
}

function promptDefinition(prompt: Prompt): McpPrompt {
  const definition: McpPrompt = { name: prompt.name };
  if (prompt.title !== undefined) definition.title = prompt.title;
  if (prompt.description !== undefined) definition.description = prompt.description;
  if (prompt.arguments !== undefined && prompt.arguments.length > 0) {
    definition.arguments = prompt.arguments.map((a) => ({ ...a }));
  }
  return definition;
}

function describedPart(entry: McpResource | McpResourceTemplate | ListedResource) {
  return {
    ...(entry.title === undefined ? {} : { title: entry.title }),
    ...(entry.description === undefined ? {} : { description: entry.description }),
    ...(entry.mimeType === undefined ? {} : { mimeType: entry.mimeType }),
  };
}

function listedDefinition(resource: McpResource): McpListedResource {
  return {
    uri: resource.uri,
    name: resource.name,
    ...describedPart(resource),
    ...(resource.size === undefined ? {} : { size: resource.size }),
    ...(resource.annotations === undefined
      ? {}
      : { annotations: { ...resource.annotations } as McpListedResource['annotations'] }),
  };
}

/** A resource a template lists, as `resources/list` shows it. */
export function listedResource(
  listed: ListedResource,
  template: McpResourceTemplate,
): McpListedResource {
  return {
    uri: listed.uri,
    name: listed.name,
    ...describedPart(listed),
    ...(listed.mimeType === undefined && template.mimeType !== undefined
      ? { mimeType: template.mimeType }
      : {}),
    ...(listed.size === undefined ? {} : { size: listed.size }),
  };
}

function templateDefinition(template: McpResourceTemplate): McpTemplateDefinition {
  return {
    uriTemplate: template.uriTemplate,
    name: template.name,
    ...describedPart(template),
    ...(template.annotations === undefined
      ? {}
      : { annotations: { ...template.annotations } as McpTemplateDefinition['annotations'] }),
  };
}

const ROLES = new Set(['user', 'assistant']);
const CONTENT_TYPES = new Set(['text', 'image', 'audio', 'resource', 'resource_link']);

/** What a prompt gave, as `prompts/get` answers it; throws naming what is wrong. */
export function promptResult(name: string, reply: PromptReply): GetPromptResult {
  let description: string | undefined;
  let messages: readonly PromptMessage[];
  if (typeof reply === 'string') {
    messages = [{ role: 'user', content: { type: 'text', text: reply } }];
  } else if (Array.isArray(reply)) {
    messages = reply as readonly PromptMessage[];
  } else if (
    typeof reply === 'object' &&
    reply !== null &&
    Array.isArray((reply as { messages?: unknown }).messages)
  ) {
    const full = reply as { description?: string; messages: readonly PromptMessage[] };
    description = full.description;
    messages = full.messages;
  } else {
    throw new AgentToolError(
      'PROTOCOL',
      `mcp: prompt ${goQuote(name)} returned ${describe(reply)}; return a string, a list of messages, or { messages }`,
    );
  }
  messages.forEach((message, i) => {
    const role = (message as { role?: unknown } | null)?.role;
    const type = (message as { content?: { type?: unknown } } | null)?.content?.type;
    if (
      typeof role !== 'string' ||
      !ROLES.has(role) ||
      typeof type !== 'string' ||
      !CONTENT_TYPES.has(type)
    ) {
      throw new AgentToolError(
        'PROTOCOL',
        `mcp: prompt ${goQuote(name)}: message ${i} is not a message: give { role: 'user' | 'assistant', content: { type: 'text' | 'image' | 'audio' | 'resource' | 'resource_link', ... } }`,
      );
    }
  });
  const result: GetPromptResult = {
    messages: messages.map((m) => ({
      role: m.role,
      content: { ...m.content },
    })),
  };
  if (description !== undefined) result.description = description;
  return result;
}

/**
 * What a resource read gave, as `resources/read` answers it: text typed with the
 * declared MIME type (`text/plain` without one), bytes base64-encoded
 * (`application/octet-stream` without one), each contents' URI the one read unless given.
 */
export function resourceContents(
  uri: string,
  mimeType: string | undefined,
  reply: ResourceReply,
): (TextResourceContents | BlobResourceContents)[] {
  let bodies: readonly ResourceBody[];
  if (typeof reply === 'string') bodies = [{ text: reply }];
  else if (reply instanceof Uint8Array) bodies = [{ blob: reply }];
  else if (Array.isArray(reply)) bodies = reply as readonly ResourceBody[];
  else if (
    typeof reply === 'object' &&
    reply !== null &&
    Array.isArray((reply as { contents?: unknown }).contents)
  ) {
    bodies = (reply as { contents: readonly ResourceBody[] }).contents;
  } else if (typeof reply === 'object' && reply !== null) bodies = [reply as ResourceBody];
  else {
    throw new AgentToolError(
      'PROTOCOL',
      `mcp: resource ${goQuote(uri)}: read returned ${describe(reply)}; return a string, bytes, or { text } / { blob } contents`,
    );
  }
  return bodies.map((body, i) => {
    const base = {
      uri: typeof body.uri === 'string' ? body.uri : uri,
      ...(body._meta === undefined ? {} : { _meta: { ...body._meta } }),
    };
    if ('text' in body && typeof body.text === 'string') {
      return { ...base, mimeType: body.mimeType ?? mimeType ?? 'text/plain', text: body.text };
    }
    if ('blob' in body && (typeof body.blob === 'string' || body.blob instanceof Uint8Array)) {
      const blob =
        typeof body.blob === 'string' ? body.blob : Buffer.from(body.blob).toString('base64');
      return { ...base, mimeType: body.mimeType ?? mimeType ?? 'application/octet-stream', blob };
    }
    throw new AgentToolError(
      'PROTOCOL',
      `mcp: resource ${goQuote(uri)}: contents ${i} has neither text (a string) nor blob (bytes or base64)`,
    );
  });
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value;
}
