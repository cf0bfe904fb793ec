import type * as AjvModule from 'ajv';
import {
  AgentToolError,
  compileSchema,
  depthExceeded,
  depthExceededText,
  errorMessage,
  isJsonObject,
  type JsonObject,
  NO_ARGS_SCHEMA,
  schemaFromJson,
  ValidationError,
} from '../../core';

/** Checks decoded arguments; returns the first problem, or undefined when they are valid. */
export type ArgumentsCheck = (value: unknown) => ValidationError | undefined;

const DRAFT_07: ReadonlySet<string> = new Set([
  'http://json-schema.org/draft-07/schema#',
  'https://json-schema.org/draft-07/schema#',
]);
const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

type Ajv = AjvModule.default;
let draft07: Ajv | undefined;
let draft2020: Ajv | undefined;

/**
 * Compiles the check a served tool's arguments go through before the tool runs. A
 * schema in the contract's subset is checked with the contract's own validator and
 * messages (`invalid arguments: <path>: <msg>`); any other schema (`$ref`, `oneOf`, …)
 * with a general JSON Schema validator (ajv, draft-07 or 2020-12 as `$schema` says;
 * 2020-12 without one), its message after `invalid arguments: `. Throws an
 * `INVALID_SCHEMA` error naming the tool when the schema cannot be used, so a bad tool
 * fails when it is added, never when it is called; what cannot fail (the subset's
 * compilation) is deferred to the first call.
 */
export function compileArgumentsCheck(toolName: string, parameters: unknown): ArgumentsCheck {
  if (parameters === undefined || parameters === null) return compileSchema(NO_ARGS_SCHEMA);
  if (!isJsonObject(parameters)) {
    throw schemaError(toolName, 'parameters must be a JSON Schema object');
  }
  checkDialect(toolName, parameters);
  const subset = schemaFromJson(parameters);
  if (subset === undefined) {
    return compileGeneral(parameters, (reason, cause) => schemaError(toolName, reason, cause));
  }
  // A schema in the subset cannot fail to compile: compile it on the first call, so
  // that registering many tools compiles nothing that is never called.
  let check: ArgumentsCheck | undefined;
  return (value) => (check ??= compileSchema(subset))(value);
}

/**
 * Compiles a general JSON Schema (draft-07 / 2020-12) check, for forms and wider
 * schemas; `fail` builds the error thrown when the schema cannot be compiled. Formats
 * are annotations, as JSON Schema 2020-12 makes them by default.
 */
export function compileGeneral(
  schema: JsonObject,
  fail: (reason: string, cause: unknown) => Error,
): ArgumentsCheck {
  let validate: AjvModule.ValidateFunction;
  try {
    validate = validatorFor(schema).compile(schema);
  } catch (error) {
    throw fail(errorMessage(error), error);
  }
  return (value) => {
    // ajv's validator recurses: a value nested past the limit is refused before it.
    const opening = depthExceeded(value);
    if (opening !== undefined) {
      return new ValidationError('', `not valid JSON: ${depthExceededText(opening)}`);
    }
    if (validate(value)) return undefined;
    const first = validate.errors?.[0];
    if (first === undefined) return new ValidationError('', 'does not match the schema');
    return new ValidationError('', `data${first.instancePath} ${first.message ?? 'is invalid'}`);
  };
}

// ajv loads in some 40 ms: only a server with a schema outside the subset pays for it.
function validatorFor(schema: JsonObject): Ajv {
  const dialect = schema.$schema;
  const options: AjvModule.Options = { strict: false, validateFormats: false, allErrors: false };
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on demand */
  if (typeof dialect === 'string' && DRAFT_07.has(dialect)) {
    draft07 ??= new (require('ajv') as typeof AjvModule).default(options);
    return draft07;
  }
  draft2020 ??= new (require('ajv/dist/2020') as typeof AjvModule).default(options);
  /* eslint-enable @typescript-eslint/no-require-imports */
  return draft2020;
}

function checkDialect(toolName: string, schema: JsonObject): void {
  const dialect = schema.$schema;
  if (dialect === undefined || dialect === '') return;
  if (typeof dialect !== 'string' || !(DRAFT_07.has(dialect) || dialect === DRAFT_2020_12)) {
    throw schemaError(
      toolName,
      `unsupported $schema ${JSON.stringify(dialect)}: the validator handles draft-07 and 2020-12`,
    );
  }
}

function schemaError(toolName: string, reason: string, cause?: unknown): AgentToolError {
  return new AgentToolError(
    'INVALID_SCHEMA',
    `mcp: tool ${JSON.stringify(toolName)}: schema: ${reason}`,
    cause === undefined ? undefined : { cause },
  );
}
