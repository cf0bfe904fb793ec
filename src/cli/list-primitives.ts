import { table } from './list';
import { primitiveFailure } from './primitive-errors';
import { type OpenTarget, type Primitives } from './targets';

/** A prompt as the server lists it (`prompts/list`). */
export type ListedPrompt = Awaited<ReturnType<Primitives['listPrompts']>>[number];
/** A resource as the server lists it (`resources/list`). */
export type ListedResource = Awaited<ReturnType<Primitives['listResources']>>[number];
/** A resource template as the server lists it (`resources/templates/list`). */
export type ListedTemplate = Awaited<ReturnType<Primitives['listResourceTemplates']>>[number];

/** What `agenttool list` shows besides the tools. */
export interface ListedPrimitives {
  readonly prompts: readonly ListedPrompt[];
  readonly resources: readonly ListedResource[];
  readonly templates: readonly ListedTemplate[];
}

/** The kinds `list --only` picks from. */
export const LIST_KINDS = ['tools', 'prompts', 'resources', 'templates'] as const;
export type ListKind = (typeof LIST_KINDS)[number];

/**
 * The target's prompts, resources and templates, every page; none of a kind the
 * target does not offer (a server without prompts, a module that declares none).
 */
export async function listPrimitives(
  target: OpenTarget,
  kinds: readonly ListKind[],
): Promise<ListedPrimitives> {
  const none: ListedPrimitives = { prompts: [], resources: [], templates: [] };
  if (!kinds.some((kind) => kind !== 'tools')) return none;
  try {
    const primitives = await target.primitives();
    if (primitives === undefined) return none;
    const [prompts, resources, templates] = await Promise.all([
      kinds.includes('prompts') ? primitives.listPrompts() : [],
      kinds.includes('resources') ? primitives.listResources() : [],
      kinds.includes('templates') ? primitives.listResourceTemplates() : [],
    ]);
    return { prompts, resources, templates };
  } catch (error) {
    throw primitiveFailure(error);
  }
}

/**
 * The prompts, resources and templates as tables, each under its own header, an empty
 * kind left out: `PROMPT ARGUMENTS DESCRIPTION` (an optional argument ends with `?`),
 * `RESOURCE NAME MIME TYPE`, `TEMPLATE NAME MIME TYPE`.
 */
export function primitiveTables(listed: ListedPrimitives): string[] {
  const tables: string[] = [];
  if (listed.prompts.length > 0) {
    const rows = listed.prompts.map((p) => [
      p.name,
      (p.arguments ?? []).map((a) => (a.required === true ? a.name : `${a.name}?`)).join(', ') ||
        '-',
      oneLine(p.description ?? p.title ?? ''),
    ]);
    tables.push(table(['PROMPT', 'ARGUMENTS', 'DESCRIPTION'], rows));
  }
  if (listed.resources.length > 0) {
    const rows = listed.resources.map((r) => [r.uri, r.name, r.mimeType ?? '-']);
    tables.push(table(['RESOURCE', 'NAME', 'MIME TYPE'], rows));
  }
  if (listed.templates.length > 0) {
    const rows = listed.templates.map((t) => [t.uriTemplate, t.name, t.mimeType ?? '-']);
    tables.push(table(['TEMPLATE', 'NAME', 'MIME TYPE'], rows));
  }
  return tables;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line === '' ? '-' : line;
}
