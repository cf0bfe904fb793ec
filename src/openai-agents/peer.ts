import type * as Agents from '@openai/agents';
import type * as AgentsUtils from '@openai/agents/utils';
import { AgentToolError, errorMessage } from 'agenttool';

/**
 * The `@openai/agents` package, loaded when this entry is: a peer dependency that only
 * an app using this entry installs. Its absence is said plainly, with the fix.
 */
export function loadAgents(): typeof Agents {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a peer, checked here
  return loadPeer(() => require('@openai/agents') as typeof Agents);
}

/**
 * The utilities entry of the same package (`@openai/agents/utils`), whose
 * `toFunctionToolName` is the rule `tool()` names a function tool by.
 */
export function loadAgentsUtils(): typeof AgentsUtils {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a peer, checked here
  return loadPeer(() => require('@openai/agents/utils') as typeof AgentsUtils);
}

function loadPeer<T>(load: () => T): T {
  try {
    return load();
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
