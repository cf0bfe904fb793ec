import type * as Agents from '@openai/agents';
import { AgentToolError, errorMessage } from 'agenttool';

/**
 * The `@openai/agents` package, loaded when this entry is: a peer dependency that only
 * an app using this entry installs. Its absence is said plainly, with the fix.
 */
export function loadAgents(): typeof Agents {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a peer, checked here
    return require('@openai/agents') as typeof Agents;
  } catch (error) {
    const missing = (error as { code?: unknown }).code === 'MODULE_NOT_FOUND';
    throw new AgentToolError(
      'MISSING_PEER',
      missing
        ? 'agenttool/openai-agents: the package "@openai/agents" is not installed; it is a peer dependency of this entry: npm install @openai/agents@0.20 zod@4'
        : `agenttool/openai-agents: the package "@openai/agents" could not be loaded: ${errorMessage(error)}`,
      { cause: error },
    );
  }
}
