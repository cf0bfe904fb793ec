import {
  annotationsOf,
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
  type Tool,
} from './public-api';

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
    },
  }));
}

/**
 * The tools as a table: name, definition hash, properties (sequential, resource,
 * strict, closer, and `output` when it declares an output schema) and annotations
 * (`unstated`, or the hints that are true).
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
  return words.length === 0 ? '-' : words.join(' ');
}

function annotationsText(a: StatedAnnotations | null): string {
  if (a === null) return 'unstated';
  const hints = (['readOnly', 'destructive', 'idempotent', 'openWorld'] as const).filter(
    (hint) => a[hint],
  );
  const text = hints.length === 0 ? 'none true' : hints.join(' ');
  return a.title === '' ? text : `${text} title=${JSON.stringify(a.title)}`;
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]): string =>
    cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}
