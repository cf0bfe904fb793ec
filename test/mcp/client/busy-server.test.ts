/**
 * A server behind a rate limiter answers HTTP 429 or 503 for a while: each request it
 * refuses fails as a refusal (`RATE_LIMITED`, a `ServerBusyError` saying when to try
 * again), not as a lost connection, and the connection serves the next request once the
 * limiter lets it through. A server of our own on loopback, behind a gateway.
 */
import { newTool, text } from 'agenttool';
import { connectMcp, type RemoteTools, serveTools, ServerBusyError } from 'agenttool/mcp';
import { callFirstTool } from '../../support/loopback-http';
import { type RefusingGateway, refusingGateway } from '../../support/refusing-gateway';

const server = serveTools(
  [newTool({ name: 'echo', description: 'Says fine', execute: () => text('fine') })],
  { prompts: [{ name: 'greet', get: () => ({ messages: [] }) }] },
);
let gateway: RefusingGateway;
let remote: RemoteTools;

beforeAll(async () => {
  gateway = await refusingGateway((await server.listenHttp({ port: 0 })).url);
  remote = await connectMcp({ transport: { url: gateway.url }, protocol: 'legacy' });
});

afterAll(async () => {
  await remote?.close();
  await gateway?.close();
  await server.close();
});

afterEach(() => (gateway.refusing = undefined));

async function failure(request: Promise<unknown>): Promise<unknown> {
  return request.then(
    () => new Error('it did not fail'),
    (error: unknown) => error,
  );
}

describe('a server that refuses requests for now (HTTP 429, 503)', () => {
  it('fails a call refused 429 as the server busy, saying its Retry-After; the next call runs', async () => {
    gateway.refusing = { status: 429, retryAfter: '7' };
    const refused = await failure(callFirstTool(remote));
    expect(refused).toBeInstanceOf(ServerBusyError);
    expect(refused).toMatchObject({
      code: 'RATE_LIMITED',
      status: 429,
      retryAfter: 7,
      message:
        'mcp: call "echo": the server refused the call (HTTP 429): Too Many Requests; it is busy: try again in 7 s (its Retry-After)',
    });
    gateway.refusing = undefined;
    expect(await callFirstTool(remote)).toBe('fine');
    expect(remote.isClosed).toBe(false);
    expect(gateway.seen.deletes).toBe(0);
  });

  it('fails a listing of the tools and of the prompts refused 503 the same way, without a Retry-After', async () => {
    gateway.refusing = { status: 503 };
    const listing = await failure(remote.refresh());
    expect(listing).toBeInstanceOf(ServerBusyError);
    expect(listing).toMatchObject({
      code: 'RATE_LIMITED',
      status: 503,
      retryAfter: undefined,
      message:
        'mcp: list tools: the server refused the request (HTTP 503): Service Unavailable; it is busy: try again later',
    });
    const prompts = await failure(remote.listPrompts());
    expect(prompts).toMatchObject({
      code: 'RATE_LIMITED',
      message: expect.stringMatching(
        /^mcp: prompts\/list on server ".*": the server refused the request \(HTTP 503\): Service Unavailable; it is busy: try again later$/,
      ) as unknown,
    });
    gateway.refusing = undefined;
    await remote.refresh();
    expect(remote.tools().map((t) => t.name)).toEqual(['echo']);
    expect((await remote.listPrompts()).map((p) => p.name)).toEqual(['greet']);
  });

  it('reads a Retry-After given as an HTTP date as the seconds until then', async () => {
    gateway.refusing = {
      status: 429,
      retryAfter: new Date(Date.now() + 120_000).toUTCString(),
    };
    const refused = await failure(callFirstTool(remote));
    // An HTTP date is to the second, read some moments after it was written.
    expect((refused as ServerBusyError).retryAfter).toBeGreaterThanOrEqual(100);
    expect((refused as ServerBusyError).retryAfter).toBeLessThanOrEqual(120);
  });
});
