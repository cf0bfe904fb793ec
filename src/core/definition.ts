import type Canonicalize from 'canonicalize';
import { AgentToolError } from './errors';
import { nodeCrypto } from './node-crypto';
import { DEPTH_EXCEEDED, depthExceeded, isJsonObject, type JsonObject } from './json';
import { goQuote } from './quote';
import { noArgsSchema } from './schema';
import { isStrict, type Tool } from './tool';

/**
 * A tool's definition in the Open Responses function-tool shape: the only part of a
 * tool that reaches the model. `parameters` is always an object schema (a tool
 * without arguments serves the no-arguments schema); `strict` is present only when true.
 */
export interface FunctionToolDefinition {
  readonly type: 'function';
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonObject;
  readonly strict?: true;
}

/** The definition of a tool, as it is put on a request. */
export function definitionOf(tool: Tool): FunctionToolDefinition {
  const parameters = tool.parameters ?? noArgsSchema();
  const definition = {
    type: 'function' as const,
    name: tool.name,
    description: tool.description ?? '',
    parameters,
  };
  return isStrict(tool) ? { ...definition, strict: true } : definition;
}

/**
 * The definition hash of RFC 0001: the canonical definition (exactly `type`, `name`,
 * `description` (always), `parameters` (always an object schema), `strict` only when
 * true) in RFC 8785 canonical JSON, hashed with SHA-256: `sha256:` and lowercase hex.
 * Accepts a tool or a definition; `strict: false` counts as absent.
 */
export function definitionHash(toolOrDefinition: Tool | FunctionToolDefinition): string {
  return `sha256:${nodeCrypto().createHash('sha256').update(canonicalDefinition(toolOrDefinition)).digest('hex')}`;
}

/**
 * The canonical JSON text that {@link definitionHash} hashes. Parameters nested deeper
 * than `MAX_JSON_DEPTH` throw `definition "<name>": parameters: exceeded max depth of
 * 1000` (code `INVALID_DEFINITION`).
 */
export function canonicalDefinition(toolOrDefinition: Tool | FunctionToolDefinition): string {
  const definition =
    'execute' in toolOrDefinition ? definitionOf(toolOrDefinition) : toolOrDefinition;
  const parameters: unknown = definition.parameters ?? noArgsSchema();
  if (!isJsonObject(parameters)) {
    throw new AgentToolError(
      'INVALID_DEFINITION',
      `definition ${goQuote(definition.name)}: parameters must be an object schema`,
    );
  }
  // Canonical JSON is written by a recursive walk: refuse what would overflow it.
  if (depthExceeded(parameters) !== undefined) {
    throw new AgentToolError(
      'INVALID_DEFINITION',
      `definition ${goQuote(definition.name)}: parameters: ${DEPTH_EXCEEDED}`,
    );
  }
  const canonical: Record<string, unknown> = {
    type: 'function',
    name: definition.name,
    description: definition.description ?? '',
    parameters,
  };
  if ((definition as { strict?: unknown }).strict === true) canonical.strict = true;
  const text = canonicalize()(canonical);
  if (text === undefined) {
    throw new AgentToolError(
      'INVALID_DEFINITION',
      `definition ${goQuote(definition.name)}: cannot be canonicalised`,
    );
  }
  return text;
}

/**
 * `value` in RFC 8785 canonical JSON (the text {@link definitionHash} hashes is one):
 * object members sorted, numbers and strings in their one form; undefined for a value
 * JSON cannot write.
 */
export function canonicalJson(value: unknown): string | undefined {
  return canonicalize()(value);
}

// canonicalize (like node:crypto) loads on the first hash: serving tools or running a
// batch never needs it.
let canonicalizeFunction: typeof Canonicalize | undefined;
/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use */
function canonicalize(): typeof Canonicalize {
  if (canonicalizeFunction === undefined) {
    // Its CommonJS build exports the function itself.
    const loaded = require('canonicalize') as
      typeof Canonicalize | { default: typeof Canonicalize };
    canonicalizeFunction = typeof loaded === 'function' ? loaded : loaded.default;
  }
  return canonicalizeFunction;
}
/* eslint-enable @typescript-eslint/no-require-imports */
