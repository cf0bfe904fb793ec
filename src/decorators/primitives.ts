import 'reflect-metadata';
import {
  type Completer,
  type Constructor,
  hasUriScheme,
  type JsonObject,
  type ListedResource,
  type McpResource as McpResourceContract,
  type McpResourceTemplate as McpResourceTemplateContract,
  type Prompt as PromptContract,
  type PromptArgument,
  type PromptReply,
  type ResourceAnnotations,
  type ResourceReply,
  runWithContext,
  type ToolAccess,
  type ToolContext,
} from '../core';
import { type ArgumentsPipeline, argumentsOf } from './arguments';
import { guardsOf, scopesOf } from './descriptor';
import { DecoratorError } from './errors';
import { guardFunctions, type ToolBuildOptions } from './guards';
import { readClass, readParams } from './metadata';
import {
  completeRecords,
  promptDeclared,
  resourceDeclared,
  templateDeclared,
} from './primitive-decorators';

// The readers that turn a class marked `@Prompt`, `@McpResource` or
// `@McpResourceTemplate` (primitive-decorators.ts) into the core `Prompt`,
// `McpResource` or `McpResourceTemplate`. Arguments and template variables are declared
// with `@Param` on a class, as a tool's arguments are.

/** Gives the instance that serves a request (a `ToolApp` finds it per session or call). */
export type InstanceFor = (ctx: ToolContext) => object | Promise<object>;

/**
 * The field types a prompt argument or template variable may have: MCP gives each as one
 * text, which a number, integer or boolean field reads as the JSON value it spells.
 */
const TEXT_KINDS: ReadonlySet<string> = new Set([
  'string',
  'date-time',
  'number',
  'integer',
  'boolean',
]);

/** How a problem names a field of a kind that is not one text. */
const NOT_TEXT: Readonly<Record<string, string>> = {
  any: 'has no declared type',
  array: 'is an array',
  map: 'is a map',
  object: 'is an object',
  bytes: 'holds bytes',
};

/** A JSON number, the only text a number field reads (no hex, no blanks, no `Infinity`). */
const NUMBER_TEXT = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

interface Described {
  readonly access: ToolAccess | undefined;
  readonly pipeline: ArgumentsPipeline | undefined;
  /** The fields read from their text as a number or a boolean, by name. */
  readonly typed: ReadonlyMap<string, 'number' | 'boolean'>;
  readonly fields: readonly PromptArgument[];
  /** Completers by argument, taking the instance. */
  readonly completers: ReadonlyMap<string, (instance: object) => Completer>;
}

/**
 * What a prompt or template class's arguments and access are, or every problem found.
 * `what` names the decorator in the problems.
 */
function describeClass(
  cls: Constructor,
  what: string,
  argsOption: 'args' | 'vars',
  argsClass: unknown,
  options: ToolBuildOptions,
  problems: string[],
): Described {
  const where = cls.name;
  let pipeline: ArgumentsPipeline | undefined;
  const fields: PromptArgument[] = [];
  const typed = new Map<string, 'number' | 'boolean'>();
  const lists = new Map<string, readonly string[]>();
  if (argsClass !== undefined) {
    if (typeof argsClass !== 'function') {
      problems.push(`${where}: @${what} ${argsOption} must be a class of @Param fields`);
    } else {
      const built = argumentsOf(argsClass as Constructor, false, 'validated');
      problems.push(...built.problems);
      pipeline = built.pipeline;
      for (const field of pipeline?.fields ?? []) {
        const kind = field.shape.kind;
        if (!TEXT_KINDS.has(kind)) {
          problems.push(
            `${where}: ${argsOption} field ${JSON.stringify(field.name)} ${NOT_TEXT[kind] ?? `is a ${kind}`}; MCP gives ${argsOption === 'args' ? 'prompt arguments' : 'template variables'} as text, so declare it a string, a number, an integer, a boolean or a Date (and convert anything else in your method)`,
          );
        } else if (kind === 'number' || kind === 'integer') typed.set(field.name, 'number');
        else if (kind === 'boolean') typed.set(field.name, 'boolean');
        fields.push({
          name: field.name,
          ...(field.description === '' ? {} : { description: field.description }),
          required: !field.optional,
        });
      }
      for (const record of readParams(argsClass as Constructor)) {
        const list = record.options.completions;
        if (list === undefined) continue;
        if (!Array.isArray(list) || !list.every((v) => typeof v === 'string')) {
          problems.push(
            `${where}: @Param completions of ${String(record.key)} must be a list of strings`,
          );
        } else lists.set(String(record.key), list);
      }
    }
  }
  const completers = new Map<string, (instance: object) => Completer>();
  for (const [argument, list] of lists) {
    const complete: Completer = (value) => list.filter((v) => v.startsWith(value));
    completers.set(argument, () => complete);
  }
  for (const record of completeRecords(cls)) {
    const argument = record.argument;
    if (typeof argument !== 'string' || !fields.some((f) => f.name === argument)) {
      problems.push(
        `${where}: @Complete(${JSON.stringify(argument)}) on ${String(record.method)} names no ${argsOption} field; ${fields.length === 0 ? `declare ${argsOption} first` : `the fields are ${fields.map((f) => f.name).join(', ')}`}`,
      );
      continue;
    }
    const method = record.method;
    completers.set(argument, (instance) => (value, context, ctx) => {
      const fn = (instance as Record<string | symbol, unknown>)[method];
      return (fn as Completer).call(instance, value, context, ctx);
    });
  }
  const scopes = scopesOf(readClass(cls, 'scopes'), where, problems);
  const guardLikes = guardsOf(readClass(cls, 'guards'), where, problems);
  let access: ToolAccess | undefined;
  if (problems.length === 0) {
    const guards = [
      ...(options.guards ?? []),
      ...guardFunctions(guardLikes, where, options.resolveGuard),
    ];
    if (scopes.length > 0 || guards.length > 0) access = Object.freeze({ scopes, guards });
  }
  return { access, pipeline, typed, fields, completers };
}

function textOption(
  options: Record<string, unknown>,
  key: string,
  what: string,
  where: string,
  problems: string[],
  required: boolean,
): string | undefined {
  const value = options[key];
  if (value === undefined) {
    if (required) problems.push(`${where}: @${what} needs a non-empty ${key}`);
    return undefined;
  }
  if (typeof value !== 'string' || (required && value.trim() === '')) {
    problems.push(`${where}: @${what} ${key} must be a ${required ? 'non-empty ' : ''}string`);
    return undefined;
  }
  return value;
}

function methodProblem(cls: Constructor, method: string, signature: string, problems: string[]) {
  if (typeof (cls.prototype as Record<string, unknown>)[method] !== 'function') {
    problems.push(`${cls.name}: the class needs a ${signature} method`);
  }
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Runs `fn` with the request's context installed, as a tool's `execute` runs. */
function inContext<T>(ctx: ToolContext, fn: () => T): T {
  return runWithContext(ctx, fn);
}

/**
 * Decodes and checks arguments with the class's pipeline, class-validator included. A
 * number or boolean field reads the value its text spells (`"42"`, `"true"`); a text
 * that spells none stays text, which the pipeline refuses with the field's name.
 */
async function decoded(
  described: Described,
  args: Readonly<Record<string, string>>,
): Promise<object> {
  const pipeline = described.pipeline;
  if (pipeline === undefined) return { ...args };
  const values: Record<string, JsonObject[string]> = { ...args };
  for (const [name, kind] of described.typed) {
    const text = Object.hasOwn(values, name) ? values[name] : undefined;
    if (typeof text !== 'string') continue;
    if (kind === 'boolean') {
      if (text === 'true' || text === 'false') values[name] = text === 'true';
    } else if (NUMBER_TEXT.test(text)) values[name] = Number(text);
  }
  const instance = pipeline.decodeValue(values);
  if (pipeline.check !== undefined) await pipeline.check(instance);
  return instance;
}

function completionsFor(
  described: Described,
  instanceFor: InstanceFor,
): Readonly<Record<string, Completer>> | undefined {
  if (described.completers.size === 0) return undefined;
  const completions: Record<string, Completer> = {};
  for (const [argument, make] of described.completers) {
    completions[argument] = async (value, context, ctx) =>
      make(await instanceFor(ctx))(value, context, ctx);
  }
  return completions;
}

/**
 * A core `Prompt` of a `@Prompt` class whose instance is found per request (see
 * {@link InstanceFor}). Every problem of the class is thrown at once as a
 * {@link DecoratorError}.
 */
export function classPrompt(
  cls: Constructor,
  instanceFor: InstanceFor,
  options: ToolBuildOptions = {},
): PromptContract {
  const problems: string[] = [];
  const where = cls.name;
  const declared = promptDeclared(cls);
  if (declared === undefined) {
    throw new DecoratorError('prompt class', where, [
      `${where}: the class has no @Prompt decorator; add @Prompt({ name, description, args })`,
    ]);
  }
  const name = textOption(declared, 'name', 'Prompt', where, problems, true);
  const title = textOption(declared, 'title', 'Prompt', where, problems, false);
  const description = textOption(declared, 'description', 'Prompt', where, problems, false);
  methodProblem(cls, 'get', 'get(args, ctx)', problems);
  const described = describeClass(cls, 'Prompt', 'args', declared.args, options, problems);
  if (problems.length > 0) throw new DecoratorError('prompt class', where, problems);
  const prompt: Mutable<PromptContract> = {
    name: name!,
    arguments: described.fields,
    get: async (args, ctx) => {
      const instance = (await instanceFor(ctx)) as {
        get(args: object, ctx: ToolContext): PromptReply | Promise<PromptReply>;
      };
      const decodedArgs = await decoded(described, args);
      return inContext(ctx, () => instance.get(decodedArgs, ctx));
    },
  };
  if (title !== undefined) prompt.title = title;
  if (description !== undefined) prompt.description = description;
  const completions = completionsFor(described, instanceFor);
  if (completions !== undefined) prompt.completions = completions;
  if (described.access !== undefined) prompt.access = described.access;
  return prompt;
}

/** A core `Prompt` around an instance of a `@Prompt` class. */
export function promptFromInstance(
  instance: object,
  options: ToolBuildOptions = {},
): PromptContract {
  return classPrompt(instance.constructor as Constructor, () => instance, options);
}

/**
 * A core `McpResource` or `McpResourceTemplate` of a class marked `@McpResource` or
 * `@McpResourceTemplate`, whose instance is found per request (see {@link InstanceFor}).
 * Every problem of the class is thrown at once as a {@link DecoratorError}.
 */
export function classMcpResource(
  cls: Constructor,
  instanceFor: InstanceFor,
  options: ToolBuildOptions = {},
): McpResourceContract | McpResourceTemplateContract {
  const where = cls.name;
  const problems: string[] = [];
  const fixed = resourceDeclared(cls);
  const template = templateDeclared(cls);
  if (fixed === undefined && template === undefined) {
    throw new DecoratorError('resource class', where, [
      `${where}: the class has no @McpResource or @McpResourceTemplate decorator; add @McpResource({ uri, name }) or @McpResourceTemplate({ uriTemplate, name })`,
    ]);
  }
  if (fixed !== undefined && template !== undefined) {
    throw new DecoratorError('resource class', where, [
      `${where}: the class has both @McpResource and @McpResourceTemplate; keep one`,
    ]);
  }
  const declared = (fixed ?? template)!;
  const what = fixed !== undefined ? 'McpResource' : 'McpResourceTemplate';
  const name = textOption(declared, 'name', what, where, problems, true);
  const title = textOption(declared, 'title', what, where, problems, false);
  const description = textOption(declared, 'description', what, where, problems, false);
  const mimeType = textOption(declared, 'mimeType', what, where, problems, false);
  const annotations = declared.annotations as ResourceAnnotations | undefined;
  if (annotations !== undefined && (typeof annotations !== 'object' || annotations === null)) {
    problems.push(`${where}: @${what} annotations must be an object`);
  }
  const common = {
    name: name!,
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
    ...(mimeType === undefined ? {} : { mimeType }),
    ...(annotations === undefined ? {} : { annotations: { ...annotations } }),
  };
  if (fixed !== undefined) {
    const uri = textOption(declared, 'uri', what, where, problems, true);
    if (uri !== undefined && !hasUriScheme(uri)) {
      problems.push(`${where}: @McpResource uri ${JSON.stringify(uri)} is not a URI (scheme:...)`);
    }
    const size = declared.size;
    if (size !== undefined && (typeof size !== 'number' || !Number.isInteger(size) || size < 0)) {
      problems.push(`${where}: @McpResource size must be a whole number of bytes`);
    }
    methodProblem(cls, 'read', 'read(ctx)', problems);
    const described = describeClass(cls, what, 'vars', undefined, options, problems);
    if (problems.length > 0) throw new DecoratorError('resource class', where, problems);
    const resource: Mutable<McpResourceContract> = {
      ...common,
      uri: uri!,
      read: async (ctx) => {
        const instance = (await instanceFor(ctx)) as {
          read(ctx: ToolContext): ResourceReply | Promise<ResourceReply>;
        };
        return inContext(ctx, () => instance.read(ctx));
      },
    };
    if (typeof size === 'number') resource.size = size;
    if (described.access !== undefined) resource.access = described.access;
    return resource;
  }
  const uriTemplate = textOption(declared, 'uriTemplate', what, where, problems, true);
  methodProblem(cls, 'read', 'read(vars, uri, ctx)', problems);
  const described = describeClass(cls, what, 'vars', declared.vars, options, problems);
  if (uriTemplate !== undefined && declared.vars !== undefined) {
    const variables = templateVariables(uriTemplate);
    for (const field of described.fields) {
      if (!variables.includes(field.name)) {
        problems.push(
          `${where}: vars field ${JSON.stringify(field.name)} is no variable of ${JSON.stringify(uriTemplate)}; its variables are ${variables.join(', ') || 'none'}`,
        );
      }
    }
  }
  if (problems.length > 0) throw new DecoratorError('resource class', where, problems);
  const hasList = typeof (cls.prototype as { list?: unknown }).list === 'function';
  const resource: Mutable<McpResourceTemplateContract> = {
    ...common,
    uriTemplate: uriTemplate!,
    read: async (vars, uri, ctx) => {
      const instance = (await instanceFor(ctx)) as {
        read(vars: object, uri: string, ctx: ToolContext): ResourceReply | Promise<ResourceReply>;
      };
      const decodedVars = await decoded(described, vars);
      return inContext(ctx, () => instance.read(decodedVars, uri, ctx));
    },
  };
  if (hasList) {
    resource.list = async (ctx) => {
      const instance = (await instanceFor(ctx)) as {
        list(ctx: ToolContext): readonly ListedResource[] | Promise<readonly ListedResource[]>;
      };
      return inContext(ctx, () => instance.list(ctx));
    };
  }
  const completions = completionsFor(described, instanceFor);
  if (completions !== undefined) resource.completions = completions;
  if (described.access !== undefined) resource.access = described.access;
  return resource;
}

/** A core resource or template around an instance of a decorated class. */
export function mcpResourceFromInstance(
  instance: object,
  options: ToolBuildOptions = {},
): McpResourceContract | McpResourceTemplateContract {
  return classMcpResource(instance.constructor as Constructor, () => instance, options);
}

/** The variable names of an RFC 6570 template, in order, each once. */
export function templateVariables(template: string): string[] {
  const names: string[] = [];
  for (const [, expression] of template.matchAll(/\{([^}]*)\}/g)) {
    for (const spec of (expression ?? '').replace(/^[+#./;?&]/, '').split(',')) {
      const name = spec.replace(/(\*|:\d+)$/, '').trim();
      if (name !== '' && !names.includes(name)) names.push(name);
    }
  }
  return names;
}
