/**
 * `notifications/tasks` and `subscriptions/listen` (the 2026-07-28 tasks extension):
 * a listen asking for task notifications (`notifications.taskIds`) without declaring
 * the extension is refused with -32021, as the spec says it must, over HTTP on
 * 127.0.0.1 and over stdio; one that declares it is acknowledged without `taskIds`,
 * which tells the client that no task notification comes (it polls `tasks/get`).
 */
import { PassThrough } from 'node:stream';
import { newTool } from 'agenttool';
import { type McpToolServer, serveTools } from 'agenttool/mcp';
import { modern } from '../auth/helpers';
import { TASKS, TaskClient } from './helpers';

const MISSING = { requiredCapabilities: { extensions: { [TASKS]: {} } } };

const servers: McpToolServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function server(): McpToolServer {
  // Its list may change, so that the listen honours toolsListChanged.
  const made = serveTools(
    [newTool({ name: 'job', description: 'a job', execute: () => ({ output: 'done' }) })],
    { listChanged: true },
  );
  servers.push(made);
  return made;
}

/** A listen asking for the tools list and a task, declaring the extension or not. */
function listen(declares: boolean, id: number): Record<string, unknown> {
  return modern(
    'subscriptions/listen',
    { notifications: { toolsListChanged: true, taskIds: ['a-task'] } },
    {
      'io.modelcontextprotocol/clientCapabilities': declares ? { extensions: { [TASKS]: {} } } : {},
    },
    id,
  );
}

test('over HTTP: -32021 without the extension; with it, the acknowledgement names no task ids', async () => {
  const { url } = await server().listenHttp({});
  const refused = await new TaskClient(url, { tasks: false }).error('subscriptions/listen', {
    notifications: { taskIds: ['a-task'] },
  });
  expect(refused.code).toBe(-32021);
  expect(refused.data).toEqual(MISSING);

  // The stream stays open: its first frame, the acknowledgement, is read, then it is let go.
  const stop = new AbortController();
  const response = await fetch(url, {
    method: 'POST',
    signal: stop.signal,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'subscriptions/listen',
    },
    body: JSON.stringify(listen(true, 7)),
  });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  let text = '';
  while (!text.includes('\n\n')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  stop.abort();
  const data = text.split('\n').find((line) => line.startsWith('data: '));
  const ack = JSON.parse(data!.slice(6)) as { method: string; params: Record<string, unknown> };
  expect(ack.method).toBe('notifications/subscriptions/acknowledged');
  expect(ack.params.notifications).toEqual({ toolsListChanged: true });
});

test('over stdio: -32021 without the extension, before the entry; with it, acknowledged without task ids', async () => {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  const arrived: (() => void)[] = [];
  let rest = '';
  stdout.on('data', (chunk: Buffer) => {
    rest += chunk.toString();
    const parts = rest.split('\n');
    rest = parts.pop() ?? '';
    for (const part of parts.filter(Boolean)) {
      lines.push(JSON.parse(part) as Record<string, unknown>);
      arrived.splice(0).forEach((wake) => wake());
    }
  });
  /** The first line that `matches`, once it has come. */
  const line = async (
    matches: (message: Record<string, unknown>) => boolean,
  ): Promise<Record<string, unknown>> => {
    for (;;) {
      const found = lines.find(matches);
      if (found !== undefined) return found;
      await new Promise<void>((wake) => arrived.push(wake));
    }
  };
  const connection = await server().serveStdio({ stdin, stdout });

  stdin.write(`${JSON.stringify(listen(false, 1))}\n`);
  const refused = await line((message) => message.id === 1);
  expect(refused.error).toMatchObject({ code: -32021, data: MISSING });

  stdin.write(`${JSON.stringify(listen(true, 2))}\n`);
  const ack = await line(
    (message) => message.method === 'notifications/subscriptions/acknowledged',
  );
  expect((ack.params as Record<string, unknown>).notifications).toEqual({
    toolsListChanged: true,
  });
  await connection.close();
});
