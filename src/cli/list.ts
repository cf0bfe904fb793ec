import {
  annotationsOf,
  type Confinement,
  confinedBy,
  createContext,
  definitionHash,
  definitionOf,
  type FunctionToolDefinition,
  isCloser,
  isSequential,
  isStrict,
  type JsonObject,
  outputSchemaOf,
  resourceOf,
  type StatedAnnotations,
  tagsOf,
  type Tool,
} from './public-api';
import { terminalSafe } from './terminal-text';

/** A tool as `agenttool list --json` prints it. */
export interface ListedTool {
  readonly hash: string;
  readonly definition: FunctionToolDefinition;
  /** The schema of the tool's structured results; null when it declares none. */
  readonly outputSchema: JsonObject | null;
  readonly properties: {
    readonly sequential: boolean;
    /** "" for none. */
    readonly resource: string;
    readonly strict: boolean;
    readonly closer: boolean;
    /** null when the tool states none (unstated is not "all false"). */
    readonly annotations: StatedAnnotations | null;
    /**
     * Whether a call runs confined, and by what, as the tool answers for a call with
     * only its required arguments (a call may answer otherwise: an escape hatch, say).
     */
    readonly confined: Confinement;
    /** The tool's tags, present only when it has some. */
    readonly tags?: readonly string[];
  };
}

/** Each tool's definition, hash and properties, read through the core readers. */
export function listTools(tools: readonly Tool[]): ListedTool[] {
  return tools.map((tool) => ({
    hash: definitionHash(tool),
    definition: definitionOf(tool),
    outputSchema: outputSchemaOf(tool) ?? null,
    properties: {
      sequential: isSequential(tool),
      resource: resourceOf(tool),
      strict: isStrict(tool),
      closer: isCloser(tool),
      annotations: annotationsOf(tool) ?? null,
      confined: confinementOf(tool),
      ...(tagsOf(tool).length === 0 ? {} : { tags: tagsOf(tool) }),
    },
  }));
}

/**
 * Whether a call of the tool runs confined, and by what, as the tool answers for a call
 * with only its required arguments (a call may answer otherwise: an escape hatch, say).
 */
export function confinementOf(tool: Tool): Confinement {
  return confinedBy(tool, JSON.stringify(minimalArguments(tool.parameters)), createContext());
}

/**
 * The smallest arguments a schema accepts, as far as its required members go: each
 * required property with the first of its enum, or an empty value of its type. What a
 * per-call reader is asked about when no call is at hand.
 */
function minimalArguments(schema: JsonObject | undefined): unknown {
  if (schema === undefined) return {};
  const enumValues = schema['enum'];
  if (Array.isArray(enumValues) && enumValues.length > 0) return enumValues[0];
  const type = Array.isArray(schema['type']) ? schema['type'][0] : schema['type'];
  switch (type) {
    case 'string':
      return '';
    case 'integer':
    case 'number':
      return typeof schema['minimum'] === 'number' ? schema['minimum'] : 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'null':
      return null;
    default: {
      const properties = schema['properties'];
      const required = schema['required'];
      const value: Record<string, unknown> = {};
      if (typeof properties !== 'object' || properties === null || !Array.isArray(required)) {
        return value;
      }
      for (const name of required) {
        if (typeof name !== 'string') continue;
        const member = (properties as Record<string, unknown>)[name];
        value[name] =
          typeof member === 'object' && member !== null && !Array.isArray(member)
            ? minimalArguments(member as JsonObject)
            : '';
      }
      return value;
    }
  }
}

/**
 * The tools as a table: name, definition hash, properties (sequential, resource,
 * strict, closer, `output` when it declares an output schema, `confined=<by>` when
 * a call runs confined, and `tags=<a,b>` when it has tags) and annotations
 * (`unstated`, or the stated hints in words: see {@link annotationsText}).
 */
export function toolTable(tools: readonly Tool[]): string {
  const rows = listTools(tools).map((t) => [
    t.definition.name,
    t.hash,
    propertiesText(t.properties, t.outputSchema !== null),
    annotationsText(t.properties.annotations),
  ]);
  return table(['NAME', 'DEFINITION HASH', 'PROPERTIES', 'ANNOTATIONS'], rows);
}

function propertiesText(p: ListedTool['properties'], output: boolean): string {
  const words: string[] = [];
  if (p.sequential) words.push('sequential');
  if (p.resource !== '') words.push(`resource=${p.resource}`);
  if (p.strict) words.push('strict');
  if (p.closer) words.push('closer');
  if (output) words.push('output');
  if (p.confined.confined) words.push(`confined=${p.confined.by === '' ? 'yes' : p.confined.by}`);
  if (p.tags !== undefined) words.push(`tags=${p.tags.join(',')}`);
  return words.length === 0 ? '-' : words.join(' ');
}

/**
 * The stated hints in words: `read-only`, or `writes (destructive)` / `writes (additive
 * only)` and `idempotent`; then `open world` or `closed world`; then the title.
 */
export function annotationsText(a: StatedAnnotations | null): string {
  if (a === null) return 'unstated';
  const words = a.readOnly
    ? ['read-only']
    : [
        a.destructive ? 'writes (destructive)' : 'writes (additive only)',
        ...(a.idempotent ? ['idempotent'] : []),
      ];
  words.push(a.openWorld ? 'open world' : 'closed world');
  if (a.title !== '') words.push(`title ${JSON.stringify(a.title)}`);
  return words.join(', ');
}

/** Rows under a header, in columns two spaces apart (the last column not padded). */
export function table(header: readonly string[], given: readonly (readonly string[])[]): string {
  const rows = given.map((row) => row.map(terminalSafe));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]): string =>
    cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}
