import { AgentToolError, errorMessage, goQuote } from '../core';

/**
 * `args` written as JSON text, for a job of the tool `name`. A value JSON cannot write
 * is refused here, where the host made it, rather than leaving a job without arguments
 * that fails the whole batch it joins.
 */
export function jsonArguments(name: string, args: unknown): string {
  let text: string | undefined;
  let problem: unknown;
  try {
    text = JSON.stringify(args);
  } catch (error) {
    problem = error;
  }
  if (text !== undefined) return text;
  // One line: V8 writes where a cycle closes over several.
  const why =
    problem === undefined
      ? `a ${typeof args} has no JSON form`
      : errorMessage(problem).replace(/\s*\n\s*/g, ' ');
  throw new AgentToolError(
    'INVALID_ARGUMENTS',
    `ToolApp.job: the arguments for ${goQuote(name)} cannot be written as JSON: ${why}; give a JSON value, or the JSON text the model wrote`,
    problem === undefined ? {} : { cause: problem },
  );
}
