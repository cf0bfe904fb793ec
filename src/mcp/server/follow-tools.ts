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
    if (added.length > 0) {
      try {
        target.addTools(...added);
        for (const tool of added) kept.set(tool.name, tool);
      } catch {
        // One bad tool must not keep the others out: add them one by one.
        for (const tool of added) {
          try {
            target.addTools(tool);
            kept.set(tool.name, tool);
          } catch (error) {
            report(
              `mcp: serve: tool ${JSON.stringify(tool.name)} is not served: ${errorMessage(error)}`,
              error,
            );
          }
        }
      }
    }
    current = kept;
  };
  return live.onToolsChanged(sync);
}
