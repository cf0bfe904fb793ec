import {
  AgentToolError,
  goQuote,
  isForeignSchema,
  isJsonObject,
  isObjectSchema,
  type JsonObject,
  outputText,
  type Result,
  type Tool,
} from '../../../core';
import { compileStructuredCheck, foreignCheck } from '../../validation';

/**
 * Checks a call's structured result against the tool's output schema: undefined when
 * it fits, else the failure's message.
 */
export type OutputCheck = (structured: JsonObject) => string | undefined;

/**
 * The output check of a tool that declares an `outputSchema`, or undefined for one that
 * does not. A schema in the contract's subset is checked with the contract's own
 * validator and messages, any other with a general JSON Schema validator (draft-07 or
 * 2020-12 as `$schema` says). A mismatch reads `mcp: tool "<name>": invalid structured
 * content: <path>: <what is wrong>`. Throws an `INVALID_SCHEMA` error naming the tool
 * when the output schema is not an object schema or cannot be compiled, so a bad tool
 * fails when it is added, never when it is called; a remote server's schema (served
 * again) is checked as `foreignCheck` says, and one that cannot be compiled checks nothing.
 */
export function compileOutputCheck(tool: Tool): OutputCheck | undefined {
  const schema: unknown = tool.outputSchema;
  if (schema === undefined) return undefined;
  const where = `mcp: tool ${goQuote(tool.name)}`;
  if (!isObjectSchema(schema)) {
    throw new AgentToolError(
      'INVALID_SCHEMA',
      `${where}: output schema: must be a JSON Schema object with "type": "object" (MCP's structured content is an object)`,
    );
  }
  const fail = (reason: string, cause?: unknown): Error =>
    new AgentToolError('INVALID_SCHEMA', `${where}: output schema: ${reason}`, { cause });
  // A remote server's schema, served again (a composition): it must hold nothing up.
  const check = isForeignSchema(schema)
    ? foreignCheck(schema, () => compileStructuredCheck(schema, fail, { linearPatterns: true }))
    : compileStructuredCheck(schema, fail);
  return (structured) => {
    const error = check(structured);
    return error === undefined
      ? undefined
      : `${where}: invalid structured content: ${error.path === '' ? '' : `${error.path}: `}${error.detail}`;
  };
}

/**
 * The structured result of a call: the result's `structured` value, or else, for a
 * tool that declares an output schema, its output text when that is the JSON of an
 * object (a tool that writes its JSON itself, as `newTool` tools do).
 */
export function structuredOf(result: Result, declared: boolean): JsonObject | undefined {
  if (result.structured !== undefined || !declared) return result.structured;
  try {
    const value: unknown = JSON.parse(outputText(result.output));
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
