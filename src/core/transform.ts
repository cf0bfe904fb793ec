import { type ToolContext } from './context';
import { AgentToolError, ValidationError } from './errors';
import { isJsonObject, type JsonObject, type JsonValue } from './json';
import { goQuote } from './quote';
import { isForeignSchema, markForeignSchema, schemaFromJson } from './schema';
import { confinedBy, replayOf, tagsOf, type Tool, wrap } from './tool';
import { compileSchema, describe, parseArguments } from './validate';

/**
 * How one tool is changed (see {@link transformTool}); every member is optional, and
 * what is left out stays as it was.
 */
export interface ToolTransform {
  /** The tool's new name. */
  readonly rename?: string | undefined;
  /** The tool's new description. */
  readonly description?: string | undefined;
  /**
   * Arguments hidden behind fixed values: each is removed from the schema's `properties`
   * and `required`, and its value is put into every call's arguments. A caller that sends
   * one anyway is refused with `invalid arguments: unexpected property "<name>": ...`,
   * so it can never change what the host fixed.
   */
  readonly fixed?: Readonly<Record<string, JsonValue>> | undefined;
  /** Tags added to the tool's own (read with `tagsOf`), e.g. to filter a set by. */
  readonly tags?: readonly string[] | undefined;
}

/**
 * How a set of tools is changed (see {@link transformTools}). Names and patterns are
 * the tools' names before renaming; a pattern is a name in which `*` stands for any run
 * of characters and `?` for one.
 */
export interface ToolSetTransform {
  /** Only the tools whose name matches one of these are kept; absent: every tool. */
  readonly include?: readonly string[] | undefined;
  /** The tools whose name matches one of these are left out (after `include`). */
  readonly exclude?: readonly string[] | undefined;
  /** Per tool, by its name: how it is changed. Each name must be one of the set's tools. */
  readonly transform?: Readonly<Record<string, ToolTransform>> | undefined;
  /** After the transforms: only the tools with at least one of these tags are kept. */
  readonly includeTags?: readonly string[] | undefined;
  /** After the transforms: the tools with any of these tags are left out. */
  readonly excludeTags?: readonly string[] | undefined;
}

/**
 * A tool changed as `spec` says: renamed, described anew, with arguments hidden behind
 * fixed values, tagged. Its definition (and so its definition hash) is the new one;
 * every other optional property is the tool's, forwarded as `wrap` forwards it (the
 * per-call readers `confined` and `replay` are asked with the fixed values merged in),
 * but for `validatesArguments`, which is false once arguments are fixed (a host then
 * checks the narrowed schema itself, and the tool still checks the whole). `unwrap`
 * returns `tool`.
 *
 * Throws `INVALID_OPTIONS` naming the tool for a spec it cannot apply: a name or
 * description that is not a string (an empty name), a fixed argument the schema has no
 * property for, a fixed value its property's schema refuses (where that schema is in
 * the contract's subset), tags that are not non-empty strings.
 */
export function transformTool(tool: Tool, spec: ToolTransform): Tool {
  const where = `transformTool(${goQuote(String(tool?.name))})`;
  if (!isObject(spec)) throw invalid(`${where}: the spec must be an object`);
  const { rename, description, tags } = spec;
  if (rename !== undefined && (typeof rename !== 'string' || rename === '')) {
    throw invalid(`${where}: rename must be a non-empty string`);
  }
  if (description !== undefined && typeof description !== 'string') {
    throw invalid(`${where}: description must be a string`);
  }
  if (tags !== undefined && !isNameList(tags)) {
    throw invalid(`${where}: tags must be a list of non-empty strings`);
  }
  const fixed = fixedValues(tool, spec.fixed, where);
  const parameters = fixed === undefined ? tool.parameters : narrowed(tool.parameters, fixed);
  const merge = (args: string): string => (fixed === undefined ? args : mergedText(args, fixed));
  const changed = wrap(tool, async (call, ctx) => {
    if (fixed === undefined) return tool.execute(call, ctx);
    const value = withFixed(call.value ?? parseArguments(call.args), fixed);
    return tool.execute({ ...call, args: mergedText(call.args, fixed), value }, ctx);
  });
  const ownTags = tags === undefined ? undefined : [...new Set([...tagsOf(tool), ...tags])];
  const members: PropertyDescriptorMap = {
    name: { get: () => rename ?? tool.name },
    description: { get: () => description ?? tool.description },
    parameters: { get: () => parameters },
    confined: { value: (args: string, ctx: ToolContext) => confinedBy(tool, merge(args), ctx) },
    replay: { value: (args: string, ctx: ToolContext) => replayOf(tool, merge(args), ctx) },
  };
  if (ownTags !== undefined) members.tags = { get: () => ownTags };
  if (fixed !== undefined) members.validatesArguments = { get: () => false };
  // wrap's members are accessors of an object literal: configurable, so redefined here.
  Object.defineProperties(changed, members);
  return changed;
}

/**
 * The tools of `tools` that `spec` keeps, each changed as its `transform` entry says, in
 * their order: `include` and `exclude` by name or pattern, then the transforms, then
 * `includeTags` and `excludeTags`. Throws `INVALID_OPTIONS` for a transform naming no
 * tool of the set, for a pattern or tag list that is not a list of non-empty strings,
 * and when two kept tools end up with one name; and what {@link transformTool} throws.
 */
export function transformTools(tools: Iterable<Tool>, spec: ToolSetTransform): Tool[] {
  const where = 'transformTools';
  if (!isObject(spec)) throw invalid(`${where}: the spec must be an object`);
  for (const key of ['include', 'exclude', 'includeTags', 'excludeTags'] as const) {
    const list = spec[key];
    if (list !== undefined && !isNameList(list)) {
      throw invalid(`${where}: ${key} must be a list of non-empty strings`);
    }
  }
  const transforms = spec.transform ?? {};
  if (!isObject(transforms)) {
    throw invalid(`${where}: transform must be an object of transforms by tool name`);
  }
  const all = [...tools];
  const names = new Set(all.map((tool) => tool.name));
  for (const name of Object.keys(transforms)) {
    if (!names.has(name)) {
      throw invalid(
        `${where}: transform ${goQuote(name)}: no tool has that name (the tools: ${[...names].map(goQuote).join(', ') || 'none'})`,
      );
    }
  }
  const included = spec.include === undefined ? undefined : patterns(spec.include);
  const excluded = patterns(spec.exclude ?? []);
  const includedTags = spec.includeTags;
  const excludedTags = spec.excludeTags ?? [];
  const kept: Tool[] = [];
  const seen = new Map<string, string>();
  for (const tool of all) {
    if (included !== undefined && !included.some((p) => p.test(tool.name))) continue;
    if (excluded.some((p) => p.test(tool.name))) continue;
    const own = Object.hasOwn(transforms, tool.name) ? transforms[tool.name] : undefined;
    const changed = own === undefined ? tool : transformTool(tool, own);
    const tags = tagsOf(changed);
    if (includedTags !== undefined && !includedTags.some((t) => tags.includes(t))) continue;
    if (excludedTags.some((t) => tags.includes(t))) continue;
    const other = seen.get(changed.name);
    if (other !== undefined) {
      throw invalid(
        `${where}: tools ${goQuote(other)} and ${goQuote(tool.name)} would both be named ${goQuote(changed.name)}; rename one`,
      );
    }
    seen.set(changed.name, tool.name);
    kept.push(changed);
  }
  return kept;
}

/**
 * A pattern of names as a test: `*` any run of characters, `?` one, anything else
 * itself; the whole name must match.
 */
export function namePattern(pattern: string): RegExp {
  const body = [...pattern]
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\/-]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`, 's');
}

function patterns(list: readonly string[]): RegExp[] {
  return list.map(namePattern);
}

/** True for a plain object; a check that leaves the type of what it checks as declared. */
function isObject(value: unknown): boolean {
  return isJsonObject(value);
}

function invalid(message: string): AgentToolError {
  return new AgentToolError('INVALID_OPTIONS', message);
}

function isNameList(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string' && v !== '');
}

/** The fixed values checked against the tool's schema; undefined when there are none. */
function fixedValues(
  tool: Tool,
  fixed: Readonly<Record<string, JsonValue>> | undefined,
  where: string,
): JsonObject | undefined {
  if (fixed === undefined) return undefined;
  if (!isObject(fixed)) {
    throw invalid(`${where}: fixed must be an object of argument values by name`);
  }
  const entries = Object.entries(fixed);
  if (entries.length === 0) return undefined;
  const properties = tool.parameters?.['properties'];
  for (const [name, value] of entries) {
    const property = isJsonObject(properties) ? properties[name] : undefined;
    if (property === undefined || !Object.hasOwn(properties as JsonObject, name)) {
      const known = isJsonObject(properties) ? Object.keys(properties) : [];
      throw invalid(
        `${where}: fixed ${goQuote(name)}: the tool has no such argument (its arguments: ${known.map(goQuote).join(', ') || 'none'})`,
      );
    }
    if (value === undefined) throw invalid(`${where}: fixed ${goQuote(name)}: no value`);
    // A schema beyond the contract's subset is the tool's own to check, at call time.
    const schema = schemaFromJson(property);
    const problem = schema === undefined ? undefined : compileSchema(schema)(value);
    if (problem !== undefined) {
      throw invalid(
        `${where}: fixed ${goQuote(name)}: the tool would refuse the value: ${problem.message}`,
      );
    }
  }
  return { ...(fixed as JsonObject) };
}

/** The schema without the fixed arguments, in its `properties` and its `required`. */
function narrowed(parameters: JsonObject | undefined, fixed: JsonObject): JsonObject | undefined {
  if (parameters === undefined) return undefined;
  const properties = { ...(parameters['properties'] as JsonObject) };
  for (const name of Object.keys(fixed)) delete properties[name];
  const schema: JsonObject = { ...parameters, properties };
  const required = parameters['required'];
  if (Array.isArray(required)) {
    schema['required'] = required.filter(
      (name) => typeof name !== 'string' || !Object.hasOwn(fixed, name),
    );
  }
  return isForeignSchema(parameters) ? markForeignSchema(schema) : schema;
}

/** The call's arguments with the fixed values, refused when the caller gave one of them. */
function withFixed(value: JsonValue, fixed: JsonObject): JsonObject {
  if (!isJsonObject(value))
    throw new ValidationError('', `expected object, got ${describe(value)}`);
  for (const name of Object.keys(fixed)) {
    if (Object.hasOwn(value, name)) {
      throw new ValidationError(
        '',
        `unexpected property ${goQuote(name)}: the host fixes its value; leave it out`,
      );
    }
  }
  return { ...fixed, ...value };
}

/**
 * The arguments text with the fixed members written first, the caller's text kept byte
 * for byte after them (so an integer beyond 2^53 reaches the tool as written). Text that
 * is not a JSON object is returned as it is, for the tool to refuse.
 */
function mergedText(args: string, fixed: JsonObject): string {
  let value: JsonValue;
  try {
    value = parseArguments(args);
  } catch {
    return args;
  }
  if (!isJsonObject(value)) return args;
  const head = Object.entries(fixed)
    .filter(([name]) => !Object.hasOwn(value, name))
    .map(([name, v]) => `${JSON.stringify(name)}:${JSON.stringify(v)}`)
    .join(',');
  if (head === '') return args;
  const text = args.trim() === '' ? '{}' : args;
  const open = text.indexOf('{');
  const rest = text.slice(open + 1);
  return Object.keys(value).length === 0 ? `{${head}}` : `{${head},${rest}`;
}
