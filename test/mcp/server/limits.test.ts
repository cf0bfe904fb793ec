/**
 * What a hostile or unlucky client cannot make the server hold or crash on: a session
 * limit (503 past it; the tests here give the one local caller the whole of it, which
 * test/mcp/server/fair-shares.test.ts divides), a connect/close that leaves no session behind, arguments nested
 * too deeply (an isError result naming the limit, never a protocol error), an empty
 * JSON-RPC batch (400), and a dropped connection that stops the call it carried.
 */
import { request } from 'node:http';
import { Server as NetServer } from 'node:net';
import { createContext, newTool, outputText, type Tool } from 'agenttool';
import { connectMcp, McpToolServer, type HttpListener } from 'agenttool/mcp';
import { deferred } from './helpers';

const echo = newTool({
  name: 'echo',
  description: 'Echoes',
  execute: () => ({ output: 'echo' }),
});

interface Answer {
  readonly status: number;
  readonly body: string;
}

function post(
  listener: HttpListener,
  body: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: listener.port,
        path: '/mcp',
        method: 'POST',
        agent: false,
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'r', version: '0' },
  },
});

describe('sessions', () => {
  test('past maxSessions a 2025-era initialize gets 503 saying why; a 2026-07-28 client still calls', async () => {
    const server = new McpToolServer([echo]);
    const listener = await server.listenHttp({ maxSessions: 2, maxSessionsPerSubject: 3 });
    try {
      expect((await post(listener, initialize)).status).toBe(200);
      expect((await post(listener, initialize)).status).toBe(200);
      const refused = await post(listener, initialize);
      expect(refused.status).toBe(503);
      expect(JSON.parse(refused.body)).toMatchObject({
        error: {
          message:
            'Service unavailable: the server holds its limit of 2 sessions; end one (DELETE) or try again later',
        },
      });
      expect(server.sessions).toHaveLength(2);
      const modern = await connectMcp({ transport: { url: listener.url }, protocol: 'modern' });
      const call = { id: 'call_1', args: '{}' };
      const result = await modern.tools()[0]!.execute(call, createContext({ call }));
      expect(outputText(result.output)).toBe('echo');
      expect(server.sessions).toHaveLength(2);
      await modern.close();
    } finally {
      await server.close();
    }
  });

  const LIMIT_REFUSAL =
    'Service unavailable: the server holds its limit of 3 sessions; end one (DELETE) or try again later';

  /** Sends 40 initializes at once; expects exactly 3 accepted and the others refused. */
  async function burst(server: McpToolServer, send: () => Promise<Answer>): Promise<void> {
    const answers = await Promise.all(Array.from({ length: 40 }, send));
    const accepted = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    expect(accepted).toHaveLength(3);
    expect(refused).toHaveLength(37);
    for (const answer of refused) {
      expect(answer.status).toBe(503);
      expect(JSON.parse(answer.body)).toMatchObject({ error: { message: LIMIT_REFUSAL } });
    }
    expect(server.sessions).toHaveLength(3);
  }

  test('initializes that arrive together through a mounted handler hold no more than maxSessions', async () => {
    const server = new McpToolServer([echo]);
    const handler = server.handler({ maxSessions: 3, maxSessionsPerSubject: 3 });
    const send = async (): Promise<Answer> => {
      const response = await handler.fetch(
        new Request('http://localhost/mcp', {
          method: 'POST',
          body: initialize,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
        }),
      );
      return { status: response.status, body: await response.text() };
    };
    try {
      await burst(server, send);
    } finally {
      await handler.close();
      await server.close();
    }
  });

  test.each([
    ['', {}],
    [' (resumable)', { resumable: true }],
  ])(
    'initializes that arrive together at a listener%s hold no more than maxSessions',
    async (_, options) => {
      const server = new McpToolServer([echo]);
      const listener = await server.listenHttp({
        maxSessions: 3,
        maxSessionsPerSubject: 3,
        ...options,
      });
      try {
        await burst(server, () => post(listener, initialize));
      } finally {
        await server.close();
      }
    },
  );

  test('a refused initialize gives its place under maxSessions back', async () => {
    const server = new McpToolServer([echo]);
    const listener = await server.listenHttp({ maxSessions: 1 });
    try {
      const bad = initialize.replace('"2025-11-25"', '5');
      for (let i = 0; i < 3; i++) expect((await post(listener, bad)).status).toBe(400);
      expect((await post(listener, initialize)).status).toBe(200);
      expect(server.sessions).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  test('a refused initialize leaves no session behind', async () => {
    const server = new McpToolServer([echo]);
    const listener = await server.listenHttp();
    try {
      const bad = initialize.replace('"2025-11-25"', '5');
      for (let i = 0; i < 20; i++) expect((await post(listener, bad)).status).toBe(400);
      expect(server.sessions).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  test("connectMcp's close ends its 2025-era HTTP session at once", async () => {
    const ended = deferred();
    const server = new McpToolServer([echo], {
      onSession: (session) => session.onClose(() => ended.resolve()),
    });
    const listener = await server.listenHttp();
    try {
      const remote = await connectMcp({ transport: { url: listener.url }, protocol: 'legacy' });
      expect(server.sessions).toHaveLength(1);
      await remote.close();
      await ended.promise;
      expect(server.sessions).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});

describe('arguments nested too deeply', () => {
  const tools: Tool[] = [
    newTool({
      name: 'declared',
      description: 'A schema in the contract subset',
      parameters: { type: 'object', properties: { name: { type: 'string' } } },
      execute: () => ({ output: 'ran' }),
    }),
    newTool({
      name: 'general',
      description: 'A schema only a general validator takes',
      parameters: {
        type: 'object',
        properties: { any: { $ref: '#/$defs/any' } },
        $defs: { any: {} },
      },
      execute: () => ({ output: 'ran' }),
    }),
    newTool({ name: 'none', description: 'No arguments', execute: () => ({ output: 'ran' }) }),
  ];

  test.each(['declared', 'general', 'none'])(
    'an undeclared argument 5000 deep to %s is an isError result naming the limit',
    async (name) => {
      const server = new McpToolServer(tools);
      const listener = await server.listenHttp({ stateless: true });
      try {
        // Written by hand: a client library would overflow building it.
        const deep = `${'['.repeat(5000)}"bottom"${']'.repeat(5000)}`;
        const answer = await post(
          listener,
          `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${name}","arguments":{"name":"x","extra":${deep}}}}`,
          { 'MCP-Protocol-Version': '2025-11-25' },
        );
        expect(answer.status).toBe(200);
        const data = answer.body.slice(answer.body.indexOf('{'));
        expect(JSON.parse(data.slice(0, data.lastIndexOf('}') + 1))).toMatchObject({
          id: 1,
          result: {
            isError: true,
            content: [
              {
                type: 'text',
                text: "invalid arguments: not valid JSON: invalid character '[' exceeded max depth of 1000",
              },
            ],
          },
        });
      } finally {
        await server.close();
      }
    },
  );
});

test('an empty JSON-RPC batch gets 400', async () => {
  const server = new McpToolServer([echo]);
  const listener = await server.listenHttp();
  try {
    const answer = await post(listener, '[]');
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: -32600 } });
  } finally {
    await server.close();
  }
});

test('a 2025-era client that drops its connection mid-call stops the call', async () => {
  const started = deferred();
  const stopped = deferred<string>();
  const wait = newTool({
    name: 'wait',
    description: 'Waits until it is stopped',
    execute: (_call, ctx) =>
      new Promise((_resolve, reject) => {
        started.resolve();
        ctx.signal.addEventListener('abort', () => {
          stopped.resolve('aborted');
          reject(new Error('stopped'));
        });
      }),
  });
  const server = new McpToolServer([wait]);
  const listener = await server.listenHttp();
  try {
    const opened = await new Promise<string>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: listener.port,
          path: '/mcp',
          method: 'POST',
          agent: false,
          headers: {
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
          },
        },
        (res) => {
          res.resume();
          resolve(String(res.headers['mcp-session-id']));
        },
      );
      req.on('error', reject);
      req.end(initialize);
    });
    const call = request({
      host: '127.0.0.1',
      port: listener.port,
      path: '/mcp',
      method: 'POST',
      agent: false,
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Session-Id': opened,
        'MCP-Protocol-Version': '2025-11-25',
      },
    });
    call.on('error', () => undefined);
    call.end(
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'wait' } }),
    );
    await started.promise;
    call.destroy();
    expect(await stopped.promise).toBe('aborted');
  } finally {
    await server.close();
  }
});

describe('listenHttp with options it refuses', () => {
  it.each([
    ['a limit of 0 sessions', { maxSessions: 0 }, /maxSessions/],
    [
      'authorization without servers',
      { auth: { verifyToken: () => undefined, authorizationServers: [] } },
      /authorizationServers/,
    ],
  ])('rejects %s and leaves nothing listening', async (_what, options, message) => {
    // Every socket server that starts to listen while the options are refused, read off
    // this process: a port probed from outside could be taken by another process meanwhile.
    const listen = jest.spyOn(NetServer.prototype, 'listen');
    const server = new McpToolServer([]);
    try {
      await expect(server.listenHttp({ ...options, port: 0 })).rejects.toThrow(message);
      const opened = listen.mock.contexts as NetServer[];
      expect(opened.filter((socketServer) => socketServer.listening)).toEqual([]);
    } finally {
      listen.mockRestore();
      await server.close();
    }
  });
});
