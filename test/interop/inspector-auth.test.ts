/**
 * The MCP Inspector CLI (@modelcontextprotocol/inspector-cli 1.0.3) calls a guarded
 * server over Streamable HTTP with a bearer header: it lists the tools its token's
 * scopes allow and calls them; without the header it is refused.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { newTool } from 'agenttool';
import { type HttpListener, jwtVerifier, type McpToolServer, serveTools } from 'agenttool/mcp';
import {
  type JwtAuthorizationServer,
  startJwtAuthorizationServer,
} from '../fixtures/oauth/jwt-authorization-server';

const run = promisify(execFile);
const root = join(__dirname, '..', '..');
const inspector = join(
  root,
  'node_modules',
  '@modelcontextprotocol',
  'inspector-cli',
  'build',
  'index.js',
);

const readNotes = newTool({
  name: 'read_notes',
  description: 'Reads the notes of the caller',
  access: { scopes: ['files:read'] },
  execute: (_call, ctx) => ({ output: `the notes of ${ctx.auth?.subject ?? '?'}` }),
});
const writeNotes = newTool({
  name: 'write_notes',
  description: 'Writes the notes',
  access: { scopes: ['files:write'] },
  execute: () => ({ output: 'written' }),
});

let issuer: JwtAuthorizationServer;
let server: McpToolServer;
let listener: HttpListener;

beforeAll(async () => {
  issuer = await startJwtAuthorizationServer({});
  server = serveTools([readNotes, writeNotes]);
  listener = await server.listenHttp({
    auth: {
      verifyToken: jwtVerifier({ issuer: issuer.issuer, jwksUrl: issuer.jwksUrl }),
      authorizationServers: [issuer.issuer],
    },
  });
});
afterAll(async () => {
  await server.close();
  await issuer.close();
});

/** Runs the Inspector against the server (from a subfolder: it reads `../package.json`). */
async function inspect(headers: string[], ...args: string[]): Promise<unknown> {
  const { stdout } = await run(
    process.execPath,
    [
      inspector,
      listener.url,
      '--transport',
      'http',
      ...(headers.length > 0 ? ['--header', ...headers] : []),
      ...args,
    ],
    { cwd: join(root, 'test') },
  );
  return JSON.parse(stdout);
}

const token = (scope: string) =>
  `Authorization: Bearer ${issuer.mint({ sub: 'ada', aud: listener.url, scope })}`;

test('with a bearer header it lists and calls what the token allows', async () => {
  const reader = token('files:read');
  const listed = (await inspect([reader], '--method', 'tools/list')) as {
    tools: { name: string }[];
  };
  expect(listed.tools.map((t) => t.name)).toEqual(['read_notes']);
  expect(await inspect([reader], '--method', 'tools/call', '--tool-name', 'read_notes')).toEqual({
    content: [{ type: 'text', text: 'the notes of ada' }],
  });
  expect(await inspect([reader], '--method', 'tools/call', '--tool-name', 'write_notes')).toEqual({
    content: [{ type: 'text', text: 'unknown tool "write_notes"' }],
    isError: true,
  });
  expect(
    await inspect(
      [token('files:read files:write')],
      '--method',
      'tools/call',
      '--tool-name',
      'write_notes',
    ),
  ).toEqual({ content: [{ type: 'text', text: 'written' }] });
}, 90_000);

test('without the header it is refused', async () => {
  await expect(inspect([], '--method', 'tools/list')).rejects.toThrow(
    /Failed to connect to MCP server: .*"error":"invalid_token","error_description":"Missing Authorization header"/,
  );
}, 60_000);
