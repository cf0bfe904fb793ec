// `tools.listChanged` says whether the list can change: clients that read true wait for
// a change notice after each call that may change it, so a fixed list says false.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { newTool } from 'agenttool';
import { type McpServerOptions, McpToolServer } from 'agenttool/mcp';
import { overMemory } from './helpers';

const echo = newTool({ name: 'echo', description: 'Echoes', execute: () => ({ output: 'x' }) });
const extra = newTool({ name: 'extra', description: 'Extra', execute: () => ({ output: 'y' }) });

/** What a 2025-era client reads from `initialize`. */
async function legacyAnnounces(server: McpToolServer): Promise<unknown> {
  const connected = await overMemory(server);
  try {
    return connected.client.getServerCapabilities()?.tools?.listChanged;
  } finally {
    await connected.close();
  }
}

/** What a 2026-07-28 client reads from `server/discover`. */
async function modernAnnounces(server: McpToolServer): Promise<unknown> {
  const handler = server.handler();
  const client = new Client(
    { name: 'plain', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), {
      fetch: (url, init) => handler.fetch(new Request(url, init)),
    }),
  );
  try {
    return client.getServerCapabilities()?.tools?.listChanged;
  } finally {
    await client.close();
  }
}

const servers: McpToolServer[] = [];
function serve(options?: McpServerOptions): McpToolServer {
  const server = new McpToolServer([echo], options);
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe.each([
  ['2025 era', legacyAnnounces],
  ['2026-07-28', modernAnnounces],
])('tools.listChanged, %s', (_era, announces) => {
  test('a fixed list says false', async () => {
    expect(await announces(serve())).toBe(false);
  });

  test('a list that changed since the server was made says true from then on', async () => {
    const server = serve();
    server.addTools(extra);
    expect(await announces(server)).toBe(true);
    server.removeTools('extra');
    expect(await announces(server)).toBe(true);
  });

  test('the option says it from the start, either way', async () => {
    expect(await announces(serve({ listChanged: true }))).toBe(true);
    const fixed = serve({ listChanged: false });
    fixed.addTools(extra);
    expect(await announces(fixed)).toBe(false);
  });
});
