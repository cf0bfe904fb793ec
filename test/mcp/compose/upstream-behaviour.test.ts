/**
 * What one upstream's behaviour does to the others in an `McpServers`: a server behind a
 * rate limiter that refuses a call (HTTP 429) is busy, not lost, so its tools and its
 * session stay for every caller; a server that says its prompts changed without end has
 * itself listed again, not the quiet server beside it.
 */
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { createContext, newTool, type Prompt, text } from 'agenttool';
import { McpServers, McpToolServer, serveTools, ServerBusyError } from 'agenttool/mcp';
import { type RefusingGateway, refusingGateway } from '../../support/refusing-gateway';
import { until } from '../../support/until';

describe('McpServers and a server that refuses a call (HTTP 429)', () => {
  const upstream = serveTools([
    newTool({ name: 'echo', description: 'Says fine', execute: () => text('fine') }),
  ]);
  let gateway: RefusingGateway;
  let servers: McpServers;
  const warnings: string[] = [];

  beforeAll(async () => {
    gateway = await refusingGateway((await upstream.listenHttp({ port: 0 })).url);
    servers = await McpServers.start(
      { mcpServers: { web: { url: gateway.url, protocol: 'legacy' } } },
      { onWarning: (m) => warnings.push(m), retry: { initialDelayMs: 5 }, primitives: false },
    );
  });

  afterAll(async () => {
    await servers?.close();
    await gateway?.close();
    await upstream.close();
  });

  it('fails that call saying the server is busy, and keeps the server, its tools and its session', async () => {
    const echo = servers.tools.find((t) => t.name === 'web__echo');
    if (echo === undefined) throw new Error('web__echo is not served');
    gateway.refusing = { status: 429, retryAfter: '2' };
    const call = { id: 'c1', args: '{}' };
    const refused = await Promise.resolve(echo.execute(call, createContext({ call }))).then(
      () => new Error('it did not fail'),
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ServerBusyError);
    expect(refused).toMatchObject({
      code: 'RATE_LIMITED',
      retryAfter: 2,
      message:
        'mcp server "web": mcp: call "echo": the server refused the call (HTTP 429): Too Many Requests; it is busy: try again in 2 s (its Retry-After)',
    });
    // A server suspected of being gone would be asked for its tools now, refused again,
    // and dropped: its session ended (DELETE), its tools withdrawn.
    await new Promise((r) => setTimeout(r, 300));
    expect(gateway.seen.refused).toBe(1);
    expect(gateway.seen.deletes).toBe(0);
    expect(servers.status.map((s) => [s.name, s.state, s.tools])).toEqual([['web', 'up', 1]]);
    expect(warnings).toEqual([]);
    gateway.refusing = undefined;
    const again = { id: 'c2', args: '{}' };
    expect((await echo.execute(again, createContext({ call: again }))).output).toBe('fine');
  });
});

describe('McpServers and a server that says its prompts changed without end', () => {
  const ping = newTool({ name: 'ping', description: 'Pong', execute: () => text('pong') });
  const prompt = (name: string): Prompt => ({ name, get: () => ({ messages: [] }) });
  const noisy = new McpToolServer({ tools: [ping], prompts: [prompt('a')] }, { listChanged: true });
  const quiet = serveTools([ping], { prompts: [prompt('calm')] });
  /** The prompts/list and resources/list requests each server got. */
  const listings = { noisy: 0, quiet: 0 };
  let servers: McpServers;

  /** A client end to `server` over an in-memory pair, counting the listings sent. */
  function counted(server: McpToolServer, name: 'noisy' | 'quiet'): InMemoryTransport {
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    void server.connect(serverEnd);
    const send = clientEnd.send.bind(clientEnd);
    clientEnd.send = (message, options) => {
      const method = (message as { method?: unknown }).method;
      if (typeof method === 'string' && /^(prompts|resources)(\/templates)?\/list$/.test(method)) {
        listings[name]++;
      }
      return send(message, options);
    };
    return clientEnd;
  }

  beforeAll(async () => {
    servers = await McpServers.start(
      {
        mcpServers: {
          noisy: { transport: () => counted(noisy, 'noisy'), protocol: 'legacy' },
          quiet: { transport: () => counted(quiet, 'quiet'), protocol: 'legacy' },
        },
      },
      { onWarning: () => undefined },
    );
  });

  afterAll(async () => {
    await servers?.close();
    await noisy.close();
    await quiet.close();
  });

  it("lists the noisy server again, keeps the quiet one's last list, and ends with the last change", async () => {
    expect(servers.prompts.map((p) => p.name)).toEqual(['noisy__a', 'quiet__calm']);
    const quietBefore = listings.quiet;
    for (let i = 1; i <= 30; i++) {
      noisy.swap({ tools: [ping], prompts: [prompt(i % 2 === 0 ? 'a' : 'b'), prompt(`n${i}`)] });
      await new Promise((r) => setTimeout(r, 2));
    }
    await until(
      () => servers.prompts.some((p) => p.name === 'noisy__n30'),
      'the last change to be gathered',
    );
    expect(servers.prompts.map((p) => p.name)).toEqual(['noisy__a', 'noisy__n30', 'quiet__calm']);
    expect(listings.quiet).toBe(quietBefore);
    // Changes that came together were listed together: fewer listings than changes.
    expect(listings.noisy).toBeLessThan(30 * 3);
  });
});

describe('McpServers and a server whose prompt listing failed once', () => {
  const prompt = (name: string): Prompt => ({ name, get: () => ({ messages: [] }) });
  const ping = newTool({ name: 'ping', description: 'Pong', execute: () => text('pong') });
  const changing = new McpToolServer(
    { tools: [ping], prompts: [prompt('a')] },
    { listChanged: true },
  );
  const flaky = serveTools([ping], { prompts: [prompt('steady')] });
  let failing = true;
  let servers: McpServers;

  /** A client end to `flaky` whose prompts/list fails while `failing` is set. */
  function failingAtFirst(): InMemoryTransport {
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    void flaky.connect(serverEnd);
    const send = clientEnd.send.bind(clientEnd);
    clientEnd.send = async (message, options) => {
      const { method, id } = message as { method?: unknown; id?: string | number };
      if (failing && method === 'prompts/list' && id !== undefined) {
        const error = { code: -32603, message: 'down for a moment' };
        queueMicrotask(() => clientEnd.onmessage?.({ jsonrpc: '2.0', id, error }));
        return;
      }
      return send(message, options);
    };
    return clientEnd;
  }

  beforeAll(async () => {
    servers = await McpServers.start(
      {
        mcpServers: {
          changing: { transport: () => counted(changing), protocol: 'legacy' },
          flaky: { transport: failingAtFirst, protocol: 'legacy' },
        },
      },
      { onWarning: () => undefined },
    );
  });

  afterAll(async () => {
    await servers?.close();
    await changing.close();
    await flaky.close();
  });

  function counted(server: McpToolServer): InMemoryTransport {
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    void server.connect(serverEnd);
    return clientEnd;
  }

  it("is listed again at the next gathering, whichever server's change started it", async () => {
    expect(servers.prompts.map((p) => p.name)).toEqual(['changing__a']);
    failing = false;
    changing.swap({ tools: [ping], prompts: [prompt('b')] });
    await until(
      () => servers.prompts.some((p) => p.name === 'flaky__steady'),
      "the flaky server's prompts",
    );
    expect(servers.prompts.map((p) => p.name)).toEqual(['changing__b', 'flaky__steady']);
  });
});
