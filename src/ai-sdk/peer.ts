import type * as Ai from 'ai';
import { AgentToolError, errorMessage } from 'agenttool';

/**
 * The `ai` package, loaded when this entry is: a peer dependency that only an app using
 * this entry installs. Its absence is said plainly, with the command that fixes it.
 */
export function loadAi(): typeof Ai {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a peer, checked here
    return require('ai') as typeof Ai;
  } catch (error) {
    const missing = (error as { code?: unknown }).code === 'MODULE_NOT_FOUND';
    throw new AgentToolError(
      'MISSING_PEER',
      missing
        ? 'agenttool/ai-sdk: the package "ai" is not installed; it is a peer dependency of this entry: npm install ai@7'
        : `agenttool/ai-sdk: the package "ai" could not be loaded (ai 7 needs Node 22 or later): ${errorMessage(error)}`,
      { cause: error },
    );
  }
}
