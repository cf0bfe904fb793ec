/**
 * The server's log lines (`notifications/message`) as our client routes them, in both
 * protocol eras: over HTTP to the log sink of the call whose response stream carried
 * them; otherwise to the sink of the call when it is the one call in flight; to `onLog`
 * when no call's sink takes them; and filtered at `logLevel`.
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
import { connectInMemory } from '../../support/in-memory';
import { RawServer } from './raw-server';

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
  /** The names of the headers of every request that reached the server (HTTP only). */
  readonly headerNames: () => string[];
  stop(): Promise<void>;
}

type Connect = (options: Partial<ConnectOptions>) => Promise<Connected>;

/** Our HTTP client, in `protocol`'s era, against the server's fetch handler in memory. */
function overHttp(protocol: 'modern' | 'legacy'): Connect {
  return async (options) => {
    const server = served();
    const handler = server.handler();
    const metas: unknown[] = [];
    const headerNames: string[] = [];
    const remote = await connectMcp({
      ...options,
      transport: {
        url: 'http://localhost/mcp',
        fetch: (url, init) => {
          const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : {};
          const message = body as { method?: string; params?: { _meta?: unknown } };
          if (message.method === 'tools/call') metas.push(message.params?._meta);
          headerNames.push(...new Headers(init?.headers).keys());
          return handler.fetch(new Request(url, init));
        },
      },
      protocol,
      notificationGrace: 0,
    });
    return {
      remote,
      metas: () => metas,
      headerNames: () => headerNames,
      stop: async () => (await remote.close(), await server.close()),
    };
  };
}

/** Each era, and whether a line can be told to belong to its call (its response stream). */
const eras: [string, Connect, boolean][] = [
  [
    '2025 era in memory',
    async (options) => {
      const server = served();
      const remote = await connectInMemory(server, options);
      return {
        remote,
        metas: () => [],
        headerNames: () => [],
        stop: async () => (await remote.close(), await server.close()),
      };
    },
    false,
  ],
  ['2025 era over HTTP', overHttp('legacy'), true],
  ['2026-07-28 over HTTP', overHttp('modern'), true],
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

/**
 * Wraps sinks so that the calls of `together` stay in flight until two lines have
 * arrived, wherever they went: then the gate opens.
 */
function gateAfterTwoLines(): (sink: LogSink) => LogSink {
  let lines = 0;
  return (sink) => (level, data, logger) => {
    sink(level, data, logger);
    if (++lines === 2) openGate();
  };
}

describe.each(eras)('log lines, %s', (era, connect, byStream) => {
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

  it(
    byStream
      ? 'go each to its own call while several are in flight, told apart by the stream that carried them'
      : 'go to onLog while several calls are in flight, since no line names its call',
    async () => {
      const counted = gateAfterTwoLines();
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
        if (byStream) {
          expect(a.lines).toEqual([['info', 'from a', undefined]]);
          expect(b.lines).toEqual([['info', 'from b', undefined]]);
          expect(fallback.lines).toEqual([]);
        } else {
          expect(fallback.lines.map(([, data]) => data).sort()).toEqual(['from a', 'from b']);
          expect([...a.lines, ...b.lines]).toEqual([]);
        }
        // The mark that tells the calls apart never reaches the server.
        expect(connected.headerNames()).not.toContain('x-agenttool-call');
      } finally {
        await connected.stop();
      }
    },
  );

  it('of several calls in flight go to onLog for the one without a sink of its own', async () => {
    const counted = gateAfterTwoLines();
    const fallback = collector();
    const a = collector();
    const connected = await connect({ onLog: counted(fallback.sink) });
    try {
      const together = find(connected.remote, 'together');
      await Promise.all([
        call(together, '{"who":"a"}', counted(a.sink)),
        call(together, '{"who":"b"}'),
      ]);
      if (byStream) {
        expect(a.lines).toEqual([['info', 'from a', undefined]]);
        expect(fallback.lines).toEqual([['info', 'from b', undefined]]);
      } else {
        expect(fallback.lines.map(([, data]) => data).sort()).toEqual(['from a', 'from b']);
        expect(a.lines).toEqual([]);
      }
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
      if (era === '2026-07-28 over HTTP') {
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
      expect(levels).toEqual(
        era === '2026-07-28 over HTTP'
          ? [undefined, 'debug']
          : era === '2025 era over HTTP'
            ? [undefined, undefined]
            : [],
      );
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
    ).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message:
        'mcp: connect: logLevel must be one of "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency", got "verbose"',
    });
    await expect(
      connectMcp({ transport: clientSide, onLog: 'console' as unknown as LogSink }),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: 'mcp: connect: onLog must be a function (level, data, logger) => void',
    });
  });
});

describe('logLevel at connect', () => {
  it('an abort of the connect signal ends a connect still waiting for logging/setLevel', async () => {
    let asked: () => void = () => undefined;
    const setLevelSent = new Promise<void>((resolve) => (asked = resolve));
    const server = await new RawServer({
      capabilities: { tools: {}, logging: {} },
      answers: {
        'logging/setLevel': () => {
          asked();
          return new Promise(() => undefined); // never answered
        },
      },
    }).start();
    const controller = new AbortController();
    const connecting = connectMcp({
      transport: server.clientTransport,
      protocol: 'legacy',
      logLevel: 'info',
      signal: controller.signal,
    });
    await setLevelSent;
    controller.abort(new Error('the user gave up'));
    await expect(connecting).rejects.toMatchObject({
      code: 'CONNECTION',
      message: 'mcp: connect: the user gave up',
    });
    expect(server.count('tools/list')).toBe(0);
  });
});
