/**
 * The workspace app served over Streamable HTTP to our client in both protocol eras:
 * one client's calls keep one shell (its working directory and variables), another
 * client gets a shell of its own, and a 2026-07-28 client's shell, held by its session
 * handle, ends once no call has used it for the idle timeout.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContext, outputText, type Tool } from 'agenttool';
import { ToolApp } from 'agenttool/di';
import { connectMcp, type RemoteTools, serveTools } from 'agenttool/mcp';
import { WORKSPACE_ROOT_ENV } from 'agenttool/workspace';
import { WorkspaceModule } from 'agenttool/workspace';

let root: string;
let saved: string | undefined;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'workspace-served-')));
  mkdirSync(join(root, 'sub'));
  saved = process.env[WORKSPACE_ROOT_ENV];
  process.env[WORKSPACE_ROOT_ENV] = root;
});

afterEach(() => {
  if (saved === undefined) delete process.env[WORKSPACE_ROOT_ENV];
  else process.env[WORKSPACE_ROOT_ENV] = saved;
  rmSync(root, { recursive: true, force: true });
});

async function bash(remote: RemoteTools, command: string): Promise<string> {
  const tool = remote.tools().find((t) => t.name === 'bash') as Tool;
  const call = { id: 'call_1', args: JSON.stringify({ command }) };
  return outputText((await tool.execute(call, createContext({ call }))).output);
}

describe.each(['legacy', 'modern'] as const)('the workspace app to a %s client', (protocol) => {
  test("keeps one client's shell across its calls, and gives another client its own", async () => {
    const app = await ToolApp.create(WorkspaceModule);
    const server = serveTools(app);
    const listener = await server.listenHttp();
    const first = await connectMcp({ transport: { url: listener.url }, protocol });
    const second = await connectMcp({ transport: { url: listener.url }, protocol });
    try {
      expect(first.era).toBe(protocol);
      await bash(first, 'cd sub && export WHO=first');
      expect(await bash(first, 'pwd; echo $WHO')).toBe(`${join(root, 'sub')}\nfirst\n`);
      expect(await bash(second, 'pwd; echo "[$WHO]"')).toBe(`${root}\n[]\n`);
    } finally {
      await first.close();
      await second.close();
      await server.close();
      await app.close();
    }
  });
});

test("a 2026-07-28 client's shell ends after the idle timeout; its next call starts afresh", async () => {
  const app = await ToolApp.create(WorkspaceModule);
  let ended!: () => void;
  const idle = new Promise<void>((resolve) => (ended = resolve));
  const server = serveTools(app, { onSession: (session) => session.onClose(ended) });
  const listener = await server.listenHttp({ idleTimeoutMs: 200 });
  const remote = await connectMcp({ transport: { url: listener.url }, protocol: 'modern' });
  try {
    await bash(remote, 'cd sub');
    expect(server.sessions).toHaveLength(1);
    await idle;
    expect(server.sessions).toHaveLength(0);
    expect(await bash(remote, 'pwd')).toBe(`${root}\n`);
  } finally {
    await remote.close();
    await server.close();
    await app.close();
  }
});
