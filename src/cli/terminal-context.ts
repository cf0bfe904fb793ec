import { createContext, type ToolContext } from './public-api';
import { type CliIo } from './call';
import { TerminalPrompter } from './prompts';

/**
 * A context whose questions (a prompt or a read that asks the user) are put to the
 * person at the terminal, as `call` puts a tool's; `close` stops reading stdin.
 */
export function terminalContext(
  io: CliIo,
  signal: AbortSignal | undefined,
): { context: ToolContext; close: () => void } {
  const prompter = new TerminalPrompter(
    io.stdin,
    io.stderr,
    io.stdin.isTTY === true && io.stderr.isTTY === true,
  );
  const context = createContext({
    elicitor: prompter.elicitor,
    ...(signal === undefined ? {} : { signal }),
  });
  return { context, close: () => prompter.close() };
}
