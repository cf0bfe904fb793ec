import type { Tool as AiTool, ToolSet as AiToolSet } from 'ai';
import {
  type Call,
  CallBatcher,
  createContext,
  definitionOf,
  type Elicitor,
  Executor,
  readToolSource,
  isStrict,
  type JsonValue,
  type Output,
  type RecordFunc,
  type Result,
  type Tool,
} from 'agenttool';
import type { ToolApp } from 'agenttool/di';
import { modelOutput } from './output';
import { loadAi } from './peer';

const ai = loadAi();

/** What can be given to the AI SDK: a tool, tools (an array, a `ToolSet`), or an app. */
export type AiSdkToolSource = Tool | Iterable<Tool> | ToolApp;

/** One progress update of a call, as a tool reported it. */
export interface AiSdkProgress {
  /** The call's id, as the SDK named it. */
  readonly toolCallId: string;
  /** The tool's name. */
  readonly toolName: string;
  /** The update: a message, numbers (`ProgressInfo` in `details`), or a whole result. */
  readonly result: Result;
}

/** How the tools run inside the AI SDK's loop. */
export interface AiSdkToolsOptions {
  /**
   * The executor each step's calls run on: its bound, `sequential` and `onStart`.
   * Default: an app's own executor, or `new Executor()`.
   */
  readonly executor?: Executor | undefined;
  /** Where records go: those a tool writes while it runs, and Recordable details at the end. */
  readonly recorder?: RecordFunc | undefined;
  /** Who answers the tools' questions (`ctx.ask`); without one every answer is `cancel`. */
  readonly elicitor?: Elicitor | undefined;
  /** Each progress update of a call, in order, before the call's result. */
  readonly onProgress?: ((progress: AiSdkProgress) => void) | undefined;
}

/**
 * Tools as a Vercel AI SDK `ToolSet` (`ai`'s `tool()` with `jsonSchema()`), keyed by
 * name, for `generateText`, `streamText` and `ToolLoopAgent`. The schema is the tool's
 * definition as the contract writes it, served verbatim and validated by the tool
 * itself with the contract's messages; a strict tool is `strict: true`.
 *
 * The calls of one model step run as one batch through the executor: resource chains
 * in the model's order, sequential tools alone, the bound, records written, progress
 * and questions reaching the host. The SDK announces each call of a step in the model's
 * order (`onInputAvailable`) before it executes any, then executes them all at once;
 * the batch starts when the last announced call arrives. A call the SDK holds back
 * (`toolCallConcurrency`, an approval) runs in a batch of its own when it arrives.
 *
 * A failure is thrown as an `Error` whose `cause` is the tool's error, so the SDK
 * reports a tool error and the model reads `Error: <message>`, as the contract says.
 */
export function aiSdkTools(source: AiSdkToolSource, options: AiSdkToolsOptions = {}): AiToolSet {
  const read = readToolSource(source, 'aiSdkTools');
  const tools = read.tools;
  const executor = options.executor ?? read.executor ?? new Executor();
  const context = createContext({ recorder: options.recorder, elicitor: options.elicitor });
  const batcher = new CallBatcher({ executor, context });
  // Own properties whatever the names: an assignment to `set["__proto__"]` (a legal
  // MCP tool name) would set the object's prototype instead.
  return Object.fromEntries(tools.map((tool) => [tool.name, aiTool(tool, batcher, options)]));
}

function aiTool(tool: Tool, batcher: CallBatcher, options: AiSdkToolsOptions): AiTool {
  const definition = definitionOf(tool);
  return ai.tool({
    description: definition.description,
    inputSchema: ai.jsonSchema(definition.parameters),
    ...(isStrict(tool) ? { strict: true } : {}),
    // Every call of a step is announced, in the model's order, before any executes.
    onInputAvailable: ({ toolCallId, messages }) => batcher.announce(messages, toolCallId),
    execute: async (input, { toolCallId, messages, abortSignal }) => {
      const { onProgress } = options;
      const call: Call = {
        id: toolCallId,
        args: JSON.stringify(input ?? {}),
        value: input as JsonValue,
        ...(onProgress === undefined
          ? {}
          : {
              onUpdate: (result: Result) => onProgress({ toolCallId, toolName: tool.name, result }),
            }),
      };
      const outcome = await batcher.run({ tool, call }, { step: messages, signal: abortSignal });
      // The SDK shows the model `<name>: <message>`: a plain Error reads as the contract's
      // `Error: <message>`, the error itself stays its cause.
      if (outcome.error !== undefined) {
        throw new Error(outcome.error.message, { cause: outcome.error });
      }
      return outcome.result.output;
    },
    toModelOutput: ({ output }: { output: Output }) => modelOutput(output),
  });
}
