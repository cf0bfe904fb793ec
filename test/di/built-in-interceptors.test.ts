/**
 * The built-in interceptors through the public entries, each served in both protocol eras
 * (2025 and 2026-07-28, through the server's fetch face, with bearer tokens where the
 * caller matters) and in a batch: the rate limit (per caller and per tool, a caller's
 * budget kept whatever session it comes through, another caller's untouched), the result
 * cache (read-only tools only, canonical arguments, never shared between callers), the
 * result size limit, the timeout (the tool's signal aborted) and the structured log (to
 * an injected sink, with the caller and the trace; stderr by default, never stdout).
 */
import 'reflect-metadata';
import {
  Annotations,
  type AuthInfo,
  CallLogSink,
  type CallLogEntry,
  createContext,
  imagePart,
  LoggingInterceptor,
  Param,
  RateLimitInterceptor,
  type Result,
  ResultCacheInterceptor,
  ResultSizeInterceptor,
  type Session,
  TimeoutInterceptor,
  Tool,
  type ToolContext,
} from 'agenttool';
import { Module, ToolApp, type ToolAppOptions } from 'agenttool/di';
import { connectMcp, type McpToolServer, type RemoteTools, serveTools } from 'agenttool/mcp';
import { SpanKind } from '@opentelemetry/api';
import { MODERN, modern } from '../mcp/auth/helpers';
import { connectInMemory } from '../support/in-memory';
import { only, setUpTelemetry } from '../telemetry/otel';

const RESOURCE = 'http://localhost/mcp';
const CALLERS: Record<string, AuthInfo> = {
  ada: { subject: 'ada', clientId: 'notes', scopes: ['read'] },
  bob: { subject: 'bob', clientId: 'notes', scopes: ['read'] },
};
type Era = 'legacy' | 'modern';
const ERAS: Era[] = ['legacy', 'modern'];

interface Running {
  readonly app: ToolApp;
  readonly server: McpToolServer;
  /** A client of `era` calling as `who` (a bearer token the server verifies). */
  connect(era: Era, who: string): Promise<RemoteTools>;
  close(): Promise<void>;
}

/** The app of `module`, served over HTTP in process, every request verified. */
async function start(module: new () => unknown, options: ToolAppOptions = {}): Promise<Running> {
  const app = await ToolApp.create(module, options);
  const server = serveTools(app);
  const handler = server.handler({
    auth: {
      verifyToken: (token) => CALLERS[token],
      authorizationServers: ['https://issuer.example'],
      resource: RESOURCE,
    },
  });
  const remotes: RemoteTools[] = [];
  return {
    app,
    server,
    connect: async (era, who) => {
      const remote = await connectMcp({
        transport: {
          url: RESOURCE,
          fetch: (url, init) => {
            const headers = new Headers(init?.headers);
            headers.set('authorization', `Bearer ${who}`);
            return handler.fetch(new Request(url, { ...init, headers }));
          },
        },
        protocol: era,
        notificationGrace: 0,
      });
      remotes.push(remote);
      return remote;
    },
    close: async () => {
      await Promise.all(remotes.map((remote) => remote.close()));
      await server.close();
      await app.close();
    },
  };
}

async function call(remote: RemoteTools, name: string, args: object = {}): Promise<Result> {
  const tool = remote.tools().find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  const c = { id: 'call_1', args: JSON.stringify(args) };
  return tool.execute(c, createContext({ call: c }));
}

/** The message a call fails with, or `ok <output>`. */
async function outcome(promise: Promise<Result>): Promise<string> {
  return promise.then(
    (result) => `ok ${result.output as string}`,
    (error: unknown) => (error as Error).message,
  );
}

async function batch(
  app: ToolApp,
  jobs: readonly [string, object][],
  session?: Session,
): Promise<string[]> {
  const outcomes = await app.results(
    jobs.map(([name, args]) => app.job(name, args)),
    session === undefined ? {} : { session },
  );
  return outcomes.map((o) =>
    o.error === undefined ? `ok ${o.result.output as string}` : o.error.message,
  );
}

const session = (id: string): Session => ({ id, onClose: () => undefined });

class QueryArgs {
  @Param('What to look for') q!: string;
  @Param('How many', { type: 'integer', optional: true }) n?: number;
}

describe('RateLimitInterceptor', () => {
  let now = 0;
  @Tool({ name: 'search', description: 'Searches', args: QueryArgs })
  class Search {
    execute(args: QueryArgs): string {
      return `found ${args.q}`;
    }
  }
  @Tool({ name: 'fetch_page', description: 'Fetches a page', args: QueryArgs })
  class FetchPage {
    execute(args: QueryArgs): string {
      return `page ${args.q}`;
    }
  }
  const limited = (): RateLimitInterceptor =>
    new RateLimitInterceptor({ limit: 2, windowMs: 60_000, now: () => now });
  @Module({ tools: [Search, FetchPage] })
  class SearchModule {}

  it.each(ERAS)(
    'refuses a caller past its budget of a tool, served in the %s era, and nobody else',
    async (era) => {
      now = 0;
      const running = await start(SearchModule, { interceptors: [limited()] });
      try {
        const ada = await running.connect(era, 'ada');
        const bob = await running.connect(era, 'bob');
        expect(await outcome(call(ada, 'search', { q: 'a' }))).toBe('ok found a');
        expect(await outcome(call(ada, 'search', { q: 'b' }))).toBe('ok found b');
        expect(await outcome(call(ada, 'search', { q: 'c' }))).toBe(
          'rate limit exceeded for "search"; retry after 30 s',
        );
        // Another caller's budget, and the caller's budget of another tool, are untouched.
        expect(await outcome(call(bob, 'search', { q: 'd' }))).toBe('ok found d');
        expect(await outcome(call(ada, 'fetch_page', { q: 'e' }))).toBe('ok page e');
        // A new connection (a new session) is the same caller: no fresh budget.
        const again = await running.connect(era === 'legacy' ? 'modern' : 'legacy', 'ada');
        expect(await outcome(call(again, 'search', { q: 'f' }))).toMatch(/^rate limit exceeded/);
        now += 29_000;
        expect(await outcome(call(ada, 'search', { q: 'g' }))).toBe(
          'rate limit exceeded for "search"; retry after 1 s',
        );
        now += 1_000;
        expect(await outcome(call(ada, 'search', { q: 'h' }))).toBe('ok found h');
      } finally {
        await running.close();
      }
    },
  );

  it('keeps a budget per session in a batch, and one for every call without one', async () => {
    now = 0;
    const app = await ToolApp.create(SearchModule, { interceptors: [limited()] });
    try {
      const jobs: [string, object][] = [
        ['search', { q: '1' }],
        ['search', { q: '2' }],
        ['search', { q: '3' }],
      ];
      const refused = 'rate limit exceeded for "search"; retry after 30 s';
      expect(await batch(app, jobs, session('a'))).toEqual(['ok found 1', 'ok found 2', refused]);
      expect(await batch(app, jobs.slice(0, 2), session('b'))).toEqual([
        'ok found 1',
        'ok found 2',
      ]);
      expect(await batch(app, jobs)).toEqual(['ok found 1', 'ok found 2', refused]);
      expect(await batch(app, jobs.slice(0, 1))).toEqual([refused]);
    } finally {
      await app.close();
    }
  });

  it('tells unauthenticated connections apart by their session', async () => {
    now = 0;
    const app = await ToolApp.create(SearchModule, { interceptors: [limited()] });
    const server = serveTools(app);
    const one = await connectInMemory(server);
    const two = await connectInMemory(server);
    try {
      await call(one, 'search', { q: '1' });
      await call(one, 'search', { q: '2' });
      expect(await outcome(call(one, 'search', { q: '3' }))).toMatch(/^rate limit exceeded/);
      expect(await outcome(call(two, 'search', { q: '4' }))).toBe('ok found 4');
    } finally {
      await one.close();
      await two.close();
      await server.close();
      await app.close();
    }
  });

  it('refuses options that are not whole numbers', () => {
    expect(() => new RateLimitInterceptor({ limit: 0, windowMs: 1000 })).toThrow(
      'RateLimitInterceptor: limit must be a whole number, 1 or more, got 0',
    );
    expect(() => new RateLimitInterceptor({ limit: 1, windowMs: 1.5 })).toThrow(
      'RateLimitInterceptor: windowMs must be a whole number, 1 or more, got 1.5',
    );
  });
});

describe('ResultCacheInterceptor', () => {
  let now = 0;
  const ran: string[] = [];
  @Tool({ name: 'lookup', description: 'Looks up', args: QueryArgs })
  @Annotations({ readOnly: true })
  class Lookup {
    execute(args: QueryArgs, ctx: ToolContext): string {
      ran.push(`lookup ${args.q} for ${ctx.auth?.subject ?? ctx.session?.id ?? 'nobody'}`);
      return `${args.q} #${ran.length}`;
    }
  }
  @Tool({ name: 'append', description: 'Appends', args: QueryArgs })
  class Append {
    execute(args: QueryArgs): string {
      ran.push(`append ${args.q}`);
      return `${args.q} #${ran.length}`;
    }
  }
  @Module({ tools: [Lookup, Append] })
  class CacheModule {}
  // A cache of each app's own.
  const cached = (): ToolAppOptions => ({
    interceptors: [new ResultCacheInterceptor({ ttlMs: 1000, now: () => now })],
  });

  beforeEach(() => {
    now = 0;
    ran.length = 0;
  });

  it.each(ERAS)(
    'answers a caller again from its own results, keyed by canonical arguments, in the %s era',
    async (era) => {
      const running = await start(CacheModule, cached());
      try {
        const ada = await running.connect(era, 'ada');
        const bob = await running.connect(era, 'bob');
        expect(await outcome(call(ada, 'lookup', { q: 'x', n: 1 }))).toBe('ok x #1');
        expect(await outcome(call(ada, 'lookup', { n: 1, q: 'x' }))).toBe('ok x #1');
        // Never another caller's result.
        expect(await outcome(call(bob, 'lookup', { q: 'x', n: 1 }))).toBe('ok x #2');
        expect(await outcome(call(ada, 'lookup', { q: 'x', n: 2 }))).toBe('ok x #3');
        // Only read-only tools.
        expect(await outcome(call(ada, 'append', { q: 'y' }))).toBe('ok y #4');
        expect(await outcome(call(ada, 'append', { q: 'y' }))).toBe('ok y #5');
        now = 1000;
        expect(await outcome(call(ada, 'lookup', { q: 'x', n: 1 }))).toBe('ok x #6');
        expect(ran).toEqual([
          'lookup x for ada',
          'lookup x for bob',
          'lookup x for ada',
          'append y',
          'append y',
          'lookup x for ada',
        ]);
      } finally {
        await running.close();
      }
    },
  );

  it('keeps nothing for calls that carry no caller (2026-07-28 requests without credentials or a session)', async () => {
    const app = await ToolApp.create(CacheModule, cached());
    const server = serveTools(app);
    const handler = server.handler();
    const lookup = async (): Promise<string> => {
      const body = modern('tools/call', { name: 'lookup', arguments: { q: 'x' } });
      const response = await handler.fetch(
        new Request(RESOURCE, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': MODERN,
            'mcp-method': 'tools/call',
            'mcp-name': 'lookup',
          },
          body: JSON.stringify(body),
        }),
      );
      const text = await response.text();
      const data = text.split('\n').find((line) => line.startsWith('data: '));
      const message = JSON.parse(data === undefined ? text : data.slice(6)) as {
        result: { content: { text: string }[] };
      };
      return message.result.content[0]!.text;
    };
    try {
      expect(await lookup()).toBe('x #1');
      expect(await lookup()).toBe('x #2');
    } finally {
      await server.close();
      await app.close();
    }
  });

  it('keeps results per session in a batch, and none without one', async () => {
    const app = await ToolApp.create(CacheModule, cached());
    try {
      const a = session('a');
      expect(await batch(app, [['lookup', { q: 'x' }]], a)).toEqual(['ok x #1']);
      expect(await batch(app, [['lookup', { q: 'x' }]], a)).toEqual(['ok x #1']);
      expect(await batch(app, [['lookup', { q: 'x' }]], session('a'))).toEqual(['ok x #2']);
      expect(await batch(app, [['lookup', { q: 'x' }]])).toEqual(['ok x #3']);
      expect(await batch(app, [['lookup', { q: 'x' }]])).toEqual(['ok x #4']);
    } finally {
      await app.close();
    }
  });
});

describe('ResultSizeInterceptor', () => {
  class SizeArgs {
    @Param('How many bytes', { type: 'integer' }) bytes!: number;
    @Param('As an image part', { optional: true }) image?: boolean;
  }
  @Tool({ name: 'blob', description: 'Makes a blob', args: SizeArgs })
  class Blob {
    execute(args: SizeArgs): Result | string {
      if (args.image === true)
        return { output: [imagePart(new Uint8Array(args.bytes), 'image/png')] };
      return 'é'.repeat(args.bytes / 2);
    }
  }
  @Module({ tools: [Blob], interceptors: [new ResultSizeInterceptor({ maxBytes: 16 })] })
  class BlobModule {}
  const over = (bytes: number): string =>
    `result of "blob" is ${bytes} bytes, over the limit of 16 bytes; ask for less (a narrower query, a page)`;

  it.each(ERAS)('fails a result over the limit, counted in UTF-8, in the %s era', async (era) => {
    const running = await start(BlobModule);
    try {
      const ada = await running.connect(era, 'ada');
      expect(await outcome(call(ada, 'blob', { bytes: 16 }))).toBe(`ok ${'é'.repeat(8)}`);
      expect(await outcome(call(ada, 'blob', { bytes: 18 }))).toBe(over(18));
      // data:image/png;base64, and the base64 of 3 zero bytes: 22 + 4.
      expect(await outcome(call(ada, 'blob', { bytes: 3, image: true }))).toBe(over(26));
    } finally {
      await running.close();
    }
  });

  it('fails it in a batch too', async () => {
    const app = await ToolApp.create(BlobModule);
    try {
      expect(
        await batch(app, [
          ['blob', { bytes: 4 }],
          ['blob', { bytes: 20 }],
        ]),
      ).toEqual(['ok éé', over(20)]);
    } finally {
      await app.close();
    }
  });
});

describe('TimeoutInterceptor', () => {
  const aborted: unknown[] = [];
  class WaitArgs {
    @Param('Wait for the signal') wait!: boolean;
  }
  @Tool({ name: 'slow', description: 'Waits for its signal', args: WaitArgs })
  class Slow {
    async execute(args: WaitArgs, ctx: ToolContext): Promise<string> {
      if (!args.wait) return 'quick';
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      aborted.push((ctx.signal.reason as Error).message);
      return 'too late';
    }
  }
  @Module({ tools: [Slow], interceptors: [new TimeoutInterceptor({ ms: 20 })] })
  class SlowModule {}
  const expired = 'tool "slow" timed out after 20 ms';

  beforeEach(() => (aborted.length = 0));

  it.each(ERAS)('aborts the call and fails it in the %s era', async (era) => {
    const running = await start(SlowModule);
    try {
      const ada = await running.connect(era, 'ada');
      expect(await outcome(call(ada, 'slow', { wait: false }))).toBe('ok quick');
      expect(await outcome(call(ada, 'slow', { wait: true }))).toBe(expired);
      expect(aborted).toEqual([expired]);
    } finally {
      await running.close();
    }
  });

  it('does the same in a batch', async () => {
    const app = await ToolApp.create(SlowModule);
    try {
      expect(
        await batch(app, [
          ['slow', { wait: true }],
          ['slow', { wait: false }],
        ]),
      ).toEqual([expired, 'ok quick']);
      expect(aborted).toEqual([expired]);
    } finally {
      await app.close();
    }
  });
});

describe('LoggingInterceptor', () => {
  const entries: CallLogEntry[] = [];
  class Kept extends CallLogSink {
    write(entry: CallLogEntry): void {
      entries.push(entry);
    }
  }
  class EchoArgs {
    @Param('Text') text!: string;
  }
  @Tool({ name: 'echo', description: 'Echoes, or fails for "fail"', args: EchoArgs })
  class Echo {
    execute(args: EchoArgs): string {
      if (args.text === 'fail') throw new Error('asked to fail');
      return args.text;
    }
  }
  // The sink is the app's: the logging interceptor, a class of the app's, finds it.
  @Module({ tools: [Echo], providers: [{ provide: CallLogSink, useClass: Kept }] })
  class EchoModule {}
  const options = (): ToolAppOptions => ({
    interceptors: [LoggingInterceptor, new RateLimitInterceptor({ limit: 2, windowMs: 60_000 })],
  });
  const fields = (entry: CallLogEntry | undefined): object => ({
    level: entry?.level,
    tool: entry?.tool,
    outcome: entry?.outcome,
    error: entry?.error,
    error_code: entry?.error_code,
    subject: entry?.subject,
  });

  beforeEach(() => (entries.length = 0));

  it.each(ERAS)(
    'logs each call to the injected sink, with its caller and trace, in the %s era',
    async (era) => {
      const telemetry = setUpTelemetry({ metrics: false });
      const running = await start(EchoModule, options());
      try {
        const ada = await running.connect(era, 'ada');
        await call(ada, 'echo', { text: 'hi' });
        await call(ada, 'echo', { text: 'fail' }).catch(() => undefined);
        await call(ada, 'echo', { text: 'again' }).catch(() => undefined);
        expect(entries.map(fields)).toEqual([
          { level: 'info', tool: 'echo', outcome: 'ok', subject: 'ada' },
          {
            level: 'error',
            tool: 'echo',
            outcome: 'error',
            error: 'asked to fail',
            subject: 'ada',
          },
          {
            level: 'error',
            tool: 'echo',
            outcome: 'error',
            error: 'rate limit exceeded for "echo"; retry after 30 s',
            error_code: 'RATE_LIMITED',
            subject: 'ada',
          },
        ]);
        for (const entry of entries) {
          expect(entry).toMatchObject({
            event: 'tool_call',
            call_id: expect.stringMatching(/^mcp_/),
          });
          expect(typeof entry.duration_ms).toBe('number');
          expect(new Date(entry.time).toISOString()).toBe(entry.time);
        }
        // The trace of the server's span of the call.
        const spans = telemetry
          .spans()
          .filter((s) => s.attributes['gen_ai.tool.name'] === 'echo' && s.kind === SpanKind.SERVER);
        expect(entries.map((e) => [e.trace_id, e.span_id])).toEqual(
          spans.map((s) => [s.spanContext().traceId, s.spanContext().spanId]),
        );
      } finally {
        await running.close();
        await telemetry.shutdown();
      }
    },
  );

  it('logs the calls of a batch, in the trace of each job', async () => {
    const telemetry = setUpTelemetry({ metrics: false });
    const app = await ToolApp.create(EchoModule, options());
    try {
      expect(await batch(app, [['echo', { text: 'one' }]])).toEqual(['ok one']);
      expect(entries.map(fields)).toEqual([
        { level: 'info', tool: 'echo', outcome: 'ok', subject: undefined },
      ]);
      const job = only(telemetry.spans(), 'execute_tool echo').spanContext();
      expect([entries[0]?.trace_id, entries[0]?.span_id]).toEqual([job.traceId, job.spanId]);
    } finally {
      await app.close();
      await telemetry.shutdown();
    }
  });

  it('writes JSON lines to stderr without a sink, and nothing to stdout', async () => {
    @Module({ tools: [Echo], interceptors: [new LoggingInterceptor()] })
    class Plain {}
    const app = await ToolApp.create(Plain);
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const stdout = jest.spyOn(process.stdout, 'write');
    try {
      expect(await batch(app, [['echo', { text: 'one' }]])).toEqual(['ok one']);
      const lines = stderr.mock.calls.map(([line]) => String(line));
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({
        event: 'tool_call',
        tool: 'echo',
        outcome: 'ok',
      });
      expect(stdout).not.toHaveBeenCalled();
    } finally {
      stderr.mockRestore();
      stdout.mockRestore();
      await app.close();
    }
  });
});
