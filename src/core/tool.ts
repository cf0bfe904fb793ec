import { type ToolAccess } from './auth';
import { type Call, type ToolContext } from './context';
import { AgentToolError } from './errors';
import { isJsonObject, type JsonObject } from './json';
import { goQuote } from './quote';
import { type Result } from './result';
import { type TaskMode, type TaskSupport, taskSupportFrom, taskSupportOf } from './task-support';

/**
 * MCP's behaviour hints. A policy may use them to be stricter, never alone to allow.
 * `destructive` and `idempotent` mean something only when `readOnly` is false.
 */
export interface Annotations {
  readonly title?: string | undefined;
  readonly readOnly?: boolean | undefined;
  readonly destructive?: boolean | undefined;
  readonly idempotent?: boolean | undefined;
  readonly openWorld?: boolean | undefined;
}

/** Annotations as a reader reports them: every member present. */
export interface StatedAnnotations {
  readonly title: string;
  readonly readOnly: boolean;
  readonly destructive: boolean;
  readonly idempotent: boolean;
  readonly openWorld: boolean;
}

/** Whether one call runs in a sandbox, and by what. `by` is "" when not confined. */
export interface Confinement {
  readonly confined: boolean;
  readonly by: string;
}

/**
 * Whether running a call again is safe: `unknown` (the default: must not re-run),
 * `safe` (a re-run has no effect beyond the first), `keyed` (dedups on the call's
 * idempotency key).
 */
export type Replay = 'unknown' | 'safe' | 'keyed';

/**
 * A tool: a definition (name, description, parameters) and `execute`. Everything else
 * is optional and read through its reader, which applies the contract's default.
 *
 * A tool fails by throwing; the model sees `Error: <message>` once. Aborting
 * `ctx.signal` is the host's interrupt: stop what this call started, keep what the tool
 * owns.
 */
export interface Tool {
  /** Non-empty, unique within a set. */
  readonly name: string;
  readonly description: string;
  /** A JSON Schema object, or undefined for a tool without arguments. */
  readonly parameters: JsonObject | undefined;
  execute(call: Call, ctx: ToolContext): Result | Promise<Result>;

  /** The definition is strict (read with {@link isStrict}; default false). */
  readonly strict?: boolean | undefined;
  /** Calls run alone, one batch at a time in model order (read with {@link isSequential}). */
  readonly sequential?: boolean | undefined;
  /** Calls naming the same resource run in model order (read with {@link resourceOf}). */
  readonly resource?: string | undefined;
  /** MCP hints (read with {@link annotationsOf}; absent means unstated). */
  readonly annotations?: Annotations | undefined;
  /** Per call: confined or not, and by what (read with {@link confinedBy}). */
  confined?(args: string, ctx: ToolContext): Confinement;
  /** Per call: whether re-running is safe (read with {@link replayOf}). */
  replay?(args: string, ctx: ToolContext): Replay;
  /** Present when the tool owns something; the host closes it, once. */
  close?(): void | Promise<void>;
  /**
   * True when `execute` itself validates each call's arguments against `parameters`
   * before the tool's code runs, failing with the contract's `ValidationError`
   * (`invalid arguments: <path>: <msg>`), the keywords beyond the contract's subset that
   * class-validator constraints write (`minimum`, `maxLength`, `pattern`, ...) included. A host that would check the arguments itself,
   * an MCP server for one, may skip its own check and compilation for such a tool: the
   * call fails with the same error either way. A tool made from a `@Tool` class says
   * so unless it only decodes its arguments (`validate: false`, served `parameters`).
   * Read with {@link validatesOwnArguments}; default false.
   */
  readonly validatesArguments?: boolean | undefined;
  /**
   * The JSON Schema of the tool's structured result, an object schema (`"type":
   * "object"`), when the tool declares one (read with {@link outputSchemaOf}). An MCP
   * server serves it as the tool's `outputSchema` and checks each result's `structured`
   * value against it. It is not part of the definition the model sees, nor of the
   * definition hash.
   */
  readonly outputSchema?: JsonObject | undefined;
  /**
   * Who may use the tool: scopes and guards a host that knows its caller (the MCP
   * server) checks before listing or calling it (read with `accessOf`, checked with
   * `checkAccess`; absent: open to every caller).
   */
  readonly access?: ToolAccess | undefined;
  /**
   * Whether calls run as tasks where the host can (read with {@link taskSupportOf};
   * absent: never). A task outlives its request: the client polls for its result.
   */
  readonly taskSupport?: TaskSupport | undefined;
  /**
   * The argument that carries a server-minted state handle (e.g. `shell_id`), when the
   * tool keeps state under one (read with {@link handleArgumentOf}; absent: none). A host
   * that runs several instances routes a call carrying a handle to the instance that
   * minted it.
   */
  readonly handleArgument?: string | undefined;
  /**
   * Labels a host may select tools by (read with {@link tagsOf}; absent: none), e.g. a
   * served set filtered to the tools tagged `safe`. Not part of the definition the model
   * sees, nor of the definition hash.
   */
  readonly tags?: readonly string[] | undefined;
}

/** The optional members of a `Tool`: what a wrapper must forward. */
export const OPTIONAL_TOOL_PROPERTIES = [
  'strict',
  'sequential',
  'resource',
  'annotations',
  'confined',
  'replay',
  'close',
  'validatesArguments',
  'outputSchema',
  'access',
  'taskSupport',
  'handleArgument',
  'tags',
] as const satisfies readonly (keyof Tool)[];

/** True when the tool declares a strict definition. */
export function isStrict(tool: Tool): boolean {
  return tool.strict === true;
}

/** True when the tool's calls must run alone, in model order. */
export function isSequential(tool: Tool): boolean {
  return tool.sequential === true;
}

/** The resource the tool's calls serialise on; "" for none, and "" for a sequential tool. */
export function resourceOf(tool: Tool): string {
  if (isSequential(tool)) return '';
  return typeof tool.resource === 'string' ? tool.resource : '';
}

/** The tool's annotations with every member filled, or undefined when it states none. */
export function annotationsOf(tool: Tool): StatedAnnotations | undefined {
  const a = tool.annotations;
  if (a === undefined || a === null) return undefined;
  return {
    title: a.title ?? '',
    readOnly: a.readOnly === true,
    destructive: a.destructive === true,
    idempotent: a.idempotent === true,
    openWorld: a.openWorld === true,
  };
}

const NOT_CONFINED: Confinement = Object.freeze({ confined: false, by: '' });

/** Whether this call runs confined, and by what; `{confined: false, by: ""}` by default. */
export function confinedBy(tool: Tool, args: string, ctx: ToolContext): Confinement {
  if (typeof tool.confined !== 'function') return NOT_CONFINED;
  const answer = tool.confined(args, ctx);
  if (answer?.confined !== true) return NOT_CONFINED;
  return { confined: true, by: typeof answer.by === 'string' ? answer.by : '' };
}

/** Whether this call may be run again; `unknown` by default and for any unknown value. */
export function replayOf(tool: Tool, args: string, ctx: ToolContext): Replay {
  if (typeof tool.replay !== 'function') return 'unknown';
  const answer = tool.replay(args, ctx);
  return answer === 'safe' || answer === 'keyed' ? answer : 'unknown';
}

/**
 * True when the tool's `execute` validates its arguments against its `parameters` with
 * the contract's errors, so a host need not check them first (see
 * `Tool.validatesArguments`).
 */
export function validatesOwnArguments(tool: Tool): boolean {
  return tool.validatesArguments === true;
}

/** The tool's output schema when it declares one (a JSON object), else undefined. */
export function outputSchemaOf(tool: Tool): JsonObject | undefined {
  const schema: unknown = tool.outputSchema;
  return isJsonObject(schema) ? schema : undefined;
}

/** The argument that carries the tool's state handle, when it has one (a non-empty string). */
export function handleArgumentOf(tool: Tool): string | undefined {
  const name: unknown = tool.handleArgument;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/** The tool's tags: its non-empty strings, each once, in order; none by default. */
export function tagsOf(tool: Pick<Tool, 'tags'>): readonly string[] {
  const tags: unknown = tool.tags;
  if (!Array.isArray(tags)) return NO_TAGS;
  const seen = new Set<string>();
  for (const tag of tags) if (typeof tag === 'string' && tag !== '') seen.add(tag);
  return seen.size === tags.length ? (tags as readonly string[]) : [...seen];
}

const NO_TAGS: readonly string[] = Object.freeze([]);

/** True when the tool owns something the host must close. */
export function isCloser(tool: Tool): tool is Tool & { close(): void | Promise<void> } {
  return typeof tool.close === 'function';
}

/** The tool's access rules, or undefined when it is open to every caller. */
export function accessOf(tool: Pick<Tool, 'access'>): ToolAccess | undefined {
  const access = tool.access;
  if (access === undefined || access === null) return undefined;
  const scopes = access.scopes ?? [];
  const guards = access.guards ?? [];
  return scopes.length === 0 && guards.length === 0 ? undefined : { scopes, guards };
}

/** What {@link newTool} takes: the definition, the function, and any optional property. */
export interface ToolInit {
  readonly name: string;
  readonly description?: string | undefined;
  /** Served verbatim and never validated; undefined means no arguments. */
  readonly parameters?: JsonObject | undefined;
  readonly execute: (call: Call, ctx: ToolContext) => Result | Promise<Result>;
  readonly strict?: boolean | undefined;
  readonly sequential?: boolean | undefined;
  readonly resource?: string | undefined;
  readonly annotations?: Annotations | undefined;
  readonly confined?: ((args: string, ctx: ToolContext) => Confinement) | undefined;
  readonly replay?: ((args: string, ctx: ToolContext) => Replay) | undefined;
  /** Makes the tool a closer; absent means it owns nothing. */
  readonly close?: (() => void | Promise<void>) | undefined;
  /**
   * `execute` validates the arguments against `parameters` itself (see
   * `Tool.validatesArguments`); default false.
   */
  readonly validatesArguments?: boolean | undefined;
  /**
   * The schema of the tool's structured result, an object schema (`"type": "object"`);
   * see `Tool.outputSchema`. Kept as given.
   */
  readonly outputSchema?: JsonObject | undefined;
  /** Who may use the tool (see `Tool.access`); absent: every caller. */
  readonly access?: ToolAccess | undefined;
  /**
   * Whether calls run as tasks (see `Tool.taskSupport`): a mode, or the mode with its
   * options; absent: never.
   */
  readonly taskSupport?: TaskMode | TaskSupport | undefined;
  /** The argument that carries the tool's state handle (see `Tool.handleArgument`). */
  readonly handleArgument?: string | undefined;
  /** Labels a host may select tools by (see `Tool.tags`); absent: none. */
  readonly tags?: readonly string[] | undefined;
}

/**
 * A tool from plain values and a raw function, for schemas that come from elsewhere
 * (a remote server, a hand-written schema). The parameters are served verbatim and
 * never validated. The tool always answers `confined` and `replay` (with the defaults
 * when not given) and is a closer only when `close` is given.
 */
export function newTool(init: ToolInit): Tool {
  if (typeof init.execute !== 'function') {
    throw new AgentToolError(
      'INVALID_TOOL',
      `agenttool.newTool(${goQuote(String(init.name))}): execute must be a function`,
    );
  }
  if (init.outputSchema !== undefined && !isObjectSchema(init.outputSchema)) {
    throw new AgentToolError(
      'INVALID_TOOL',
      `agenttool.newTool(${goQuote(String(init.name))}): outputSchema must be a JSON Schema object with "type": "object" (a structured result is a JSON object)`,
    );
  }
  const { confined, replay, close, execute } = init;
  const tool: {
    -readonly [K in keyof Tool]: Tool[K];
  } = {
    name: init.name,
    description: init.description ?? '',
    parameters: init.parameters,
    execute: (call, ctx) => execute(call, ctx),
    confined: (args, ctx) => (confined === undefined ? NOT_CONFINED : confined(args, ctx)),
    replay: (args, ctx) => (replay === undefined ? 'unknown' : replay(args, ctx)),
  };
  if (init.strict !== undefined) tool.strict = init.strict;
  if (init.sequential !== undefined) tool.sequential = init.sequential;
  if (init.resource !== undefined) tool.resource = init.resource;
  if (init.annotations !== undefined) tool.annotations = { ...init.annotations };
  if (close !== undefined) tool.close = () => close();
  if (init.validatesArguments === true) tool.validatesArguments = true;
  if (init.outputSchema !== undefined) tool.outputSchema = init.outputSchema;
  if (init.access !== undefined) tool.access = copyAccess(init.access);
  if (init.taskSupport !== undefined)
    tool.taskSupport = taskSupportFrom(init.name, init.taskSupport);
  if (init.handleArgument !== undefined) tool.handleArgument = init.handleArgument;
  if (init.tags !== undefined) tool.tags = Object.freeze([...init.tags]);
  return tool;
}

/** True for a JSON Schema object whose `type` is `"object"`, as MCP wants an output schema. */
export function isObjectSchema(schema: unknown): schema is JsonObject {
  return isJsonObject(schema) && schema.type === 'object';
}

function copyAccess(access: ToolAccess): ToolAccess {
  return Object.freeze({
    scopes: Object.freeze([...(access.scopes ?? [])]),
    guards: Object.freeze([...(access.guards ?? [])]),
  });
}

const wrapped = new WeakMap<Tool, Tool>();

/**
 * A tool that runs `execute` instead of `tool.execute` and reports every other member
 * of `tool` unchanged: strict, sequential, annotations, confined, replay and access read
 * the same through their readers; `resource` is the raw declared value (so a sequential
 * tool with a resource still reports it here, while {@link resourceOf} says ""); it is a
 * closer exactly when `tool` is, and closing it closes `tool`; it says it validates its
 * arguments when `tool` does, since `execute` is expected to hand each call on to
 * `tool.execute` (a wrapper that answers calls without it must not be served as
 * validating), and it declares `tool`'s output schema. Wrappers chain.
 */
export function wrap(
  tool: Tool,
  execute: (call: Call, ctx: ToolContext) => Result | Promise<Result>,
): Tool {
  if (tool === undefined || tool === null) {
    throw new AgentToolError('INVALID_TOOL', 'agenttool.wrap: no tool');
  }
  if (typeof execute !== 'function') {
    throw new AgentToolError(
      'INVALID_TOOL',
      `agenttool.wrap(${goQuote(String(tool.name))}): execute must be a function`,
    );
  }
  const wrapper: Tool = {
    get name() {
      return tool.name;
    },
    get description() {
      return tool.description;
    },
    get parameters() {
      return tool.parameters;
    },
    execute,
    get strict() {
      return isStrict(tool);
    },
    get sequential() {
      return isSequential(tool);
    },
    get resource() {
      return tool.resource;
    },
    get annotations() {
      return annotationsOf(tool);
    },
    confined: (args, ctx) => confinedBy(tool, args, ctx),
    replay: (args, ctx) => replayOf(tool, args, ctx),
    get validatesArguments() {
      return validatesOwnArguments(tool);
    },
    get outputSchema() {
      return outputSchemaOf(tool);
    },
    get access() {
      return accessOf(tool);
    },
    get taskSupport() {
      return taskSupportOf(tool);
    },
    get handleArgument() {
      return handleArgumentOf(tool);
    },
    get tags() {
      return tagsOf(tool);
    },
  };
  if (isCloser(tool)) {
    Object.defineProperty(wrapper, 'close', {
      value: () => tool.close(),
      enumerable: true,
    });
  }
  wrapped.set(wrapper, tool);
  return wrapper;
}

/** The tool a {@link wrap} wrapper runs around, or undefined when `tool` is not one. */
export function unwrap(tool: Tool): Tool | undefined {
  return wrapped.get(tool);
}
