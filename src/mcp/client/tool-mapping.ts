import {
  AgentToolError,
  type Annotations,
  type Call,
  type Confinement,
  isJsonObject,
  isObjectSchema,
  type JsonObject,
  markForeignSchema,
  newTool,
  type Result,
  type Tool,
  type ToolContext,
  type ValidationError,
} from '../../core';
import {
  compileStructuredCheck,
  expandedSubschemas,
  holdsArrayLongerThan,
  MAX_EXPANDED_SUBSCHEMAS,
  MAX_UNIQUE_ITEMS_CHECKED,
  requiresUniqueItems,
} from '../validation';
import { jsonExcerpt, quotedExcerpt } from './excerpts';

/** Decides per call whether a remote tool's call runs confined, and by what. */
export type ConfinedFunc = (args: string, ctx: ToolContext) => Confinement;

/** Calls of these tools (remote or prefixed spelling) serialise on `resource`. */
export interface ResourceDeclaration {
  readonly resource: string;
  readonly tools: readonly string[];
}

/**
 * Calls of these tools (remote or prefixed spelling) run confined: by the named
 * sandbox, or as a function decides per call; `null` withdraws an earlier declaration.
 */
export interface ConfinedDeclaration {
  readonly by: string | ConfinedFunc | null;
  readonly tools: readonly string[];
}

/** What the host declares locally for remote tools; MCP carries none of it. */
export interface Declarations {
  /** Additive: a tool named here (either spelling) is sequential. */
  readonly sequential?: readonly string[] | undefined;
  /** In order; for one tool the last declaration naming it, in either spelling, wins. */
  readonly resources?: readonly ResourceDeclaration[] | undefined;
  /** In order; for one tool the last declaration naming it, in either spelling, wins. */
  readonly confined?: readonly ConfinedDeclaration[] | undefined;
}

/** The local name of a remote tool: `<prefix>__<name>`, or the name when no prefix. */
export function localName(prefix: string, remote: string): string {
  return prefix === '' ? remote : `${prefix}__${remote}`;
}

/** Checks declarations once at connect, so a mistake fails there and not at call time. */
export function checkDeclarations(d: Declarations): void {
  const where = 'mcp: connect';
  const names = (list: unknown, what: string): void => {
    if (!Array.isArray(list) || !list.every((n) => typeof n === 'string' && n !== '')) {
      throw new AgentToolError(
        'INVALID_OPTIONS',
        `${where}: ${what} must be a list of non-empty tool names (remote or prefixed spelling)`,
      );
    }
  };
  if (d.sequential !== undefined) names(d.sequential, 'sequential');
  const list = (value: unknown, what: string, shape: string): void => {
    if (value === undefined) return;
    if (!Array.isArray(value)) {
      throw new AgentToolError('INVALID_OPTIONS', `${where}: ${what} must be a list of ${shape}`);
    }
    value.forEach((entry, i) => {
      if (!isJsonObject(entry)) {
        throw new AgentToolError('INVALID_OPTIONS', `${where}: ${what}[${i}] must be ${shape}`);
      }
    });
  };
  list(d.resources, 'resources', '{ resource, tools }');
  list(d.confined, 'confined', '{ by, tools }');
  d.resources?.forEach((r, i) => {
    if (typeof r.resource !== 'string' || r.resource === '') {
      throw new AgentToolError(
        'INVALID_OPTIONS',
        `${where}: resources[${i}].resource must be a non-empty string such as "shell:session"`,
      );
    }
    names(r.tools, `resources[${i}].tools`);
  });
  d.confined?.forEach((c, i) => {
    if (c.by !== null && typeof c.by !== 'string' && typeof c.by !== 'function') {
      throw new AgentToolError(
        'INVALID_OPTIONS',
        `${where}: confined[${i}].by must be a sandbox name, a function, or null to withdraw`,
      );
    }
    names(c.tools, `confined[${i}].tools`);
  });
}

/**
 * The annotations of a listed MCP tool with MCP's defaults: none when the tool has no
 * annotations block (unstated); otherwise `destructiveHint` and `openWorldHint` absent
 * read as true, the others as false, and the tool's own `title` wins over the block's.
 */
export function remoteAnnotations(tool: JsonObject): Annotations | undefined {
  const a = tool['annotations'];
  if (!isJsonObject(a)) return undefined;
  const ownTitle = typeof tool['title'] === 'string' ? tool['title'] : '';
  const blockTitle = typeof a['title'] === 'string' ? a['title'] : '';
  return {
    title: ownTitle !== '' ? ownTitle : blockTitle,
    readOnly: a['readOnlyHint'] === true,
    destructive: a['destructiveHint'] !== false,
    idempotent: a['idempotentHint'] === true,
    openWorld: a['openWorldHint'] !== false,
  };
}

/** What a remote tool's annotations tell its caller. */
export interface RemoteHints {
  /** The tool changes nothing: no list change is waited for after a call. */
  readonly readOnly: boolean;
  /**
   * Sending a call again has no further effect (read-only or idempotent): a request
   * whose connection broke before any answer came may be sent again.
   */
  readonly replaySafe: boolean;
  /**
   * For a tool that declares an output schema: why a successful result's structured
   * content breaks it (missing, or not what it says), or undefined when it fits.
   */
  readonly structuredProblem?: (structured: unknown) => string | undefined;
}

/** Runs one call of a remote tool by its remote name. */
export type RemoteCaller = (
  remote: string,
  hints: RemoteHints,
  call: Call,
  ctx: ToolContext,
) => Promise<Result>;

/**
 * A listed MCP tool as a core tool: the local name, the description, the input schema
 * verbatim (`{"type":"object"}` when absent or null), the output schema verbatim when it is an
 * object schema, never strict, not a closer, replay unknown, annotations from the
 * server, sequential/resource/confined from the host's declarations, and task support
 * `optional` when a 2025-era server declares the tool runs as a task
 * (`execution.taskSupport`): a host that serves the tool again may then run its calls
 * as tasks of its own. A tool with no name, or whose input schema is not an object,
 * throws a `PROTOCOL` error that quotes it cut short (see excerpts.ts).
 */
export function remoteTool(
  raw: JsonObject,
  prefix: string,
  declarations: Declarations,
  caller: RemoteCaller,
  taskSupport?: 'optional',
): Tool {
  const remote = raw['name'];
  if (typeof remote !== 'string' || remote === '') {
    throw new AgentToolError(
      'PROTOCOL',
      `mcp: list tools: a tool has no name: ${jsonExcerpt(raw)}`,
    );
  }
  const local = localName(prefix, remote);
  const names = (list: readonly string[]): boolean => list.includes(remote) || list.includes(local);
  let parameters: JsonObject = { type: 'object' };
  const input = raw['inputSchema'];
  // null is no schema, as the Go binding reads a nil one.
  if (input !== undefined && input !== null) {
    if (!isJsonObject(input)) {
      throw new AgentToolError(
        'PROTOCOL',
        `mcp: tool ${quotedExcerpt(remote)}: input schema: expected a JSON object, got ${jsonExcerpt(input)}`,
      );
    }
    // Written by the server: a host that serves it again checks it with guards.
    parameters = markForeignSchema(input);
  }
  const annotations = remoteAnnotations(raw);
  const output = raw['outputSchema'];
  if (isObjectSchema(output)) markForeignSchema(output);
  const hints: RemoteHints = {
    readOnly: annotations?.readOnly === true,
    replaySafe: annotations?.readOnly === true || annotations?.idempotent === true,
    ...(isObjectSchema(output) ? { structuredProblem: structuredChecker(output) } : {}),
  };
  let resource: string | undefined;
  for (const r of declarations.resources ?? []) if (names(r.tools)) resource = r.resource;
  let confined: ConfinedFunc | undefined;
  for (const c of declarations.confined ?? []) {
    if (!names(c.tools)) continue;
    const by = c.by;
    confined =
      by === null ? undefined : typeof by === 'string' ? () => ({ confined: true, by }) : by;
  }
  return newTool({
    name: local,
    description: typeof raw['description'] === 'string' ? raw['description'] : '',
    parameters,
    ...(isObjectSchema(output) ? { outputSchema: output } : {}),
    execute: (call, ctx) => caller(remote, hints, call, ctx),
    ...(names(declarations.sequential ?? []) ? { sequential: true } : {}),
    ...(resource !== undefined ? { resource } : {}),
    ...(annotations !== undefined ? { annotations } : {}),
    ...(confined !== undefined ? { confined } : {}),
    ...(taskSupport !== undefined ? { taskSupport } : {}),
  });
}

/**
 * What checks a result's structured content against a listed output schema, compiled on
 * the first result. MCP asks a server whose tool declares one to send structured
 * content that conforms, and a client to check it: a host reads `structured` by that
 * schema. A schema that cannot be compiled checks nothing (the server's fault, not the
 * call's): only that structured content is there. Nor does one whose check could take
 * the process for good, as a server may write it: patterns are matched in linear time
 * (RE2), references that expand past {@link MAX_EXPANDED_SUBSCHEMAS} subschemas are not
 * followed (nothing is checked), and `uniqueItems` is not checked on content that holds
 * an array longer than {@link MAX_UNIQUE_ITEMS_CHECKED}.
 */
function structuredChecker(schema: JsonObject): (structured: unknown) => string | undefined {
  let check: ((value: unknown) => ValidationError | undefined) | undefined | null;
  let unique = false;
  return (structured) => {
    if (structured === undefined || structured === null) {
      return 'the tool declares an output schema, but the result has no structured content';
    }
    if (check === undefined) {
      try {
        if (expandedSubschemas(schema) > MAX_EXPANDED_SUBSCHEMAS) throw new Error('too large');
        unique = requiresUniqueItems(schema);
        check = compileStructuredCheck(schema, (reason) => new Error(reason), {
          linearPatterns: true,
        });
      } catch {
        check = null;
      }
    }
    if (unique && holdsArrayLongerThan(structured, MAX_UNIQUE_ITEMS_CHECKED)) return undefined;
    const error = check === null ? undefined : check(structured);
    if (error === undefined) return undefined;
    return `the structured content does not fit the tool's output schema: ${error.path === '' ? '' : `${error.path}: `}${error.detail}`;
  };
}
