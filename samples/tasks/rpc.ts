// One JSON-RPC request of a 2026-07-28 client that takes tasks, over plain HTTP.
const TASKS = 'io.modelcontextprotocol/tasks';

export async function rpc(
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
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'tasks-sample', version: '1' },
          // The opt-in: this request takes a task as its answer.
          'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
        },
      },
    }),
  });
  const text = await response.text();
  // The answer is JSON, or a stream of server-sent events whose last data line it is.
  const data = text.split('\n').filter((line) => line.startsWith('data: '));
  const message = JSON.parse(data.length > 0 ? data[data.length - 1]!.slice(6) : text) as {
    result?: Record<string, unknown>;
    error?: { message: string };
  };
  if (message.result === undefined) throw new Error(message.error?.message ?? text);
  return message.result;
}

/** What the `Mcp-Name` header mirrors: the tool's name on a call, the task's id on tasks/*. */
function nameOf(params: Record<string, unknown>): string {
  const name = params.name ?? params.taskId;
  return typeof name === 'string' ? name : '';
}
