/**
 * agenttool/ai-sdk: tools (a `ToolSet`, a `ToolApp`) as Vercel AI SDK tools, whose
 * calls of one model step run as one batch through the executor. Needs the peer
 * dependency `ai` (7.x, Node 22 or later).
 */
export {
  type AiSdkProgress,
  type AiSdkToolSource,
  type AiSdkToolsOptions,
  aiSdkTools,
} from './tools';
export { type ModelOutput, modelOutput } from './output';
