import { AgentToolError } from './errors';
import { definitionOf, type FunctionToolDefinition } from './definition';
import { goQuote } from './quote';
import { isCloser, type Tool } from './tool';

/**
 * An ordered list of tools with lookup, validation, definitions and closing.
 */
export class ToolSet implements Iterable<Tool> {
  readonly #tools: readonly Tool[];

  constructor(tools: Iterable<Tool> = []) {
    this.#tools = [...tools];
  }

  /** The tools, in order. */
  get tools(): readonly Tool[] {
    return this.#tools;
  }

  get size(): number {
    return this.#tools.length;
  }

  [Symbol.iterator](): Iterator<Tool> {
    return this.#tools[Symbol.iterator]();
  }

  /** The first tool with that name, or undefined. */
  lookup(name: string): Tool | undefined {
    return this.#tools.find((tool) => tool.name === name);
  }

  /**
   * Throws on the first problem: `tool[<i>]: empty name` or
   * `tool "<name>": duplicate name`.
   */
  validate(): void {
    const seen = new Set<string>();
    this.#tools.forEach((tool, i) => {
      if (typeof tool?.name !== 'string' || tool.name === '') {
        throw new AgentToolError('INVALID_TOOL_SET', `tool[${i}]: empty name`);
      }
      if (seen.has(tool.name)) {
        throw new AgentToolError('INVALID_TOOL_SET', `tool ${goQuote(tool.name)}: duplicate name`);
      }
      seen.add(tool.name);
    });
  }

  /** The definition of each tool, in order. */
  definitions(): FunctionToolDefinition[] {
    return this.#tools.map(definitionOf);
  }

  /**
   * Closes each tool that owns something, once, in order, and throws one
   * `AggregateError` joining every failure. The host calls it once.
   */
  async close(): Promise<void> {
    const errors: unknown[] = [];
    for (const tool of this.#tools) {
      if (!isCloser(tool)) continue;
      try {
        await tool.close();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) {
      throw new AggregateError(errors, `closing tools: ${errors.length} failed`);
    }
  }
}
