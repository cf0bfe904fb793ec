import {
  ProtocolError,
  type Server,
  type ServerCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import {
  type AuthInfo,
  type Completer,
  type CompletionValues,
  createContext,
  errorMessage,
  goQuote,
  type ToolAccess,
  type ToolContext,
} from '../../../core';
import { callerOf } from '../auth';
import { mayUse, resourceNotFound } from './access';
import { listedResource, promptResult, resourceContents } from './catalog';
import { serveSubscriptions } from './subscriptions';
import {
  type Era,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  type PrimitiveBinding,
  type PrimitiveHost,
  runOperation,
} from './operation';

/** How many entries one page of `prompts/list`, `resources/list` and `resources/templates/list` holds by default. */
export const DEFAULT_LIST_PAGE_SIZE = 100;
/** The most values one `completion/complete` answer holds (MCP's limit). */
const MAX_COMPLETIONS = 100;

/**
 * The capabilities of what the catalog serves: none for a server of tools alone.
 * Subscriptions are offered on a 2025-era connection that outlives its request only
 * (`lasting`): a stateless endpoint's could never deliver a notice; and in 2026-07-28
 * where the entry's `subscriptions/listen` streams are checked and followed
 * (`listens`, the HTTP endpoint's: see `ResourceListeners`).
 */
export function primitiveCapabilities(
  host: PrimitiveHost,
  era: Era,
  lasting = true,
  listens = false,
): ServerCapabilities {
  const catalog = host.catalog;
  const capabilities: ServerCapabilities = {};
  // The lists can change when the tools' can (a swap of the served source), and when
  // the source's own do (then they are offered while empty, for what comes later).
  const live = host.primitivesMayChange?.() ?? false;
  const listChanged = (host.listChanged?.() ?? false) || live;
  if (catalog.hasPrompts || live) capabilities.prompts = { listChanged };
  if (catalog.hasResources || live) {
    const subscribe = era === 'legacy' ? lasting : listens;
    capabilities.resources = subscribe ? { listChanged, subscribe: true } : { listChanged };
  }
  if (catalog.completes) capabilities.completions = {};
  return capabilities;
}

/**
 * Serves the catalog's prompts, resources, templates and completions on `server`, in
 * its era: lists by page (each caller sees what it may use), `prompts/get` and
 * `resources/read` run with a call context (asks go to the client as a tool's do),
 * subscriptions in the 2025 era.
 */
export function servePrimitives(
  server: Server,
  host: PrimitiveHost,
  binding: PrimitiveBinding,
  era: Era,
): void {
  // Which handlers an instance has is settled when it is made; what they serve is
  // read per request (a swap, or a live source's change, replaces the catalog).
  const catalog = host.catalog;
  const live = host.primitivesMayChange?.() ?? false;
  const pageSize = host.listPageSize;
  const caller = (ctx: ServerContext): AuthInfo | undefined => callerOf(ctx, host.localAuth);
  const visible = async (
    entries: readonly { access?: ToolAccess | undefined; name: string }[],
    kind: 'prompt' | 'resource',
    auth: AuthInfo | undefined,
  ): Promise<boolean[]> => Promise.all(entries.map((entry) => mayUse(host, entry, kind, auth)));

  if (catalog.hasPrompts || live) {
    server.setRequestHandler('prompts/list', async (request, ctx) => {
      const all = [...host.catalog.prompts.values()];
      const allowed = await visible(
        all.map((p) => p.prompt),
        'prompt',
        caller(ctx),
      );
      const listed = all.filter((_, i) => allowed[i]).map((p) => p.definition);
      const { page, nextCursor } = paged(listed, request.params?.cursor, pageSize);
      return { prompts: page, ...(nextCursor === undefined ? {} : { nextCursor }) };
    });
    server.setRequestHandler('prompts/get', async (request, ctx) => {
      const { name } = request.params;
      const args = request.params.arguments ?? {};
      const entry = host.catalog.prompts.get(name);
      const auth = caller(ctx);
      if (entry === undefined || !(await mayUse(host, entry.prompt, 'prompt', auth))) {
        throw new ProtocolError(INVALID_PARAMS, `mcp: unknown prompt ${goQuote(name)}`);
      }
      const prompt = entry.prompt;
      for (const argument of prompt.arguments ?? []) {
        if (argument.required === true && typeof args[argument.name] !== 'string') {
          throw new ProtocolError(
            INVALID_PARAMS,
            `mcp: prompt ${goQuote(name)}: missing required argument ${goQuote(argument.name)}`,
          );
        }
      }
      const known = new Set((prompt.arguments ?? []).map((a) => a.name));
      for (const key of Object.keys(args)) {
        if (prompt.arguments !== undefined && !known.has(key)) {
          throw new ProtocolError(
            INVALID_PARAMS,
            `mcp: prompt ${goQuote(name)}: unknown argument ${goQuote(key)}; its arguments are ${[...known].join(', ') || 'none'}`,
          );
        }
      }
      return runOperation(
        host,
        binding,
        server,
        era,
        ctx,
        `prompt:${name}`,
        { name, args },
        auth,
        async (toolCtx) => promptResult(name, await prompt.get(args, toolCtx)),
      );
    });
  }

  if (catalog.hasResources || live) {
    server.setRequestHandler('resources/list', async (request, ctx) => {
      const auth = caller(ctx);
      const fixed = [...host.catalog.resources.values()];
      const allowed = await visible(
        fixed.map((r) => r.resource),
        'resource',
        auth,
      );
      const listed = fixed.filter((_, i) => allowed[i]).map((r) => r.definition);
      const listing = host.catalog.templates.filter((t) => t.template.list !== undefined);
      if (listing.length > 0) {
        const mayList = await visible(
          listing.map((t) => t.template),
          'resource',
          auth,
        );
        const toolCtx = listContext(ctx, auth);
        for (const [i, served] of listing.entries()) {
          if (!mayList[i]) continue;
          const found = await served.template.list!(toolCtx);
          listed.push(...found.map((item) => listedResource(item, served.template)));
        }
      }
      const { page, nextCursor } = paged(listed, request.params?.cursor, pageSize);
      return { resources: page, ...(nextCursor === undefined ? {} : { nextCursor }) };
    });
    server.setRequestHandler('resources/templates/list', async (request, ctx) => {
      const allowed = await visible(
        host.catalog.templates.map((t) => t.template),
        'resource',
        caller(ctx),
      );
      const listed = host.catalog.templates.filter((_, i) => allowed[i]).map((t) => t.definition);
      const { page, nextCursor } = paged(listed, request.params?.cursor, pageSize);
      return { resourceTemplates: page, ...(nextCursor === undefined ? {} : { nextCursor }) };
    });
    server.setRequestHandler('resources/read', async (request, ctx) => {
      const { uri } = request.params;
      const auth = caller(ctx);
      const fixed = host.catalog.resources.get(uri);
      if (fixed !== undefined && (await mayUse(host, fixed.resource, 'resource', auth))) {
        const resource = fixed.resource;
        return runOperation(
          host,
          binding,
          server,
          era,
          ctx,
          `resource:${uri}`,
          { uri },
          auth,
          async (toolCtx) => ({
            contents: resourceContents(uri, resource.mimeType, await resource.read(toolCtx)),
          }),
        );
      }
      const matched = fixed === undefined ? host.catalog.match(uri) : undefined;
      if (
        matched !== undefined &&
        (await mayUse(host, matched.served.template, 'resource', auth))
      ) {
        const template = matched.served.template;
        return runOperation(
          host,
          binding,
          server,
          era,
          ctx,
          `resource:${uri}`,
          { uri, vars: matched.vars },
          auth,
          async (toolCtx) => ({
            contents: resourceContents(
              uri,
              template.mimeType,
              await template.read(matched.vars, uri, toolCtx),
            ),
          }),
        );
      }
      throw resourceNotFound(uri);
    });
    serveSubscriptions(server, host, era, binding, caller);
  }

  if (catalog.completes) {
    server.setRequestHandler('completion/complete', async (request, ctx) => {
      const { ref, argument } = request.params;
      const others = request.params.context?.arguments ?? {};
      const auth = caller(ctx);
      let completer;
      if (ref.type === 'ref/prompt') {
        const entry = host.catalog.prompts.get(ref.name);
        if (entry === undefined || !(await mayUse(host, entry.prompt, 'prompt', auth))) {
          throw new ProtocolError(INVALID_PARAMS, `mcp: unknown prompt ${goQuote(ref.name)}`);
        }
        completer = ownCompleter(entry.prompt.completions, argument.name);
      } else {
        const served = host.catalog.templates.find((t) => t.template.uriTemplate === ref.uri);
        if (served === undefined || !(await mayUse(host, served.template, 'resource', auth))) {
          throw new ProtocolError(
            INVALID_PARAMS,
            `mcp: unknown resource template ${goQuote(ref.uri)}`,
          );
        }
        completer = ownCompleter(served.template.completions, argument.name);
      }
      if (completer === undefined) return { completion: { values: [], hasMore: false } };
      let answer: readonly string[] | CompletionValues;
      try {
        answer = await completer(argument.value, others, listContext(ctx, auth));
      } catch (error) {
        throw new ProtocolError(
          INTERNAL_ERROR,
          `mcp: completion of ${goQuote(argument.name)}: ${errorMessage(error)}`,
        );
      }
      const completion = completionOf(answer);
      if (completion === undefined) {
        throw new ProtocolError(
          INTERNAL_ERROR,
          `mcp: completion of ${goQuote(argument.name)}: the completer returned neither a list of strings nor { values }`,
        );
      }
      return { completion };
    });
  }
}

/**
 * The `completion` of an answer: at most 100 values, the strings of what the completer
 * gave; `total` as the completer said (never fewer than the values it gave), or the
 * count of a list, or absent when only `hasMore` is known. Undefined for an answer that
 * is neither a list nor `{ values }` (a completer written in JavaScript).
 */
function completionOf(
  answer: unknown,
): { values: string[]; total?: number; hasMore: boolean } | undefined {
  const page: Partial<CompletionValues> | undefined = Array.isArray(answer)
    ? { values: answer as readonly string[] }
    : typeof answer === 'object' &&
        answer !== null &&
        Array.isArray((answer as CompletionValues).values)
      ? answer
      : undefined;
  if (page?.values === undefined) return undefined;
  const strings = page.values.filter((v): v is string => typeof v === 'string');
  const values = strings.slice(0, MAX_COMPLETIONS);
  const said = page.total;
  const total =
    typeof said === 'number' && Number.isSafeInteger(said) && said >= 0
      ? Math.max(said, strings.length)
      : page.hasMore === true
        ? undefined
        : strings.length;
  const hasMore = page.hasMore === true || (total ?? strings.length) > values.length;
  return total === undefined ? { values, hasMore } : { values, total, hasMore };
}

/**
 * The completer of `name`, only when `completions` has one of its own: a client's
 * argument named `constructor` or `toString` names nothing inherited.
 */
function ownCompleter(
  completions: Readonly<Record<string, Completer>> | undefined,
  name: string,
): Completer | undefined {
  if (completions === undefined || !Object.hasOwn(completions, name)) return undefined;
  const completer = completions[name];
  return typeof completer === 'function' ? completer : undefined;
}

/** A page of `items` from `cursor` (an offset the server wrote), and the cursor of the next. */
function paged<T>(
  items: readonly T[],
  cursor: string | undefined,
  size: number,
): { page: T[]; nextCursor: string | undefined } {
  let start = 0;
  if (cursor !== undefined) {
    const decoded = /^[0-9]{1,9}$/.test(cursor) ? Number(cursor) : Number.NaN;
    if (!Number.isSafeInteger(decoded) || decoded > items.length) {
      throw new ProtocolError(
        INVALID_PARAMS,
        `mcp: invalid cursor ${goQuote(cursor)}: give the nextCursor of the previous page, or none for the first`,
      );
    }
    start = decoded;
  }
  const end = Math.min(items.length, start + size);
  return {
    page: items.slice(start, end),
    nextCursor: end < items.length ? String(end) : undefined,
  };
}

/** A context of a listing or a completion: the caller, the request's signal, nothing to ask with. */
function listContext(ctx: ServerContext, auth: AuthInfo | undefined): ToolContext {
  return createContext({ signal: ctx.mcpReq.signal, auth });
}
