import { errorMessage, type LiveTools, type Tool } from '../../core';

/** What following a source needs of the server. */
export interface ToolTarget {
  addTools(...tools: Tool[]): void;
  removeTools(...names: string[]): number;
}

/**
 * Keeps the tools a server serves from `live` equal to `live.tools` after each change:
 * the tools gone (or replaced by another object of the same name) are removed, then the
 * new ones added, so listening clients are told the list changed. A tool the server
 * refuses (a bad schema, a name already served) is left out and reported; the others are
 * served. Returns the function that stops following.
 */
export function followTools(
  live: LiveTools,
  served: readonly Tool[],
  target: ToolTarget,
  report: (message: string, error: unknown) => void,
): () => void {
  let current = new Map(served.map((tool) => [tool.name, tool]));
  const sync = (): void => {
    let next: Tool[];
    try {
      next = [...live.tools];
    } catch (error) {
      report(`mcp: serve: reading the changed tools failed: ${errorMessage(error)}`, error);
      return;
    }
    const wanted = new Map(next.map((tool) => [tool.name, tool]));
    const gone = [...current].filter(([name, tool]) => wanted.get(name) !== tool).map(([n]) => n);
    if (gone.length > 0) target.removeTools(...gone);
    const kept = new Map([...current].filter(([name]) => !gone.includes(name)));
    const added = next.filter((tool) => kept.get(tool.name) !== tool);
    for (const tool of addServable(target, added, report)) kept.set(tool.name, tool);
    current = kept;
  };
  return live.onToolsChanged(sync);
}

/**
 * Adds `tools` to the target and returns those it took: all at once, or, when it
 * refuses them, one by one, each tool it refuses (a bad schema, a name already served)
 * left out and reported, so that one bad tool (a remote server's) keeps none of the
 * others out.
 */
export function addServable(
  target: Pick<ToolTarget, 'addTools'>,
  tools: readonly Tool[],
  report: (message: string, error: unknown) => void,
): Tool[] {
  if (tools.length === 0) return [];
  try {
    target.addTools(...tools);
    return [...tools];
  } catch {
    return tools.filter((tool) => {
      try {
        target.addTools(tool);
        return true;
      } catch (error) {
        report(
          `mcp: serve: tool ${JSON.stringify(tool.name)} is not served: ${errorMessage(error)}`,
          error,
        );
        return false;
      }
    });
  }
}
