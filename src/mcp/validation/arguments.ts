import type * as AjvModule from 'ajv';
import type * as Re2js from 're2js';
import {
  AgentToolError,
  compileSchema,
  CONSTRAINT_KEYWORDS,
  depthExceeded,
  depthExceededText,
  errorMessage,
  goQuote,
  isForeignSchema,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  NO_ARGS_SCHEMA,
  type Schema,
  schemaFromJson,
  setMember,
  ValidationError,
} from '../../core';
import { goPhrasing } from './ajv-phrasing';
import { foreignCheck } from './check-cost';
import { compileSubsetWalk, sameVerdicts } from './subset-check';

/** Checks decoded arguments; returns the first problem, or undefined when they are valid. */
export type ArgumentsCheck = (value: unknown) => ValidationError | undefined;

const DRAFT_07: ReadonlySet<string> = new Set([
  'http://json-schema.org/draft-07/schema#',
  'https://json-schema.org/draft-07/schema#',
]);
const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

type Ajv = AjvModule.default;
/** Per dialect, the ajv that checks schemas against the dialect's meta-schema. */
const metaValidators = new Map<'07' | '2020', Ajv>();

/**
 * Compiles the check a served tool's arguments go through before the tool runs, as the
 * Go binding's server checks them (google/jsonschema-go), with its words after
 * `invalid arguments: `: `invalid arguments: validating root: validating
 * /properties/text: type: 1 has type "integer", want "string"`. A schema in the
 * contract's subset is checked by a walk in jsonschema-go's order, any other (`$ref`,
 * `oneOf`, `minimum`, …) by ajv (draft-07 or 2020-12 as `$schema` says; 2020-12 without
 * one), its refusal phrased as jsonschema-go phrases it. Throws an `INVALID_SCHEMA`
 * error, `mcpserver: tool "<name>": schema: <why>`, when the schema cannot be used, so a
 * bad tool fails when it is added, never when it is called; what cannot fail (the
 * subset's compilation) is deferred to the first call. A remote server's schema, served
 * again (marked with `markForeignSchema`), is checked as `foreignCheck` says: patterns
 * in linear time, and nothing checked where it cannot be compiled or would cost too much.
 */
export function compileArgumentsCheck(toolName: string, parameters: unknown): ArgumentsCheck {
  if (parameters === undefined || parameters === null) return deferred(NO_ARGS_SCHEMA);
  if (!isJsonObject(parameters)) {
    throw schemaError(toolName, 'parameters must be a JSON Schema object');
  }
  const fail = (reason: string, cause?: unknown): Error => schemaError(toolName, reason, cause);
  // A remote server's schema, served again (a composition): it must hold nothing up.
  if (isForeignSchema(parameters)) {
    return foreignCheck(parameters, () =>
      compileServedCheck(parameters, fail, { linearPatterns: true }),
    );
  }
  return compileServedCheck(parameters, fail);
}

/**
 * True when the contract's own validator gives the served check's verdict on every
 * value for these parameters: none, or a schema in the contract's subset on which
 * jsonschema-go and the contract agree (every schema a `@Tool` class generates). A tool
 * that validates its own arguments against such parameters need not be checked first:
 * it refuses exactly what the served check would.
 */
export function contractDecides(parameters: unknown): boolean {
  if (parameters === undefined || parameters === null) return true;
  if (!isJsonObject(parameters)) return false;
  const subset = schemaFromJson(parameters);
  return subset !== undefined && sameVerdicts(subset);
}

/**
 * The parameters without the keywords class-validator constraints write into a
 * generated schema (`minimum`, `maxLength`, `pattern`, ... at any depth), or undefined
 * when they have none. A tool that validates its own arguments checks those with
 * class-validator, in the contract's words: the served check need only decide the rest.
 */
export function withoutConstraints(parameters: unknown): JsonObject | undefined {
  if (!isJsonObject(parameters)) return undefined;
  const stripped = stripConstraints(parameters);
  return stripped === parameters ? undefined : stripped;
}

const CONSTRAINT_KEYS: ReadonlySet<string> = new Set(CONSTRAINT_KEYWORDS);

/**
 * `node` without constraint keywords, at its root and under `properties`, `items` and
 * `additionalProperties`; `node` itself when it has none there (most schemas: nothing is
 * copied for them).
 */
function stripConstraints(node: JsonObject): JsonObject {
  return copiedOnChange(node, (key, value) => {
    if (CONSTRAINT_KEYS.has(key)) return undefined;
    if (!isJsonObject(value)) return value;
    if (key === 'properties') {
      return copiedOnChange(value, (_name, sub) =>
        isJsonObject(sub) ? stripConstraints(sub) : sub,
      );
    }
    return key === 'items' || key === 'additionalProperties' ? stripConstraints(value) : value;
  });
}

/**
 * `object` with each member replaced by what `change` makes of it (undefined drops it):
 * a new object once a member changes, else `object` itself.
 */
function copiedOnChange(
  object: JsonObject,
  change: (key: string, value: JsonValue) => JsonValue | undefined,
): JsonObject {
  const keys = Object.keys(object);
  let copy: JsonObject | undefined;
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k] as string;
    const value = object[key] as JsonValue;
    const changed = change(key, value);
    if (copy === undefined && changed !== value) {
      copy = {};
      for (let j = 0; j < k; j++) setMember(copy, keys[j] as string, object[keys[j] as string]);
    }
    if (copy !== undefined && changed !== undefined) setMember(copy, key, changed);
  }
  return copy ?? object;
}

/**
 * The served check of a JSON Schema (tool arguments, a form's answer): the dialect is
 * checked, then the schema compiled as {@link compileArgumentsCheck} says; `fail` builds
 * the error thrown when the schema cannot be used.
 */
export function compileServedCheck(
  schema: JsonObject,
  fail: (reason: string, cause?: unknown) => Error,
  options: GeneralCheckOptions = {},
): ArgumentsCheck {
  checkDialect(schema, fail);
  const subset = schemaFromJson(schema);
  if (subset !== undefined) return deferred(subset);
  return compileGeneral(schema, fail, options);
}

// A schema in the subset cannot fail to compile: compile it on the first call, so that
// registering many tools compiles nothing that is never called.
function deferred(schema: Schema): ArgumentsCheck {
  let check: ArgumentsCheck | undefined;
  const served: ArgumentsCheck = (value) => (check ??= compileSubset(schema))(value);
  subsets.set(served, schema);
  return served;
}

/** The subset schema each deferred check was made of, read again by {@link checkContractDecides}. */
const subsets = new WeakMap<ArgumentsCheck, Schema>();

/**
 * {@link contractDecides} of the parameters `check` was compiled from by
 * {@link compileArgumentsCheck}, without reading the schema again.
 */
export function checkContractDecides(check: ArgumentsCheck): boolean {
  const subset = subsets.get(check);
  return subset !== undefined && sameVerdicts(subset);
}

function compileSubset(schema: Schema): ArgumentsCheck {
  const walk = compileSubsetWalk(schema);
  // Where both say the same, the contract's generated check answers valid arguments fast;
  // the walk runs only to phrase a refusal.
  const verdict = sameVerdicts(schema) ? compileSchema(schema) : undefined;
  return (value) => {
    if (verdict !== undefined && verdict(value) === undefined) return undefined;
    const opening = depthExceeded(value);
    if (opening !== undefined) return tooDeep(opening);
    const failure = walk(value);
    return failure === undefined ? undefined : new ValidationError('', failure);
  };
}

/**
 * Compiles a JSON Schema outside the contract's subset with ajv, every error collected,
 * to phrase the one jsonschema-go meets first. Formats are annotations, as JSON Schema
 * 2020-12 makes them by default and jsonschema-go reads them. The schema is resolved
 * alone, as jsonschema-go resolves each tool's (`Resolve(nil)`): its `$id`s are its
 * own, a `$ref` reaches only what it holds, and nothing of it is kept once the check is
 * dropped.
 */
export function compileGeneral(
  schema: JsonObject,
  fail: (reason: string, cause?: unknown) => Error,
  options: GeneralCheckOptions = {},
): ArgumentsCheck {
  const draft07 = isDraft07(schema);
  let validate: AjvModule.ValidateFunction;
  try {
    // Throws on a schema off its meta-schema, as ajv's compile does with it on.
    const checked = metaValidatorFor(draft07).validateSchema(schema, true);
    if (checked !== true) throw new Error('schema is invalid: its meta-schema is asynchronous');
    validate = isolatedAjv(draft07, options.linearPatterns === true).compile(schema);
  } catch (error) {
    throw fail(errorMessage(error), error);
  }
  return (value) => {
    // ajv's validator recurses: a value nested past the limit is refused before it.
    const opening = depthExceeded(value);
    if (opening !== undefined) return tooDeep(opening);
    if (validate(value)) return undefined;
    return new ValidationError('', phrased(schema, value, validate.errors ?? [], draft07));
  };
}

/** jsonschema-go's words for ajv's refusal; ajv's own for the first error if they fail. */
function phrased(
  schema: JsonObject,
  value: unknown,
  errors: readonly AjvModule.ErrorObject[],
  draft07: boolean,
): string {
  try {
    return goPhrasing(schema, value, errors, draft07);
  } catch {
    const first = errors[0];
    return `validating root: ${first === undefined ? 'invalid' : `${first.keyword}: ${first.message ?? 'invalid'}`}`;
  }
}

/**
 * An ajv for one schema alone. ajv registers every `$id` it compiles and keeps every
 * compiled schema for the life of the instance: shared, two tools could not both say
 * one `$id`, one tool's `$ref` would reach another's schema, and nothing would ever be
 * let go. It knows no meta-schema: the schema was checked against its dialect's first.
 * Collecting every error costs nothing on valid arguments, the common case, and each
 * comes with the schema that failed (`verbose`), to be named as Go names it.
 */
function isolatedAjv(draft07: boolean, linearPatterns: boolean): Ajv {
  return newAjv(draft07, {
    strict: false,
    validateFormats: false,
    allErrors: true,
    verbose: true,
    meta: false,
    validateSchema: false,
    ...(linearPatterns ? { code: { regExp: linearRegExp() } } : {}),
  });
}

/** How {@link compileGeneral} checks. */
export interface GeneralCheckOptions {
  /**
   * Matches `pattern` and `patternProperties` with RE2 (re2js), in time linear in the
   * text, for a schema from elsewhere (a remote server's): JavaScript's engine
   * backtracks, and `^(a+)+$` against 40 characters held the process for a minute and
   * a half. RE2 takes no look-around or back-reference: a schema with one does not compile.
   */
  readonly linearPatterns?: boolean;
}

/** ajv's `code.regExp` engine on re2js, loaded with the first schema that needs it. */
function linearRegExp(): NonNullable<AjvModule.CodeOptions['regExp']> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand
  const { RE2JS } = require('re2js') as typeof Re2js;
  const engine = (pattern: string): { test: (text: string) => boolean } => {
    const compiled = RE2JS.compile(pattern);
    return { test: (text) => compiled.matcher(text).find() };
  };
  return Object.assign(engine, { code: 'require("re2js").RE2JS' });
}

/**
 * The ajv per dialect that checks schemas against the dialect's meta-schema, compiled
 * once; it validates a schema as data and keeps none.
 */
function metaValidatorFor(draft07: boolean): Ajv {
  const key = draft07 ? '07' : '2020';
  let ajv = metaValidators.get(key);
  if (ajv === undefined) {
    ajv = newAjv(draft07, { strict: false, validateFormats: false });
    metaValidators.set(key, ajv);
  }
  return ajv;
}

// ajv loads in some 40 ms: only a server with a schema outside the subset pays for it.
function newAjv(draft07: boolean, options: AjvModule.Options): Ajv {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on demand */
  return draft07
    ? new (require('ajv') as typeof AjvModule).default(options)
    : new (require('ajv/dist/2020') as typeof AjvModule).default(options);
  /* eslint-enable @typescript-eslint/no-require-imports */
}

function isDraft07(schema: JsonObject): boolean {
  return typeof schema.$schema === 'string' && DRAFT_07.has(schema.$schema);
}

function checkDialect(schema: JsonObject, fail: (reason: string) => Error): void {
  const dialect = schema.$schema;
  if (dialect === undefined || dialect === '') return;
  if (typeof dialect !== 'string') {
    throw fail(`$schema must be a string, got ${JSON.stringify(dialect)}`);
  }
  if (!(DRAFT_07.has(dialect) || dialect === DRAFT_2020_12)) {
    throw fail(
      `unsupported $schema ${goQuote(dialect)}: the validator handles draft-07 and 2020-12`,
    );
  }
}

/** The refusal of arguments nested too deeply for the validators' recursion. */
function tooDeep(opening: '{' | '['): ValidationError {
  return new ValidationError('', `not valid JSON: ${depthExceededText(opening)}`);
}

function schemaError(toolName: string, reason: string, cause?: unknown): AgentToolError {
  return new AgentToolError(
    'INVALID_SCHEMA',
    `mcpserver: tool ${goQuote(toolName)}: schema: ${reason}`,
    cause === undefined ? undefined : { cause },
  );
}
