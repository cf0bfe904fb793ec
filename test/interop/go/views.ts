/**
 * What a host sees of each call, in one shape for both consumers (the Go host's JSON
 * lines, our `connectMcp`), so that views can be compared call by call.
 */
import {
  type Answer,
  createContext,
  definitionHash,
  definitionOf,
  errorResult,
  type JsonObject,
  outputText,
  ProgressInfo,
  type Tool,
} from 'agenttool';
import { connectMcp, type McpTarget, RemoteRecord } from 'agenttool/mcp';
import { type HostCall, linesOf, type PeerLine } from './go-peer';

export interface CallView {
  output?: unknown;
  /** What the model sees of a failure: `Error: <message>`. */
  error?: string;
  record?: { ns: string; data: string };
  progress: { progress: number; total: number; message: string }[];
  asked: { message: string; schema: unknown }[];
}

export interface ListedTool {
  name: string;
  definition: unknown;
  hash: string;
}

export interface HostView {
  protocol: string;
  tools: ListedTool[];
  calls: CallView[];
}

/** The Go host's lines as views. */
export function goHostView(lines: readonly PeerLine[], calls: number): HostView {
  const server = linesOf(lines, 'server')[0];
  const hostError = linesOf(lines, 'host-error')[0];
  if (server === undefined || hostError !== undefined) {
    throw new Error(`the Go host failed: ${JSON.stringify(lines)}`);
  }
  const tools = linesOf(lines, 'tool').map((l) => ({
    name: String(l['name']),
    definition: l['definition'],
    hash: String(l['hash']),
  }));
  const views: CallView[] = [];
  for (let i = 0; i < calls; i++) {
    const result = linesOf(lines, 'result', i)[0];
    if (result === undefined) throw new Error(`no result for call ${i}: ${JSON.stringify(lines)}`);
    const view: CallView = {
      progress: linesOf(lines, 'progress', i).map((l) => ({
        progress: Number(l['progress']),
        total: Number(l['total']),
        message: String(l['message']),
      })),
      asked: linesOf(lines, 'asked', i).map((l) => ({
        message: String(l['message']),
        schema: l['schema'],
      })),
    };
    if ('output' in result) view.output = result['output'];
    if ('error' in result) view.error = String(result['error']);
    const record = result['record'] as { ns: string; data: string } | undefined;
    if (record !== undefined) view.record = { ns: record.ns, data: record.data };
    views.push(view);
  }
  return { protocol: String(server['protocol']), tools, calls: views };
}

/** The same script through our client: list, then each call through the remote tool. */
export async function ourClientView(
  transport: McpTarget,
  protocol: 'legacy' | 'modern' | 'auto',
  calls: readonly HostCall[],
): Promise<HostView & { remoteTools: Tool[]; rawResults: unknown[] }> {
  const remote = await connectMcp({ transport, protocol, elicitation: true });
  try {
    const remoteTools = remote.tools();
    const tools = remoteTools.map((t) => ({
      name: t.name,
      definition: JSON.parse(JSON.stringify(definitionOf(t))) as unknown,
      hash: definitionHash(t),
    }));
    const views: CallView[] = [];
    const rawResults: unknown[] = [];
    for (const [i, c] of calls.entries()) {
      const tool = remoteTools.find((t) => t.name === c.tool);
      if (tool === undefined) throw new Error(`no remote tool ${c.tool}`);
      const view: CallView = { progress: [], asked: [] };
      const onUpdate = (update: { details?: unknown }): void => {
        const info = update.details;
        if (info instanceof ProgressInfo) {
          view.progress.push({ progress: info.progress, total: info.total, message: info.message });
        }
      };
      const call = {
        id: `call_${i}`,
        args: JSON.stringify(c.args ?? {}),
        ...(c.progress === true ? { onUpdate } : {}),
      };
      const answer: Answer =
        c.answer === undefined
          ? { action: 'cancel' }
          : {
              action: c.answer.action as Answer['action'],
              ...(c.answer.content === undefined
                ? {}
                : { content: c.answer.content as JsonObject }),
            };
      const ctx = createContext({
        call,
        elicitor: (question) => {
          view.asked.push({ message: question.message, schema: question.schema });
          return answer;
        },
      });
      let details: unknown;
      try {
        const result = await tool.execute(call, ctx);
        view.output = result.output;
        details = result.details;
      } catch (error) {
        view.error = outputText(errorResult(error).output);
        details = (error as { details?: unknown }).details;
      }
      if (details instanceof RemoteRecord) {
        view.record = { ns: details.ns, data: details.data };
        rawResults.push(details.result);
      } else {
        rawResults.push(details);
      }
      views.push(view);
    }
    return { protocol: remote.era, tools, calls: views, remoteTools, rawResults };
  } finally {
    await remote.close();
  }
}
