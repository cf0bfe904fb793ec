import { goQuote, type Tool } from '../core';

/**
 * What an app warns of when it starts, without refusing to start: the tools whose
 * description is empty. The contract allows one, but a model chooses among tools by
 * their descriptions, so such a tool is rarely called. Undefined when there is nothing
 * to say.
 */
export function startWarning(root: string, tools: Iterable<Tool>): string | undefined {
  const silent = [...tools].filter((tool) => tool.description.trim() === '').map((t) => t.name);
  if (silent.length === 0) return undefined;
  const named = silent.map(goQuote).join(', ');
  return `ToolApp.create(${root}): ${silent.length === 1 ? `tool ${named} has` : `tools ${named} have`} no description; a model chooses its tools by their descriptions: say what each does and when to use it in @Tool({ description })`;
}

/** Hands the warning to `onWarning`, or writes it as a process warning (`AgentToolWarning`). */
export function warnAtStart(
  warning: string | undefined,
  onWarning: ((warning: string) => void) | undefined,
): void {
  if (warning === undefined) return;
  if (onWarning !== undefined) onWarning(warning);
  else process.emitWarning(warning, { type: 'AgentToolWarning', code: 'AGENTTOOL_NO_DESCRIPTION' });
}
