import { ProtocolError, ResourceNotFoundError } from '@modelcontextprotocol/server';
import {
  type AuthInfo,
  checkAccess,
  goQuote,
  type McpResource,
  type McpResourceTemplate,
  type ToolAccess,
} from '../../../core';
import { type PrimitiveHost } from './operation';

/**
 * The JSON-RPC error for a URI nothing serves: -32602 with the URI in `data`, in both
 * eras. SEP-2164 standardized that code; the 2025 texts' -32002 is what clients accept
 * from older servers, and the SDK rewrites a thrown -32002 to -32602 anyway.
 */
export function resourceNotFound(uri: string): ProtocolError {
  return new ResourceNotFoundError(uri, `mcp: unknown resource ${goQuote(uri)}`);
}

/**
 * Whether `auth` may read the resource at `uri`, as `resources/read` decides: a fixed
 * resource the caller may use, or else a template that matches it and the caller may use.
 */
export async function mayRead(
  host: PrimitiveHost,
  uri: string,
  auth: AuthInfo | undefined,
): Promise<boolean> {
  return (await readable(host, uri, auth)) !== undefined;
}

/**
 * What `resources/read` of `uri` would read for `auth` (the resource, or the template
 * that matches it), or undefined when there is none the caller may use.
 */
export async function readable(
  host: PrimitiveHost,
  uri: string,
  auth: AuthInfo | undefined,
): Promise<McpResource | McpResourceTemplate | undefined> {
  const fixed = host.catalog.resources.get(uri);
  if (fixed !== undefined) {
    return (await mayUse(host, fixed.resource, 'resource', auth)) ? fixed.resource : undefined;
  }
  const template = host.catalog.match(uri)?.served.template;
  if (template === undefined) return undefined;
  return (await mayUse(host, template, 'resource', auth)) ? template : undefined;
}

/** Whether `auth` may use a prompt or resource (a guard that throws refuses, and is reported). */
export async function mayUse(
  host: PrimitiveHost,
  entry: { readonly access?: ToolAccess | undefined; readonly name: string },
  kind: 'prompt' | 'resource',
  auth: AuthInfo | undefined,
): Promise<boolean> {
  if (entry.access === undefined) return true;
  const verdict = await checkAccess(entry, { tool: entry.name, kind, auth });
  if (verdict.allowed) return true;
  if (verdict.reason === 'failed') {
    host.report(`mcp: ${kind} ${goQuote(entry.name)}: a guard failed`, verdict.error);
  }
  return false;
}
