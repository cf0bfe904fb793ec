import { AgentToolError } from './errors';
import { goQuote } from './quote';

/**
 * Whether a tool's calls run as tasks when a host can run them so (an MCP client that
 * takes the tasks extension): `never` (the default: every call answers in its request),
 * `optional` (a call becomes a task when the client takes tasks), `required` (a call
 * must be a task; a client that takes none is refused).
 */
export type TaskMode = 'never' | 'optional' | 'required';

/** How a tool's calls run as tasks (see {@link TaskMode}); read with {@link taskSupportOf}. */
export interface TaskSupport {
  readonly mode: TaskMode;
  /**
   * The questions the tool asks at its very start, before it awaits anything else, go
   * back with the call as for a call that is no task, and the task begins once the tool
   * goes on without asking (MCP's "input before the task"). Default false: the task
   * begins with the call, and every question is the task's.
   */
  readonly questionsFirst?: boolean | undefined;
}

/** A tool's `TaskSupport` as its reader reports it: every member present. */
export interface StatedTaskSupport {
  readonly mode: TaskMode;
  readonly questionsFirst: boolean;
}

const NO_TASKS: StatedTaskSupport = Object.freeze({ mode: 'never', questionsFirst: false });

/**
 * How the tool's calls run as tasks: `{mode: 'never', questionsFirst: false}` unless it
 * declares otherwise; an unknown mode reads as `never`.
 */
export function taskSupportOf(tool: {
  readonly taskSupport?: TaskSupport | undefined;
}): StatedTaskSupport {
  const declared: unknown = tool.taskSupport;
  if (typeof declared !== 'object' || declared === null) return NO_TASKS;
  const { mode, questionsFirst } = declared as { mode?: unknown; questionsFirst?: unknown };
  if (mode !== 'optional' && mode !== 'required') return NO_TASKS;
  return { mode, questionsFirst: questionsFirst === true };
}

/**
 * The task support `newTool` was given (a mode, or the mode with its options), checked;
 * throws `INVALID_TOOL` naming the tool for a mode that is none.
 */
export function taskSupportFrom(name: string, taskSupport: TaskMode | TaskSupport): TaskSupport {
  const given: unknown = taskSupport;
  const support = (typeof given === 'string' ? { mode: given } : { ...(given as object) }) as {
    mode?: unknown;
    questionsFirst?: unknown;
  };
  const mode = support.mode;
  if (mode !== 'never' && mode !== 'optional' && mode !== 'required') {
    throw new AgentToolError(
      'INVALID_TOOL',
      `agenttool.newTool(${goQuote(String(name))}): taskSupport must be 'never', 'optional' or 'required' (or {mode, questionsFirst}), got ${JSON.stringify(mode)}`,
    );
  }
  return Object.freeze({ mode, questionsFirst: support.questionsFirst === true });
}
