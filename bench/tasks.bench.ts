/**
 * The cost of a call run as an MCP task: `tools/call` answered with a task, then
 * `tasks/get` until it is completed (the first poll at once, as `connectMcp` does), against
 * the same tool answered as a plain 2026-07-28 call, both over HTTP on 127.0.0.1 to one
 * server in this process (goal: at most 2x). The tool returns at once, so the figures
 * are the protocol's cost, not the tool's.
 */
import { newTool, type Tool } from 'agenttool';
import { serveTools } from 'agenttool/mcp';
import { measure, report } from './measure';

const TASKS = 'io.modelcontextprotocol/tasks';
const OPS = 400;

const tool = (name: string, taskSupport: 'never' | 'required'): Tool =>
  newTool({ name, description: 'answers at once', taskSupport, execute: () => ({ output: 'ok' }) });

let id = 0;
async function rpc(
  url: string,
  method: string,
  params: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      'mcp-name': nameOf(params),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: ++id,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
        },
      },
    }),
  });
  const text = await response.text();
  const data = text.split('\n').filter((line) => line.startsWith('data: '));
  const message = JSON.parse(data.length > 0 ? data[data.length - 1]!.slice(6) : text) as {
    result?: Record<string, unknown>;
  };
  if (message.result === undefined) throw new Error(`${method}: ${text}`);
  return message.result;
}

async function main(): Promise<void> {
  const server = serveTools([tool('plain', 'never'), tool('tasked', 'required')], {
    tasks: { pollIntervalMs: 1, maxTasksPerSubject: 1_000_000 },
  });
  const { url } = await server.listenHttp();
  let polls = 0;
  let tasks = 0;
  const plain = await measure(
    'plain call',
    async (ops) => {
      for (let i = 0; i < ops; i++) await rpc(url, 'tools/call', { name: 'plain', arguments: {} });
    },
    { ops: OPS },
  );
  const task = await measure(
    'task: create + poll to completion',
    async (ops) => {
      for (let i = 0; i < ops; i++) {
        const created = await rpc(url, 'tools/call', { name: 'tasked', arguments: {} });
        tasks++;
        for (;;) {
          polls++;
          const got = await rpc(url, 'tasks/get', { taskId: created.taskId });
          if (got.status === 'completed') break;
          await new Promise((resolve) => setTimeout(resolve, Number(got.pollIntervalMs)));
        }
      }
    },
    { ops: OPS },
  );
  report(
    'A call as a task over HTTP, against the same call answered at once',
    [plain, task],
    'plain call',
  );
  console.log(`  (${(polls / tasks).toFixed(2)} tasks/get per task)`);
  await server.close();
}

void main();

/** What the `Mcp-Name` header mirrors: the tool's name on a call, the task's id on tasks/*. */
function nameOf(params: Record<string, unknown>): string {
  const name = params.name ?? params.taskId;
  return typeof name === 'string' ? name : '';
}
