/**
 * agenttool/openai-agents: tools (a `ToolSet`, a `ToolApp`) as OpenAI Agents SDK
 * function tools, whose calls of one turn run as one batch through the executor. Needs
 * the peer dependency `@openai/agents` (0.20.x) and its peer `zod` 4.
 */
export {
  type AgentsFunctionTool,
  type AgentsProgress,
  type AgentsToolSource,
  type AgentsToolsOptions,
  openAiAgentsTools,
} from './tools';
export { type AgentsOutputItem, agentsOutput } from './output';
