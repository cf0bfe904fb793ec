import { type Tool as McpTool } from '@modelcontextprotocol/server';
import { accessOf, type AuthInfo, checkAccess, goQuote } from '../../../core';
import { type ServedTool } from '../calls';

/** What deciding about a caller needs of the server. */
export interface AccessHost {
  /** Every served tool, in order; its definitions in the same order. */
  servedTools(): readonly ServedTool[];
  definitions(): McpTool[];
  report(message: string, error: unknown): void;
}

/**
 * Whether `caller` may use `served` (see `checkAccess`). A guard that throws refuses,
 * and its error is reported.
 */
export async function mayUse(
  host: AccessHost,
  served: ServedTool,
  caller: AuthInfo | undefined,
): Promise<boolean> {
  const verdict = await checkAccess(served.tool, { tool: served.tool.name, auth: caller });
  if (verdict.allowed) return true;
  if (verdict.reason === 'failed') {
    host.report(`mcp: tool ${goQuote(served.tool.name)}: a guard failed`, verdict.error);
  }
  return false;
}

/** The definitions `caller` may see: those of the tools it may use, in order. */
export async function definitionsFor(
  host: AccessHost,
  caller: AuthInfo | undefined,
): Promise<McpTool[]> {
  const served = host.servedTools();
  const definitions = host.definitions();
  // Most servers guard nothing: their one cached list serves every caller.
  if (!served.some((s) => accessOf(s.tool) !== undefined)) return definitions;
  const allowed = await Promise.all(
    served.map((s) =>
      accessOf(s.tool) === undefined ? Promise.resolve(true) : mayUse(host, s, caller),
    ),
  );
  return definitions.filter((_, i) => allowed[i] === true);
}

/**
 * The tool a call names, when `caller` may use it; undefined when it may not, so the
 * call is refused exactly as a call of an unknown tool (the caller learns no more than
 * its list told it). A tool without access rules is answered without waiting.
 */
export function permitted(
  host: AccessHost,
  served: ServedTool | undefined,
  caller: AuthInfo | undefined,
): ServedTool | undefined | Promise<ServedTool | undefined> {
  if (served === undefined || accessOf(served.tool) === undefined) return served;
  return mayUse(host, served, caller).then((allowed) => (allowed ? served : undefined));
}
