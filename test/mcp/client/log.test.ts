/**
 * The server's log lines (`notifications/message`) as our client routes them, in both
 * protocol eras: to the log sink of the remote tool's call when it is the one call in
 * flight, to `onLog` otherwise, and filtered at `logLevel`.
 */
import { InMemoryTransport } from '@modelcontextprotocol/server';
import {
  createContext,
  type LogLevel,
  type LogSink,
  newTool,
  text,
  type Tool,
  type ToolContext,
} from 'agenttool';
import { type ConnectOptions, connectMcp, McpToolServer, type RemoteTools } from 'agenttool/mcp';

type Line = [level: LogLevel, data: unknown, logger: string | undefined];

/** Opens the gate the calls of `together` wait at, once they have logged. */
let openGate: () => void = () => undefined;

/** Each call of `together` logs, then waits at a gate the test opens. */
function served(): McpToolServer {
  const gate = new Promise<void>((resolve) => (openGate = resolve));
  const log = (ctx: ToolContext, level: LogLevel, data: unknown, logger?: string): void =>
    ctx.log?.(level, data, logger);
  return new McpToolServer(
    [
      newTool({
        name: 'chatty',
        execute: (_call, ctx) => {
          log(ctx, 'debug', 'looking closely');
          log(ctx, 'info', { step: 1 }, 'importer');
          log(ctx, 'error', 'almost failed');
          return text('done');
        },
      }),
      newTool({
        name: 'together',
        parameters: { type: 'object', properties: { who: { type: 'string' } } },
        execute: async (call, ctx) => {
          log(ctx, 'info', `from ${(JSON.parse(call.args) as { who: string }).who}`);
          await gate;
          return text('done');
        },
      }),
    ],
    { name: 'logs' },
  );
}

interface Connected {
  readonly remote: RemoteTools;
  /** The `_meta` of each `tools/call` request, where the test can see them. */
  readonly metas: () => unknown[];
  stop(): Promise<void>;
}

type Connect = (options: Partial<ConnectOptions>) => Promise<Connected>;

const eras: [string, Connect][] = [
  [
    '2025 era',
    async (options) => {
      const server = served();
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      const remote = await connectMcp({
        ...options,
        transport: clientSide,
        protocol: 'legacy',
        notificationGrace: 0,
      });
      return {
        remote,
        metas: () => [],
        stop: async () => (await remote.close(), await server.close()),
      };
    },
  ],
  [
    '2026-07-28',
    async (options) => {
      const server = served();
      const handler = server.handler();
      const metas: unknown[] = [];
      const remote = await connectMcp({
        ...options,
        transport: {
          url: 'http://localhost/mcp',
          fetch: (url, init) => {
            const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : {};
            const message = body as { method?: string; params?: { _meta?: unknown } };
            if (message.method === 'tools/call') metas.push(message.params?._meta);
            return handler.fetch(new Request(url, init));
          },
        },
        protocol: 'modern',
        notificationGrace: 0,
      });
      return {
        remote,
        metas: () => metas,
        stop: async () => (await remote.close(), await server.close()),
      };
    },
  ],
];

function find(remote: RemoteTools, name: string): Tool {
  const tool = remote.tools().find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool;
}

async function call(tool: Tool, args: string, log?: LogSink): Promise<string> {
  const c = { id: `call_${args}`, args };
  const result = await tool.execute(c, createContext({ call: c, log }));
  return result.output as string;
}

function collector(): { lines: Line[]; sink: LogSink } {
  const lines: Line[] = [];
  return { lines, sink: (level, data, logger) => void lines.push([level, data, logger]) };
}

describe.each(eras)('log lines, %s', (era, connect) => {
  it('go to the log sink of the one call in flight, with level, data and logger', async () => {
    const own = collector();
    const fallback = collector();
    const connected = await connect({ onLog: fallback.sink });
    try {
      expect(await call(find(connected.remote, 'chatty'), '{}', own.sink)).toBe('done');
      expect(own.lines).toEqual([
        ['debug', 'looking closely', undefined],
        ['info', { step: 1 }, 'importer'],
        ['error', 'almost failed', undefined],
      ]);
      expect(fallback.lines).toEqual([]);
    } finally {
      await connected.stop();
    }
  });

  it('go to onLog for a call without a sink of its own', async () => {
    const fallback = collector();
    const connected = await connect({ onLog: fallback.sink });
    try {
      await call(find(connected.remote, 'chatty'), '{}');
      expect(fallback.lines.map(([level]) => level)).toEqual(['debug', 'info', 'error']);
    } finally {
      await connected.stop();
    }
  });

  it('go to onLog while several calls are in flight, since no line names its call', async () => {
    // Both calls stay in flight until two lines have arrived, wherever they went.
    let lines = 0;
    const counted =
      (sink: LogSink): LogSink =>
      (level, data, logger) => {
        sink(level, data, logger);
        if (++lines === 2) openGate();
      };
    const fallback = collector();
    const a = collector();
    const b = collector();
    const connected = await connect({ onLog: counted(fallback.sink) });
    try {
      const together = find(connected.remote, 'together');
      await Promise.all([
        call(together, '{"who":"a"}', counted(a.sink)),
        call(together, '{"who":"b"}', counted(b.sink)),
      ]);
      expect(fallback.lines.map(([, data]) => data).sort()).toEqual(['from a', 'from b']);
      expect([...a.lines, ...b.lines]).toEqual([]);
    } finally {
      await connected.stop();
    }
  });

  it('below logLevel are not received', async () => {
    const own = collector();
    const connected = await connect({ logLevel: 'info' });
    try {
      await call(find(connected.remote, 'chatty'), '{}', own.sink);
      expect(own.lines.map(([level]) => level)).toEqual(['info', 'error']);
      if (era === '2026-07-28') {
        expect(connected.metas()).toEqual([
          expect.objectContaining({ 'io.modelcontextprotocol/logLevel': 'info' }),
        ]);
      }
    } finally {
      await connected.stop();
    }
  });

  it('are asked of a 2026-07-28 server only for a call with somewhere to go', async () => {
    const connected = await connect({});
    try {
      await call(find(connected.remote, 'chatty'), '{}');
      await call(find(connected.remote, 'chatty'), '{}', collector().sink);
      const levels = connected
        .metas()
        .map(
          (meta) =>
            (meta as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/logLevel'],
        );
      expect(levels).toEqual(era === '2026-07-28' ? [undefined, 'debug'] : []);
    } finally {
      await connected.stop();
    }
  });
});

describe('the log options', () => {
  it('refuse a level MCP does not have, and an onLog that is not a function', async () => {
    const [clientSide] = InMemoryTransport.createLinkedPair();
    await expect(
      connectMcp({ transport: clientSide, logLevel: 'verbose' as LogLevel }),
    ).rejects.toThrow(
      'mcp: connect: logLevel must be one of "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency", got "verbose"',
    );
    await expect(
      connectMcp({ transport: clientSide, onLog: 'console' as unknown as LogSink }),
    ).rejects.toThrow('mcp: connect: onLog must be a function (level, data, logger) => void');
  });
});
