import {
  AgentToolError,
  definitionHash,
  goQuote,
  type Tool,
  toolNameProblem,
  validatesOwnArguments,
} from '../../core';
import { compileOutputCheck, type ParamHeader, paramHeadersOf, type ServedTool } from './calls';
import { mcpDefinition } from './definition';
import {
  checkContractDecides,
  compileArgumentsCheck,
  contractDecides,
  withoutConstraints,
} from '../validation';
import { type Catalog } from './primitives';

/** A served tool whose definition changed in a swap, with its hash before and after. */
export interface ChangedTool {
  /** The tool's name, served before and after. */
  readonly name: string;
  /** The definition hash before the swap (`sha256:` + hex, CONTRACT's hash). */
  readonly from: string;
  /** The definition hash after the swap. */
  readonly to: string;
}

/**
 * What `McpToolServer.swap` changed: tools by name (added, removed, and kept under
 * the same name with another definition), and whether the prompts or the resources
 * (templates included) listed differ. The lists are in the order the tools are served.
 */
export interface ServedChanges {
  /** Tools served now under a name that was not served before. */
  readonly added: readonly string[];
  /** Tools no longer served. */
  readonly removed: readonly string[];
  /**
   * Tools served under the same name whose definition changed: its hash, or what MCP
   * serves beside it (annotations, title, output schema).
   */
  readonly changed: readonly ChangedTool[];
  /** True when the prompts listed differ (names, titles, descriptions, arguments). */
  readonly promptsChanged: boolean;
  /** True when the resources or resource templates listed differ. */
  readonly resourcesChanged: boolean;
}

/** The tools that came, went and changed between two served sets. */
export function toolChanges(
  before: ReadonlyMap<string, ServedTool>,
  after: ReadonlyMap<string, ServedTool>,
): Pick<ServedChanges, 'added' | 'removed' | 'changed'> {
  const added = [...after.keys()].filter((name) => !before.has(name));
  const removed = [...before.keys()].filter((name) => !after.has(name));
  const changed: ChangedTool[] = [];
  for (const [name, now] of after) {
    const then = before.get(name);
    if (then === undefined) continue;
    const from = hashOf(then.tool);
    const to = hashOf(now.tool);
    // The contract's hash covers name, description and parameters; MCP serves more.
    if (from !== to || JSON.stringify(then.definition) !== JSON.stringify(now.definition)) {
      changed.push({ name, from, to });
    }
  }
  return { added, removed, changed };
}

/** Whether the listed prompts, and the listed resources and templates, differ. */
export function catalogChanges(
  before: Catalog,
  after: Catalog,
): Pick<ServedChanges, 'promptsChanged' | 'resourcesChanged'> {
  const prompts = (catalog: Catalog): string =>
    JSON.stringify([...catalog.prompts.values()].map((entry) => entry.definition));
  const resources = (catalog: Catalog): string =>
    JSON.stringify([
      [...catalog.resources.values()].map((entry) => entry.definition),
      catalog.templates.map((entry) => entry.definition),
    ]);
  return {
    promptsChanged: prompts(before) !== prompts(after),
    resourcesChanged: resources(before) !== resources(after),
  };
}

function hashOf(tool: Tool): string {
  try {
    return definitionHash(tool);
  } catch {
    // A definition that cannot be hashed (a schema JSON cannot hold) is served anyway.
    return '';
  }
}

/**
 * Each tool compiled for serving (its schemas, its definition), in order; throws for
 * the first invalid one, or one whose name is `taken` or given twice.
 */
export function compileServedTools(
  tools: readonly Tool[],
  taken: (name: string) => boolean,
): Map<string, ServedTool> {
  const added = new Map<string, ServedTool>();
  tools.forEach((tool, i) => {
    if (typeof tool?.name !== 'string' || tool.name === '') {
      throw new AgentToolError('INVALID_TOOL_SET', `mcp: tool[${i}]: empty name`);
    }
    if (taken(tool.name) || added.has(tool.name)) {
      throw new AgentToolError(
        'INVALID_TOOL_SET',
        `mcp: tool ${goQuote(tool.name)}: duplicate name; remove the served tool first`,
      );
    }
    // A tool that validates its own arguments checks class-validator's constraints
    // itself, in the contract's words (as in process); the served check decides the rest.
    const own = validatesOwnArguments(tool) ? withoutConstraints(tool.parameters) : undefined;
    // In this order: the first schema that cannot be used is the one the error names.
    const check = compileArgumentsCheck(tool.name, tool.parameters);
    const selfChecked =
      validatesOwnArguments(tool) &&
      (own !== undefined ? contractDecides(own) : checkContractDecides(check));
    const phrasing = own === undefined ? undefined : compileArgumentsCheck(tool.name, own);
    const output = compileOutputCheck(tool);
    const definition = mcpDefinition(tool);
    let paramHeaders: readonly ParamHeader[] | undefined;
    added.set(tool.name, {
      tool,
      check,
      selfChecked,
      ...(phrasing === undefined ? {} : { phrasing }),
      output,
      definition,
      // Only a 2026-07-28 call over HTTP reads them: found then, not for every tool at
      // start, in the schema the tool is listed with.
      get paramHeaders() {
        return (paramHeaders ??= paramHeadersOf(definition.inputSchema));
      },
    });
    // After the schemas, whose errors read as the Go server's, which takes any name.
    const nameProblem = toolNameProblem(tool.name);
    if (nameProblem !== undefined) {
      throw new AgentToolError('INVALID_TOOL_SET', `mcp: tool[${i}]: ${nameProblem}`);
    }
  });
  return added;
}
