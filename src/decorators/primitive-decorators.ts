import 'reflect-metadata';
import { type Constructor, type ResourceDescription } from '../core';
import { requireExperimentalDecorators } from './experimental-only';
import { readClass } from './metadata';

// The decorators of MCP's prompts and resources, and what they record on a class; the
// readers that turn a decorated class into a prompt or resource are in primitives.ts.

/** What `@Prompt` takes. */
export interface PromptOptions {
  /** Non-empty; unique among the prompts served together. */
  readonly name: string;
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  /**
   * The arguments class: its `@Param` fields are the prompt's arguments, validated
   * (class-validator included) before `get` runs. MCP gives each argument as text: a
   * string or `Date` field takes it as it is, a number, integer or boolean field reads
   * the JSON value the text spells (`"42"`, `"true"`); other field types are refused.
   */
  readonly args?: Constructor | undefined;
}

/**
 * What `@McpResource` takes: a resource's description (its MIME type types text that
 * `read` gives as a string), its URI and its size. Who may read it comes from `@Scopes`
 * and `@Guard` on the class.
 */
export interface McpResourceOptions extends Omit<ResourceDescription, 'access'> {
  /** The URI a client reads it at; unique among the resources served together. */
  readonly uri: string;
  /** The size in bytes, when known. */
  readonly size?: number | undefined;
}

/** What `@McpResourceTemplate` takes: a template's description, its URI template and variables. */
export interface McpResourceTemplateOptions extends Omit<ResourceDescription, 'access'> {
  /** An RFC 6570 URI template (`users://{id}/profile`) whose variables are `vars`' fields. */
  readonly uriTemplate: string;
  /**
   * The variables class: its `@Param` fields are the template's variables, taken from
   * the URI read and validated before `read` runs, typed as a prompt's arguments are
   * (a string, `Date`, number, integer or boolean field). Absent: `read` gets the
   * variables as a plain object of strings.
   */
  readonly vars?: Constructor | undefined;
}

const NAMESPACE = 'io.github.christopherdavenport.agenttool/primitives';
const PROMPT_KEY = `${NAMESPACE}/prompt`;
const RESOURCE_KEY = `${NAMESPACE}/resource`;
const TEMPLATE_KEY = `${NAMESPACE}/template`;
const COMPLETE_KEY = `${NAMESPACE}/complete`;

function classDecorator(name: string, key: string, value: object): ClassDecorator {
  return (target: object, ...rest: unknown[]) => {
    requireExperimentalDecorators(name, rest[0]);
    Reflect.defineMetadata(key, value, target);
  };
}

/**
 * Marks a class as an MCP prompt: a message template a user picks, rendered by its
 * `get(args, ctx)` method into messages (a string is one user message). Its arguments
 * are the `@Param` fields of `args`. `@Scopes` and `@Guard` decide who may list and get
 * it, as for a tool. Registered with `@Module({ prompts: [...] })`.
 */
export function Prompt(options: PromptOptions): ClassDecorator {
  return classDecorator('Prompt', PROMPT_KEY, { ...options });
}

/**
 * Marks a class as an MCP resource at one URI, read by its `read(ctx)` method. Not the
 * executor's `@Resource(name)`, which names a lock that serializes a tool's calls: this
 * is data a client reads. Registered with `@Module({ resources: [...] })`.
 */
export function McpResource(options: McpResourceOptions): ClassDecorator {
  return classDecorator('McpResource', RESOURCE_KEY, { ...options });
}

/**
 * Marks a class as an MCP resource template: the resources at the URIs that match
 * `uriTemplate`, read by its `read(vars, uri, ctx)` method; an optional `list(ctx)`
 * lists the ones there are now. Registered with `@Module({ resources: [...] })`.
 */
export function McpResourceTemplate(options: McpResourceTemplateOptions): ClassDecorator {
  return classDecorator('McpResourceTemplate', TEMPLATE_KEY, { ...options });
}

/**
 * Marks a method of a prompt or resource template class as the completer of one
 * argument (or variable): `(value, context) => string[]`, called with what the user
 * typed so far and the other arguments already filled in, on the class's instance (its
 * injected services at hand). It takes precedence over the field's `completions` list.
 */
export function Complete(argument: string): MethodDecorator {
  return (target: object, key: string | symbol) => {
    requireExperimentalDecorators('Complete', key);
    const own =
      (Reflect.getOwnMetadata(COMPLETE_KEY, target) as CompleteRecord[] | undefined) ?? [];
    Reflect.defineMetadata(COMPLETE_KEY, [...own, { argument, method: key }], target);
  };
}

export interface CompleteRecord {
  readonly argument: unknown;
  readonly method: string | symbol;
}

/** True for a class (or a subclass of one) marked `@Prompt`. */
export function isPromptClass(cls: unknown): cls is Constructor {
  return typeof cls === 'function' && Reflect.getMetadata(PROMPT_KEY, cls) !== undefined;
}

/** True for a class marked `@McpResource` or `@McpResourceTemplate`. */
export function isMcpResourceClass(cls: unknown): cls is Constructor {
  return (
    typeof cls === 'function' &&
    (Reflect.getMetadata(RESOURCE_KEY, cls) !== undefined ||
      Reflect.getMetadata(TEMPLATE_KEY, cls) !== undefined)
  );
}

/** The name a `@Prompt`, `@McpResource` or `@McpResourceTemplate` class declares. */
export function primitiveNameOf(cls: Constructor): string | undefined {
  for (const key of [PROMPT_KEY, RESOURCE_KEY, TEMPLATE_KEY]) {
    const options = Reflect.getMetadata(key, cls) as { name?: unknown } | undefined;
    if (typeof options?.name === 'string') return options.name;
  }
  return undefined;
}

/** The guards a class's `@Guard` names (none when it has none, or names something else). */
export function declaredGuards(cls: Constructor): readonly unknown[] {
  const guards = readClass(cls, 'guards');
  return Array.isArray(guards) ? guards : [];
}

/** The `@Complete` records of a class, its base classes' first. */
export function completeRecords(cls: Constructor): CompleteRecord[] {
  const records: CompleteRecord[] = [];
  for (let proto: unknown = cls.prototype; proto !== null && proto !== Object.prototype;) {
    const own = Reflect.getOwnMetadata(COMPLETE_KEY, proto as object) as
      CompleteRecord[] | undefined;
    if (own !== undefined) records.unshift(...own);
    proto = Object.getPrototypeOf(proto);
  }
  return records;
}

/** What `@Prompt` recorded on a class, if it is one. */
export function promptDeclared(cls: Constructor): Record<string, unknown> | undefined {
  return Reflect.getMetadata(PROMPT_KEY, cls) as Record<string, unknown> | undefined;
}

/** What `@McpResource` recorded on a class, if it is one. */
export function resourceDeclared(cls: Constructor): Record<string, unknown> | undefined {
  return Reflect.getMetadata(RESOURCE_KEY, cls) as Record<string, unknown> | undefined;
}

/** What `@McpResourceTemplate` recorded on a class, if it is one. */
export function templateDeclared(cls: Constructor): Record<string, unknown> | undefined {
  return Reflect.getMetadata(TEMPLATE_KEY, cls) as Record<string, unknown> | undefined;
}
