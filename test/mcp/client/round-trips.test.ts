/**
 * Our client against a 2026-07-28 server that asks by returning its questions with the
 * call (`input_required`): each question goes to the elicitor of the call it came with,
 * the answers go back with the request state, and calls in flight at once each get
 * their own questions. The cases are the Go binding's (mcpclient, CONTRACT 1.15).
 */
import {
  type ElicitResult,
  createMcpHandler,
  inputRequired,
  type InputRequiredResult,
  type CallToolResult,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { type Answer, createContext, type Elicitor, type Tool } from 'agenttool';
import { connectMcp, type RemoteTools } from 'agenttool/mcp';

type Handler = (
  args: Record<string, unknown>,
  ctx: ServerContext,
) => CallToolResult | InputRequiredResult | Promise<CallToolResult | InputRequiredResult>;

interface Raw {
  readonly remote: RemoteTools;
  /** Every `tools/call` the server received: its params as sent. */
  readonly received: Record<string, unknown>[];
  stop(): Promise<void>;
}

/** A raw 2026-07-28 server with one tool, `ask`, served in process through its fetch face. */
async function raw(
  handler: Handler,
  options: Omit<Parameters<typeof connectMcp>[0], 'transport'> = { elicitation: true },
): Promise<Raw> {
  const received: Record<string, unknown>[] = [];
  const mcp = createMcpHandler(() => {
    const server = new Server({ name: 'raw', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', () => ({
      tools: [{ name: 'ask', inputSchema: { type: 'object' } }],
    }));
    server.setRequestHandler('tools/call', (request, ctx) => {
      received.push({
        ...request.params,
        inputResponses: ctx.mcpReq.inputResponses,
        requestState: ctx.mcpReq.requestState<string>(),
      });
      return handler(request.params.arguments ?? {}, ctx);
    });
    return server;
  });
  const remote = await connectMcp({
    transport: {
      url: 'http://raw.test/mcp',
      fetch: (url, init) => mcp.fetch(new Request(url, init)),
    },
    protocol: 'modern',
    ...options,
  });
  return {
    remote,
    received,
    stop: async () => {
      await remote.close();
      await mcp.close();
    },
  };
}

const FORM = {
  message: 'Confirm?',
  requestedSchema: {
    type: 'object' as const,
    properties: { confirm: { type: 'boolean' as const } },
  },
};

/** Asks once with state `s1`, then answers with what came back. */
const askOnce: Handler = (_args, ctx) => {
  const responses = ctx.mcpReq.inputResponses;
  if (responses === undefined) {
    return inputRequired({ inputRequests: { q: inputRequired.elicit(FORM) }, requestState: 's1' });
  }
  const state = ctx.mcpReq.requestState<string>();
  return { content: [{ type: 'text', text: `${state} ${JSON.stringify(responses)}` }] };
};

function run(tool: Tool, elicitor?: Elicitor, signal?: AbortSignal): Promise<unknown> {
  const call = { id: 'call_1', args: '{}' };
  return Promise.resolve(
    tool.execute(
      call,
      createContext({ call, ...(elicitor ? { elicitor } : {}), ...(signal ? { signal } : {}) }),
    ),
  ).then((r) => r.output);
}

describe('a 2026-07-28 server that asks with the call', () => {
  it('puts the question to the call elicitor and sends the answer back with the state', async () => {
    const { remote, received, stop } = await raw(askOnce);
    try {
      const asked: string[] = [];
      const output = await run(remote.tools()[0]!, (q, ctx) => {
        asked.push(`${ctx.call.id}: ${q.message} ${JSON.stringify(q.schema)}`);
        return { action: 'accept', content: { confirm: true } };
      });
      expect(asked).toEqual([
        'call_1: Confirm? {"type":"object","properties":{"confirm":{"type":"boolean"}}}',
      ]);
      expect(output).toBe('s1 {"q":{"action":"accept","content":{"confirm":true}}}');
      expect(received).toHaveLength(2);
      expect(received[1]).toMatchObject({ name: 'ask', arguments: {}, requestState: 's1' });
    } finally {
      await stop();
    }
  });

  it('answers cancel when the call has no elicitor', async () => {
    const { remote, stop } = await raw(askOnce);
    try {
      await expect(run(remote.tools()[0]!)).resolves.toBe('s1 {"q":{"action":"cancel"}}');
    } finally {
      await stop();
    }
  });

  it('with elicitation off, a call the server needs input for fails saying so', async () => {
    // The SDK's server refuses to ask a client for what it did not declare (-32021); a
    // round that carries only a request state still needs the client to come back.
    const { remote, stop } = await raw(() => inputRequired({ requestState: 'again' }), {});
    try {
      await expect(run(remote.tools()[0]!)).rejects.toThrow(
        'mcp: call "ask": the server needs input the client did not give; multi round-trip handling is off',
      );
    } finally {
      await stop();
    }
  });

  it('asks each of two calls in flight its own question', async () => {
    const { remote, stop } = await raw(askOnce);
    try {
      const tool = remote.tools()[0]!;
      const answers = await Promise.all(
        ['a', 'b'].map((who) =>
          run(tool, () => ({ action: 'accept', content: { confirm: who === 'a' } })),
        ),
      );
      expect(answers).toEqual([
        's1 {"q":{"action":"accept","content":{"confirm":true}}}',
        's1 {"q":{"action":"accept","content":{"confirm":false}}}',
      ]);
    } finally {
      await stop();
    }
  });

  it('answers several questions of one round together, each its own', async () => {
    const { remote, received, stop } = await raw((_args, ctx) => {
      if (ctx.mcpReq.inputResponses !== undefined) {
        return { content: [{ type: 'text', text: JSON.stringify(ctx.mcpReq.inputResponses) }] };
      }
      return inputRequired({
        inputRequests: {
          us: inputRequired.elicit({ ...FORM, message: 'us' }),
          eu: inputRequired.elicit({ ...FORM, message: 'eu' }),
        },
      });
    });
    try {
      let open = 0;
      let most = 0;
      const output = await run(remote.tools()[0]!, async (q) => {
        most = Math.max(most, ++open);
        await new Promise((resolve) => setImmediate(resolve));
        open--;
        return { action: 'accept', content: { region: q.message } };
      });
      expect(JSON.parse(String(output))).toEqual({
        us: { action: 'accept', content: { region: 'us' } },
        eu: { action: 'accept', content: { region: 'eu' } },
      });
      expect(most).toBe(2);
      expect(received).toHaveLength(2);
    } finally {
      await stop();
    }
  });

  it('fails the call when the elicitor cannot ask, or answers what MCP cannot carry', async () => {
    const { remote, stop } = await raw(askOnce);
    try {
      const tool = remote.tools()[0]!;
      await expect(
        run(tool, () => {
          throw new Error('no terminal');
        }),
      ).rejects.toThrow('mcp: elicitation: no terminal');
      await expect(
        run(tool, () => ({ action: 'maybe' }) as unknown as { action: 'accept' }),
      ).rejects.toThrow('mcp: elicitation answer: unknown action "maybe"');
      for (const [answer, shown] of [
        [undefined, 'undefined'],
        ['yes', '"yes"'],
      ] as const) {
        await expect(run(tool, () => answer as unknown as Answer)).rejects.toMatchObject({
          code: 'PROTOCOL',
          message: `mcp: elicitation answer: expected an object { action, content? }, got ${shown}`,
        });
      }
    } finally {
      await stop();
    }
  });

  it('takes an accept with null content as an accept with none', async () => {
    const { remote, stop } = await raw(askOnce);
    try {
      const output = await run(
        remote.tools()[0]!,
        () => ({ action: 'accept', content: null }) as unknown as Answer,
      );
      expect(output).toBe('s1 {"q":{"action":"accept"}}');
    } finally {
      await stop();
    }
  });

  it("fails the call when the caller's own handler throws or answers what MCP cannot carry", async () => {
    let answer: () => unknown = () => {
      throw new Error('handler broke');
    };
    const { remote, stop } = await raw(askOnce, {
      elicitationHandler: () => answer() as ElicitResult,
    });
    try {
      const tool = remote.tools()[0]!;
      await expect(run(tool)).rejects.toMatchObject({
        code: 'PROTOCOL',
        message: 'mcp: elicitation: handler broke',
      });
      answer = () => undefined;
      await expect(run(tool)).rejects.toMatchObject({
        code: 'PROTOCOL',
        message: 'mcp: elicitation answer: expected an object { action, content? }, got undefined',
      });
      answer = () => ({ action: 'maybe' });
      await expect(run(tool)).rejects.toMatchObject({
        code: 'PROTOCOL',
        message: 'mcp: elicitation answer: unknown action "maybe"',
      });
      answer = () => ({ action: 'accept', content: { confirm: true } });
      await expect(run(tool)).resolves.toBe(
        's1 {"q":{"action":"accept","content":{"confirm":true}}}',
      );
    } finally {
      await stop();
    }
  });

  it('ending the call while its question is open ends it at once', async () => {
    const { remote, stop } = await raw(askOnce);
    try {
      const interrupt = new AbortController();
      const pending = run(
        remote.tools()[0]!,
        () => {
          interrupt.abort(new Error('Esc'));
          return new Promise(() => undefined);
        },
        interrupt.signal,
      );
      await expect(pending).rejects.toThrow('mcp: call "ask": context canceled');
    } finally {
      await stop();
    }
  });

  it("ending the call, or closing, while the caller's own handler is open ends the call at once", async () => {
    let handlerSignal: AbortSignal | undefined;
    let opened: () => void = () => undefined;
    const open = (): Promise<void> => new Promise<void>((resolve) => (opened = resolve));
    const { remote, stop } = await raw(askOnce, {
      elicitationHandler: (_request, extra) => {
        handlerSignal = extra.signal;
        opened();
        return new Promise(() => undefined); // nobody ever answers
      },
    });
    try {
      const interrupt = new AbortController();
      let asked = open();
      const aborted = run(remote.tools()[0]!, undefined, interrupt.signal);
      await asked;
      interrupt.abort();
      await expect(aborted).rejects.toThrow('mcp: call "ask": context canceled');
      expect(handlerSignal?.aborted).toBe(true);
      asked = open();
      const closed = run(remote.tools()[0]!);
      await asked;
      await remote.close();
      await expect(closed).rejects.toThrow('mcp: call "ask": mcp: connection closed');
      expect(handlerSignal?.aborted).toBe(true);
    } finally {
      await stop();
    }
  });

  it('gives up on a server that still needs input after ten requests', async () => {
    const { remote, received, stop } = await raw(() =>
      inputRequired({ inputRequests: { q: inputRequired.elicit(FORM) } }),
    );
    try {
      await expect(
        run(remote.tools()[0]!, () => ({ action: 'accept', content: { confirm: true } })),
      ).rejects.toThrow('mcp: call "ask": the server still needs input after 10 requests');
      expect(received).toHaveLength(10);
    } finally {
      await stop();
    }
  });

  it('carries the session handle the server gives on every later call', async () => {
    const key = 'io.github.christopherdavenport.agenttool/session';
    const { remote, received, stop } = await raw((_args, ctx) => ({
      content: [{ type: 'text', text: 'ok' }],
      _meta: { [key]: `handle-${JSON.stringify(ctx.mcpReq._meta?.[key] ?? 'new')}` },
    }));
    try {
      const tool = remote.tools()[0]!;
      await run(tool);
      await run(tool);
      expect(received.map((r) => (r._meta as Record<string, unknown> | undefined)?.[key])).toEqual([
        undefined,
        'handle-"new"',
      ]);
    } finally {
      await stop();
    }
  });
});
