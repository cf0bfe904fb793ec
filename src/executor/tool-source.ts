import { AgentToolError, goQuote, type Tool } from '../core';
import { Executor } from './executor';

/**
 * Tools with the executor they run on, such as an app of `agenttool/di` (`ToolApp`).
 */
export interface ToolHost {
  readonly tools: Iterable<Tool>;
  readonly executor: Executor;
}

/** What an agent-loop host takes: one tool, tools (an array, a `ToolSet`, any iterable), or an app. */
export type ToolSource = Tool | Iterable<Tool> | ToolHost;

/** A {@link ToolSource} as {@link readToolSource} reads it. */
export interface ReadToolSource {
  /** The tools, in order: each a tool with a name of its own. */
  readonly tools: readonly Tool[];
  /** The executor of an app (a {@link ToolHost}); undefined for tools alone. */
  readonly executor: Executor | undefined;
}

/**
 * Reads what an agent-loop host was given, checking it whole before anything is built:
 * a tool, an iterable of tools, or an app (a {@link ToolHost}: its tools and executor).
 * Throws an `INVALID_TOOL_SET` error that starts with `entry` (the host's function, so
 * the caller knows whose input was wrong) and names the first problem:
 * - `<entry>: give a tool, an iterable of tools, or an app, not …` for anything else;
 * - `<entry>: tool[<i>]: not a tool: …` for a member without a name and an `execute`
 *   function (a class, such as a `@Tool` class, with a hint to `toolFromInstance`);
 * - `<entry>: tool[<i>]: empty name` and `<entry>: tool "<name>": duplicate name`, the
 *   words of `ToolSet.validate`: a second tool of one name would replace the first.
 */
export function readToolSource(source: unknown, entry: string): ReadToolSource {
  if (source === null || typeof source !== 'object') {
    throw new AgentToolError(
      'INVALID_TOOL_SET',
      `${entry}: give a tool, an iterable of tools, or an app, not ${describe(source)}`,
    );
  }
  // An app runs batches (it has `execute` too) but has no name: it is read first.
  if (isHost(source)) {
    return { tools: checkedTools(source.tools, entry), executor: source.executor };
  }
  if (isTool(source)) return { tools: checkedTools([source], entry), executor: undefined };
  if (!(Symbol.iterator in source)) {
    throw new AgentToolError(
      'INVALID_TOOL_SET',
      `${entry}: give a tool, an iterable of tools, or an app; this object is none of them`,
    );
  }
  return { tools: checkedTools(source as Iterable<unknown>, entry), executor: undefined };
}

function checkedTools(members: Iterable<unknown>, entry: string): Tool[] {
  const tools: Tool[] = [];
  const seen = new Set<string>();
  let i = 0;
  for (const member of members) {
    if (typeof member === 'function') {
      const name = member.name === '' ? 'Class' : member.name;
      throw new AgentToolError(
        'INVALID_TOOL_SET',
        `${entry}: tool[${i}]: not a tool but the function or class ${name}; a @Tool class becomes a tool with toolFromInstance(new ${name}(…))`,
      );
    }
    if (!isTool(member)) {
      throw new AgentToolError(
        'INVALID_TOOL_SET',
        `${entry}: tool[${i}]: not a tool (a tool has a string name and an execute function): ${describe(member)}`,
      );
    }
    if (member.name === '') {
      throw new AgentToolError('INVALID_TOOL_SET', `${entry}: tool[${i}]: empty name`);
    }
    if (seen.has(member.name)) {
      throw new AgentToolError(
        'INVALID_TOOL_SET',
        `${entry}: tool ${goQuote(member.name)}: duplicate name`,
      );
    }
    seen.add(member.name);
    tools.push(member);
    i++;
  }
  return tools;
}

function isHost(value: object): value is ToolHost {
  return (value as ToolHost).executor instanceof Executor && 'tools' in value;
}

function isTool(value: unknown): value is Tool {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Tool).name === 'string' &&
    typeof (value as Tool).execute === 'function'
  );
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return `${typeof value} ${String(value)}`;
  }
  return `a ${typeof value}`;
}
