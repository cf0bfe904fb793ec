import { type Tool as McpTool } from '@modelcontextprotocol/server';
import { annotationsOf, isJsonObject, type JsonObject, noArgsSchema, type Tool } from '../../core';

/**
 * The MCP definition of a tool, as `tools/list` serves it: `name`, `description`
 * (always, "" when the tool has none), `inputSchema` (the parameters verbatim, or the
 * no-arguments schema `{"type":"object","properties":{},"required":[]}`), and, only when
 * the tool states annotations, `title` and the `annotations` block with every hint
 * stated. Strict does not cross. A tool that declares an `outputSchema` (an object
 * schema) serves it.
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

/**
 * The output schema a tool declares, read structurally (`outputSchema`, an object
 * schema), or undefined. A tool with one gets `structuredContent` when its output is a
 * JSON object.
 */
export function outputSchemaOf(tool: Tool): JsonObject | undefined {
  const schema = (tool as { outputSchema?: unknown }).outputSchema;
  return isJsonObject(schema) ? schema : undefined;
}
