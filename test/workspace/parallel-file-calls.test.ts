/**
 * A host sends a model's file calls on one file all at once: they land in the order they
 * came, as the model wrote them, whatever spelling of the path each uses. The workspace
 * app served over Streamable HTTP on loopback to the SDK's own client speaking
 * 2026-07-28, as a host runs it.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ToolApp } from 'agenttool/di';
import { type McpToolServer, serveTools } from 'agenttool/mcp';
import { WORKSPACE_ROOT_ENV, WorkspaceModule } from 'agenttool/workspace';

let root: string;
let saved: string | undefined;
let app: ToolApp;
let server: McpToolServer;
let client: Client;

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'parallel-files-')));
  saved = process.env[WORKSPACE_ROOT_ENV];
  process.env[WORKSPACE_ROOT_ENV] = root;
  app = await ToolApp.create(WorkspaceModule);
  server = serveTools(app);
  const listener = await server.listenHttp();
  client = new Client(
    { name: 'host', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
});

afterAll(async () => {
  await client?.close();
  await server?.close();
  await app?.close();
  if (saved === undefined) delete process.env[WORKSPACE_ROOT_ENV];
  else process.env[WORKSPACE_ROOT_ENV] = saved;
  rmSync(root, { recursive: true, force: true });
});

/** The call's text, `[error] …` for a tool error. */
async function call(name: string, args: Record<string, unknown>): Promise<string> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { text?: string }[]).map((c) => c.text ?? '').join('');
  return result.isError === true ? `[error] ${text}` : text;
}

it('writes, appends, edits and reads one file in the order the calls came, 20 times over', async () => {
  for (let round = 0; round < 20; round++) {
    const path = `notes/round-${round}/log.txt`;
    const answers = await Promise.all([
      call('write_file', { path, content: 'one\n' }),
      call('append_file', { path: `./${path}`, content: 'two\n' }),
      call('edit_file', { path: join(root, path), old_text: 'one', new_text: 'first' }),
      call('append_file', { path: `notes/../${path}`, content: 'three\n' }),
      call('read_file', { path }),
    ]);
    expect(answers[0]).toMatch(/^Wrote 4 bytes to /);
    expect(answers[1]).toMatch(/^Appended 4 bytes to /);
    expect(answers[2]).toMatch(/^Edited .*: replaced 1 occurrence, at line 1\.$/);
    expect(answers[3]).toMatch(/^Appended 6 bytes to /);
    expect(answers[4]).toBe('first\ntwo\nthree\n');
    expect(readFileSync(join(root, path), 'utf8')).toBe('first\ntwo\nthree\n');
  }
}, 60_000);
