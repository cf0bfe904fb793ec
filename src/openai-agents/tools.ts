import type { FunctionTool, RunContext } from '@openai/agents';
import {
  AgentToolError,
  type Call,
  CallBatcher,
  createContext,
  definitionOf,
  type Elicitor,
  errorMessage,
  Executor,
  readToolSource,
  isStrict,
  type RecordFunc,
  type Result,
  type Tool,
} from 'agenttool';
import type { ToolApp } from 'agenttool/di';
import { type AgentsOutputItem, agentsOutput } from './output';
import { loadAgents, loadAgentsUtils } from './peer';

const agents = loadAgents();
const { toFunctionToolName } = loadAgentsUtils();

// Calls the SDK hands over without an id (none do today) are numbered.
let unnamedCalls = 0;

/** What can be given to an agent: a tool, tools (an array, a `ToolSet`), or an app. */
export type AgentsToolSource = Tool | Iterable<Tool> | ToolApp;

/** One progress update of a call, as a tool reported it. */
export interface AgentsProgress {
  /** The call's id, as the SDK named it. */
  readonly callId: string;
  /** The tool's name. */
  readonly toolName: string;
  /** The update: a message, numbers (`ProgressInfo` in `details`), or a whole result. */
  readonly result: Result;
}

/** How the tools run inside the Agents SDK's loop. */
export interface AgentsToolsOptions {
  /**
   * The executor each turn's calls run on: its bound, `sequential` and `onStart`.
   * Default: an app's own executor, or `new Executor()`.
   */
  readonly executor?: Executor | undefined;
  /** Where records go: those a tool writes while it runs, and Recordable details at the end. */
  readonly recorder?: RecordFunc | undefined;
  /** Who answers the tools' questions (`ctx.ask`); without one every answer is `cancel`. */
  readonly elicitor?: Elicitor | undefined;
  /** Each progress update of a call, in order, before the call's result. */
  readonly onProgress?: ((progress: AgentsProgress) => void) | undefined;
}

/** A function tool of the Agents SDK made from one of ours. */
export type AgentsFunctionTool = FunctionTool;

/** What the SDK tells a function tool about the call it runs. */
type CallDetails = Parameters<FunctionTool['invoke']>[2];
type ToolOptions = Parameters<typeof agents.tool>[0];

/**
 * Tools as OpenAI Agents SDK function tools (`tool()` with the JSON Schema of the tool's
 * definition, `strict` as the tool declares it), for `new Agent({ tools })`. The
 * arguments reach the tool as the model wrote them, validated by the tool itself with
 * the contract's messages; a failure reaches the model as `Error: <message>`.
 *
 * The calls of one turn run as one batch through the executor: resource chains in the
 * model's order, sequential tools alone, the bound, records written, progress and
 * questions reaching the host. The SDK has no hook that names a turn's calls before
 * it runs them; it hands them all over at once, in the model's order, so the batch is
 * the calls handed over in one turn of the event loop. With
 * `toolExecution.maxFunctionToolConcurrency` the SDK holds calls back: each then runs
 * in a smaller batch of its own, in the SDK's order.
 *
 * Throws an `INVALID_TOOL_SET` error for what is not a tool source (see
 * `readToolSource`), and for two tools whose names become one function tool name: the
 * SDK writes each character outside `a-z`, `A-Z`, `0-9` of a name as `_`, so that
 * `read_file` and `read-file` would both be `read_file`.
 */
export function openAiAgentsTools(
  source: AgentsToolSource,
  options: AgentsToolsOptions = {},
): AgentsFunctionTool[] {
  const read = readToolSource(source, 'openAiAgentsTools');
  const tools = read.tools;
  checkFunctionNames(tools);
  const executor = options.executor ?? read.executor ?? new Executor();
  const context = createContext({ recorder: options.recorder, elicitor: options.elicitor });
  const batcher = new CallBatcher({ executor, context });
  return tools.map((tool) => functionTool(tool, batcher, options));
}

/**
 * Refuses two tools whose names the SDK's `tool()` turns into one (its own
 * `toFunctionToolName`): the loop would keep only the last of them, and a call the model
 * makes for the first would run the other (a remote tool in a local one's place).
 */
function checkFunctionNames(tools: readonly Tool[]): void {
  const owners = new Map<string, string>();
  for (const tool of tools) {
    const functionName = toFunctionToolName(tool.name);
    const first = owners.get(functionName);
    if (first !== undefined) {
      throw new AgentToolError(
        'INVALID_TOOL_SET',
        `openAiAgentsTools: tools ${JSON.stringify(first)} and ${JSON.stringify(tool.name)}: duplicate function tool name ${JSON.stringify(functionName)} (the Agents SDK writes each character outside a-z, A-Z, 0-9 as "_"; the loop would keep only one of them)`,
      );
    }
    owners.set(functionName, tool.name);
  }
}

function functionTool(
  tool: Tool,
  batcher: CallBatcher,
  options: AgentsToolsOptions,
): AgentsFunctionTool {
  const definition = definitionOf(tool);
  const execute = async (
    input: unknown,
    runContext?: RunContext<unknown>,
    details?: CallDetails,
  ): Promise<string | AgentsOutputItem[]> => {
    const id = details?.toolCall?.callId ?? `call_${++unnamedCalls}`;
    const { onProgress } = options;
    const call: Call = {
      id,
      // The arguments as the model wrote them, when the SDK hands them over.
      args: details?.toolCall?.arguments ?? JSON.stringify(input ?? {}),
      ...(onProgress === undefined
        ? {}
        : {
            onUpdate: (result: Result) => onProgress({ callId: id, toolName: tool.name, result }),
          }),
    };
    const outcome = await batcher.run(
      { tool, call },
      { step: runContext, signal: details?.signal },
    );
    if (outcome.error !== undefined) throw outcome.error;
    return agentsOutput(outcome.result.output);
  };
  // The definition's schema, served as it is: strict when the tool is, else not.
  const toolOptions = {
    name: definition.name,
    description: definition.description,
    parameters: definition.parameters,
    strict: isStrict(tool),
    execute,
    errorFunction: (_ctx: unknown, error: unknown) => `Error: ${errorMessage(error)}`,
  } as unknown as ToolOptions;
  return agents.tool(toolOptions) as AgentsFunctionTool;
}
