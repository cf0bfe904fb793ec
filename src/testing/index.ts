/**
 * agenttool/testing: test your own tools as a model's host runs them. A client of your
 * app, module or tools over MCP in memory, in either protocol era, with helpers that
 * return what the model reads (output text and parts, errors), the records, progress and
 * questions of each call; scripted answers for tools that ask; calls a test can cancel
 * mid-flight. Plain promises and throws: it works in Jest, Vitest and `node --test`, and
 * depends on none of them.
 */
export {
  type CallOptions,
  type ListedTool,
  PROTOCOL_ERAS,
  type ProtocolEra,
  type RunningCall,
  TestClient,
  type TestClientOptions,
  testClient,
} from './test-client';
export { type CallOutcome, type LogLine } from './outcome';
export { type ToolSettled } from './probes';
export {
  type ScriptedAnswer,
  type ScriptedElicitor,
  ScriptError,
  scriptedElicitor,
} from './scripted-answers';
export { type TestTarget } from './target';
