import { type Tool as McpTool } from '@modelcontextprotocol/server';
import { annotationsOf, noArgsSchema, outputSchemaOf, type Tool } from '../../core';

/**
 * The MCP definition of a tool, as `tools/list` serves it: `name`, `description`
 * (always, "" when the tool has none), `inputSchema` (the parameters verbatim, or the
 * no-arguments schema `{"type":"object","properties":{},"required":[]}`), the tool's
 * `outputSchema` verbatim when it declares one, and, only when the tool states
 * annotations, `title` and the `annotations` block with every hint stated. Strict does
 * not cross.
 */
export function mcpDefinition(tool: Tool): McpTool {
  const definition: McpTool = {
    name: tool.name,
    description: tool.description ?? '',
    inputSchema: (tool.parameters ?? noArgsSchema()) as McpTool['inputSchema'],
  };
  const outputSchema = outputSchemaOf(tool);
  if (outputSchema !== undefined) {
    definition.outputSchema = outputSchema;
  }
  const stated = annotationsOf(tool);
  if (stated !== undefined) {
    if (stated.title !== '') definition.title = stated.title;
    definition.annotations = {
      ...(stated.title !== '' ? { title: stated.title } : {}),
      readOnlyHint: stated.readOnly,
      destructiveHint: stated.destructive,
      idempotentHint: stated.idempotent,
      openWorldHint: stated.openWorld,
    };
  }
  return definition;
}
