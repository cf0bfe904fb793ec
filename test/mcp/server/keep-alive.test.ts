/**
 * No call is lost to HTTP keep-alive. A client that writes a request onto an idle
 * connection at the moment the server closes it loses the request unread; the server
 * keeps idle connections far longer than it tells clients to (`Keep-Alive: timeout=`),
 * and our client sends again, on a fresh connection, a request whose connection broke
 * before any answer came, where that is safe. Loopback only; every wait is bounded.
 */
import { createServer, type IncomingMessage, Agent, request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { type AddressInfo } from 'node:net';
import { createContext, newTool, outputText, type Tool } from 'agenttool';
import { connectMcp, McpToolServer, type RemoteTools } from 'agenttool/mcp';
import { modern } from '../auth/helpers';
import { INITIALIZE } from '../../support/initialize';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function call(remote: RemoteTools, name: string, args: object = {}): Promise<string> {
  const tool = remote.tools().find((t) => t.name === name) as Tool;
  const c = { id: 'call_1', args: JSON.stringify(args) };
  return outputText((await tool.execute(c, createContext({ call: c }))).output);
}

describe('a request lost on a connection the server closes as it arrives', () => {
  let ran: string[];
  const tools = (): Tool[] => [
    newTool({
      name: 'look',
      description: 'Looks, changes nothing',
      annotations: { readOnly: true },
      execute: () => (ran.push('look'), { output: 'looked' }),
    }),
    newTool({
      name: 'set',
      description: 'Sets a value: the same call twice sets it once',
      annotations: { readOnly: false, idempotent: true },
      execute: () => (ran.push('set'), { output: 'set' }),
    }),
    newTool({
      name: 'append',
      description: 'Appends: a call sent twice appends twice',
      annotations: { readOnly: false, idempotent: false },
      execute: () => (ran.push('append'), { output: 'appended' }),
    }),
    newTool({
      name: 'job',
      description: 'Runs as a task and asks once: a task is followed by requests of its own',
      annotations: { readOnly: false, idempotent: false },
      taskSupport: 'required',
      execute: async (_call, ctx) => {
        ran.push('job');
        const answer = await ctx.ask({ message: 'Go on?' });
        return { output: `job ${answer.action}` };
      },
    }),
  ];

  /**
   * The server mounted in an HTTP server of the test's own, which drops the connection
   * of the next request `drop` picks as it arrives: the request is never read, as when a
   * server closes an idle connection at that very moment.
   */
  async function lossyServer() {
    const server = new McpToolServer(tools(), { tasks: { pollIntervalMs: 20 } });
    const mcp = server.handler();
    const served = new WeakMap<Socket, number>();
    let drop: ((body: Record<string, unknown>) => boolean) | undefined;
    let dropped = 0;
    /** Whether each dropped request came on a connection that had served one before. */
    const reused: boolean[] = [];
    const http = createServer((req: IncomingMessage, res) => {
      const socket = req.socket;
      const before = served.get(socket) ?? 0;
      served.set(socket, before + 1);
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const body = text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
        if (body !== undefined && drop?.(body) === true) {
          reused.push(before > 0);
          drop = undefined;
          dropped++;
          socket.destroy();
          return;
        }
        void mcp.node(req, res, body);
      });
    });
    http.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    return {
      url,
      dropNext: (pick: (body: Record<string, unknown>) => boolean) => (drop = pick),
      dropped: () => dropped,
      reused,
      close: async () => {
        await server.close();
        http.closeAllConnections();
        await new Promise((resolve) => http.close(resolve));
      },
    };
  }

  const callOf = (name: string) => (body: Record<string, unknown>) =>
    body.method === 'tools/call' && (body.params as { name?: unknown }).name === name;

  test.each(['modern', 'legacy'] as const)(
    '%s: a read-only or idempotent call and a listing are sent again; a call that may not run twice is not',
    async (protocol) => {
      ran = [];
      const lossy = await lossyServer();
      const remote = await connectMcp({
        transport: { url: lossy.url },
        protocol,
        notificationGrace: 0,
      });
      try {
        // Warm the connection: what follows goes out on a kept-alive one.
        expect(await call(remote, 'look')).toBe('looked');

        lossy.dropNext(callOf('look'));
        expect(await call(remote, 'look')).toBe('looked');
        lossy.dropNext(callOf('set'));
        expect(await call(remote, 'set')).toBe('set');
        lossy.dropNext((body) => body.method === 'tools/list');
        await remote.refresh();
        expect(lossy.dropped()).toBe(3);

        lossy.dropNext(callOf('append'));
        await expect(call(remote, 'append')).rejects.toThrow(/mcp: call "append": connection lost/);
        expect(lossy.dropped()).toBe(4);
        // The race of keep-alive: the first call was lost on the connection kept alive.
        expect(lossy.reused[0]).toBe(true);
        // Each tool ran once per call the caller made, and the one lost call never ran.
        expect(ran).toEqual(['look', 'look', 'set']);
      } finally {
        await remote.close();
        await lossy.close();
      }
    },
  );
  test("a task's poll and its answer are sent again: the task's call runs once and completes", async () => {
    ran = [];
    const lossy = await lossyServer();
    const remote = await connectMcp({
      transport: { url: lossy.url },
      protocol: 'modern',
      elicitation: true,
      notificationGrace: 0,
    });
    try {
      expect(await call(remote, 'look')).toBe('looked');
      lossy.dropNext((body) => body.method === 'tasks/get');
      const tool = remote.tools().find((t) => t.name === 'job') as Tool;
      const c = { id: 'call_2', args: '{}' };
      const asked: string[] = [];
      const ctx = createContext({
        call: c,
        elicitor: (question) => {
          asked.push(question.message);
          // The answer's update is the next request to be lost.
          lossy.dropNext((body) => body.method === 'tasks/update');
          return { action: 'accept', content: {} };
        },
      });
      expect(outputText((await tool.execute(c, ctx)).output)).toBe('job accept');
      expect(lossy.dropped()).toBe(2);
      expect(asked).toEqual(['Go on?']);
      expect(ran).toEqual(['look', 'job']);
    } finally {
      await remote.close();
      await lossy.close();
    }
  });
});

describe('sequential calls over kept-alive connections, idle around the keep-alive timeouts', () => {
  // The server keeps an idle connection 6 s and tells clients 3 s: Node's fetch (our
  // client) reuses one for 1 s (the hint less its 2 s margin), Node's http.Agent for 2 s
  // (less 1 s), and a client that ignores the hint for as long as it likes.
  const KEEP_ALIVE_MS = 6000;
  const echo = newTool({
    name: 'echo',
    description: 'Echoes',
    execute: () => ({ output: 'echo' }),
  });

  test('lose no call: our client in both eras, http.Agent, and a client that ignores the hint', async () => {
    const server = new McpToolServer([echo]);
    const listener = await server.listenHttp({ keepAliveTimeoutMs: KEEP_ALIVE_MS });
    const failures: string[] = [];
    let calls = 0;
    const note = (who: string) => (error: unknown) => failures.push(`${who}: ${String(error)}`);
    try {
      // Idle gaps just inside and just past each client's reuse window, in turn.
      const ours = async (protocol: 'modern' | 'legacy') => {
        const remote = await connectMcp({
          transport: { url: listener.url },
          protocol,
          notificationGrace: 0,
        });
        try {
          for (const gap of [0, 800, 950, 1000, 1050, 1200, 1800, 2000, 2200, 800, 1000, 1200]) {
            await pause(gap);
            calls++;
            await call(remote, 'echo').catch(note(`connectMcp ${protocol} after ${gap} ms`));
          }
        } finally {
          await remote.close();
        }
      };

      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const initialize = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'agent', version: '0' },
        },
      });
      const viaAgent = (body: string, session?: string) =>
        new Promise<{ status: number; session: string | undefined; keepAlive: string | undefined }>(
          (resolve, reject) => {
            const req = httpRequest(
              {
                host: '127.0.0.1',
                port: listener.port,
                path: '/mcp',
                method: 'POST',
                agent,
                headers: {
                  'content-type': 'application/json',
                  accept: 'application/json, text/event-stream',
                  ...(session === undefined
                    ? {}
                    : { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }),
                },
              },
              (res) => {
                res.resume();
                res.on('end', () =>
                  resolve({
                    status: res.statusCode ?? 0,
                    session: res.headers['mcp-session-id'] as string | undefined,
                    keepAlive: res.headers['keep-alive'] as string | undefined,
                  }),
                );
              },
            );
            req.on('error', reject);
            req.end(body);
          },
        );
      const byAgent = async () => {
        const opened = await viaAgent(initialize);
        expect(opened.keepAlive).toBe('timeout=3');
        const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
        for (const gap of [1800, 1950, 2000, 2050, 2200, 1000, 2000, 2500]) {
          await pause(gap);
          calls++;
          const answer = await viaAgent(list, opened.session).catch((error: unknown) => {
            note(`http.Agent after ${gap} ms`)(error);
            return undefined;
          });
          if (answer !== undefined && answer.status !== 200)
            failures.push(`http.Agent: ${answer.status}`);
        }
        agent.destroy();
      };

      // One connection, reused after each gap (up to 5 s, under the server's 6 s).
      const byRawSocket = async () => {
        const socket = connect(listener.port, '127.0.0.1');
        await new Promise((resolve) => socket.once('connect', resolve));
        let received = '';
        socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
        socket.on('error', note('raw socket'));
        const body = JSON.stringify(modern('tools/list'));
        const request = [
          'POST /mcp HTTP/1.1',
          `Host: 127.0.0.1:${listener.port}`,
          'Content-Type: application/json',
          'Accept: application/json, text/event-stream',
          'MCP-Protocol-Version: 2026-07-28',
          'Mcp-Method: tools/list',
          `Content-Length: ${Buffer.byteLength(body)}`,
          '',
          body,
        ].join('\r\n');
        let answers = 0;
        for (const gap of [0, 3000, 4500, 5000]) {
          await pause(gap);
          calls++;
          socket.write(request);
          // The answer comes back on the same connection (bounded wait).
          for (let i = 0; i < 250 && received.split('HTTP/1.1 ').length - 1 <= answers; i++)
            await pause(20);
          answers++;
        }
        const statuses = received
          .split('HTTP/1.1 ')
          .slice(1)
          .map((a) => a.slice(0, 3));
        if (statuses.join() !== '200,200,200,200') failures.push(`raw socket: ${statuses.join()}`);
        socket.destroy();
      };

      await Promise.all([ours('modern'), ours('legacy'), byAgent(), byRawSocket()]);
      expect(failures).toEqual([]);
      expect(calls).toBe(12 + 12 + 8 + 4);
    } finally {
      await server.close();
    }
  }, 90_000);
});

describe('a request that arrives too slowly', () => {
  test('gets 408 and its connection closes once requestTimeoutMs has passed', async () => {
    const server = new McpToolServer([
      newTool({ name: 'noop', description: 'Does nothing', execute: () => ({ output: '' }) }),
    ]);
    const listener = await server.listenHttp({ requestTimeoutMs: 300 });
    const socket: Socket = connect(listener.port, '127.0.0.1');
    try {
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      // Its headers and one byte of a 100-byte body, then nothing (a slow client).
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${listener.port}\r\n` +
          'Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n' +
          'Content-Length: 100\r\n\r\n{',
      );
      await closed;
      expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    } finally {
      socket.destroy();
      await server.close();
    }
  });

  test('refuses a request timeout that is not a positive number of milliseconds', async () => {
    const server = new McpToolServer([]);
    await expect(server.listenHttp({ requestTimeoutMs: -1 })).rejects.toThrow(/requestTimeoutMs/);
    await server.close();
  });
});

describe("a client's Connection: close", () => {
  test.each([
    ['a streamed answer (a 2025-era initialize)', 'text/event-stream'],
    ['a JSON answer (a 2026-07-28 tools/list)', 'application/json'],
  ])('closes the connection after %s', async (_what, type) => {
    const server = new McpToolServer([
      newTool({ name: 'noop', description: 'Does nothing', execute: () => ({ output: '' }) }),
    ]);
    const listener = await server.listenHttp();
    const socket: Socket = connect(listener.port, '127.0.0.1');
    try {
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      const closed = new Promise<'closed'>((resolve) =>
        socket.once('close', () => resolve('closed')),
      );
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      const body =
        type === 'text/event-stream'
          ? JSON.stringify(INITIALIZE)
          : JSON.stringify(modern('tools/list'));
      const modernHeaders =
        type === 'application/json'
          ? 'MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\n'
          : '';
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${listener.port}\r\nConnection: close\r\n` +
          `Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n${modernHeaders}` +
          `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      // The server's keep-alive would hold it for 65 s: 5 s is the test's bound.
      const ended = await Promise.race([closed, pause(5000).then(() => 'open' as const)]);
      expect(ended).toBe('closed');
      const head = answer.slice(0, answer.indexOf('\r\n\r\n')).toLowerCase();
      expect(head).toMatch(/^http\/1\.1 200 ok\r\n/);
      expect(head).toContain(`content-type: ${type}`);
      expect(head).toContain('connection: close');
      expect(head).not.toContain('keep-alive');
    } finally {
      socket.destroy();
      await server.close();
    }
  });
});
