import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import {
  AgentToolError,
  compileSchema,
  errorMessage,
  isJsonObject,
  type JsonObject,
  NO_ARGS_SCHEMA,
  schemaFromJson,
  ValidationError,
} from '../../core';

/** Checks decoded arguments; returns the first problem, or undefined when they are valid. */
export type ArgumentsCheck = (value: unknown) => ValidationError | undefined;

const DIALECTS: ReadonlySet<string> = new Set([
  'http://json-schema.org/draft-07/schema#',
  'https://json-schema.org/draft-07/schema#',
  'https://json-schema.org/draft/2020-12/schema',
]);

let ajv: AjvJsonSchemaValidator | undefined;

/**
 * Compiles the check a served tool's arguments go through before the tool runs. A
 * schema in the contract's subset is checked with the contract's own validator and
 * messages (`invalid arguments: <path>: <msg>`); any other schema (`$ref`, `oneOf`, …)
 * with the SDK's JSON Schema validator (ajv), its message after `invalid arguments: `.
 * Throws an `INVALID_SCHEMA` error naming the tool when the schema cannot be used, so
 * a bad tool fails when it is added, never when it is called; what cannot fail (the
 * subset's compilation) is deferred to the first call.
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
 * schemas; `fail` builds the error thrown when the schema cannot be compiled.
 */
export function compileGeneral(
  schema: JsonObject,
  fail: (reason: string, cause: unknown) => Error,
): ArgumentsCheck {
  ajv ??= new AjvJsonSchemaValidator();
  let validate: (input: unknown) => { valid: boolean; errorMessage?: string | undefined };
  try {
    validate = ajv.getValidator(schema);
  } catch (error) {
    throw fail(errorMessage(error), error);
  }
  return (value) => {
    const result = validate(value);
    if (result.valid) return undefined;
    return new ValidationError('', result.errorMessage ?? 'does not match the schema');
  };
}

function checkDialect(toolName: string, schema: JsonObject): void {
  const dialect = schema.$schema;
  if (dialect === undefined || dialect === '') return;
  if (typeof dialect !== 'string' || !DIALECTS.has(dialect)) {
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
