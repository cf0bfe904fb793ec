import { compileSchema, type JsonObject, schemaFromJson, type ValidationError } from '../../core';
import { compileGeneral, type GeneralCheckOptions } from './arguments';

/**
 * The check of structured content against an output schema (an object schema): in the
 * contract's subset with the contract's own validator and messages, any other with a
 * general JSON Schema validator (draft-07 or 2020-12 as `$schema` says). `fail` builds
 * the error thrown, now, when the schema cannot be compiled; the subset, which cannot
 * fail to compile, is compiled on the first check.
 */
export function compileStructuredCheck(
  schema: JsonObject,
  fail: (reason: string, cause?: unknown) => Error,
  options: GeneralCheckOptions = {},
): (structured: unknown) => ValidationError | undefined {
  const subset = schemaFromJson(schema);
  if (subset === undefined) return compileGeneral(schema, fail, options);
  let check: ((value: unknown) => ValidationError | undefined) | undefined;
  return (structured) => (check ??= compileSchema(subset))(structured);
}
