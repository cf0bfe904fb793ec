/**
 * A client that connects, calls and closes leaves nothing behind on the server: closing
 * ends its session at once in both eras (a 2025-era session with DELETE, a 2026-07-28
 * session handle with the session-end request), so the session's shell ends with it
 * rather than after the idle timeout, and no session counts against the limits.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContext, outputText, type Tool } from 'agenttool';
import { ToolApp } from 'agenttool/di';
import { connectMcp, serveTools } from 'agenttool/mcp';
import { WORKSPACE_ROOT_ENV, WorkspaceModule } from 'agenttool/workspace';
import { noneWithArgument, withArgument } from '../support/processes';

let root: string;
let saved: string | undefined;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'leaves-nothing-')));
  saved = process.env[WORKSPACE_ROOT_ENV];
  process.env[WORKSPACE_ROOT_ENV] = root;
});

afterEach(() => {
  if (saved === undefined) delete process.env[WORKSPACE_ROOT_ENV];
  else process.env[WORKSPACE_ROOT_ENV] = saved;
  rmSync(root, { recursive: true, force: true });
});

test.each(['modern', 'legacy'] as const)(
  '20 %s clients that connect, call bash and close leave no shell and no session',
  async (protocol) => {
    const app = await ToolApp.create(WorkspaceModule);
    const server = serveTools(app);
    const listener = await server.listenHttp();
    const words: string[] = [];
    try {
      for (let cycle = 0; cycle < 20; cycle++) {
        const remote = await connectMcp({ transport: { url: listener.url }, protocol });
        expect(remote.era).toBe(protocol);
        // A process in the session's shell that this host can find by a word of its
        // command line: it lives exactly as long as the shell.
        const word = `3600.${randomBytes(4).readUInt32BE()}`;
        words.push(word);
        const bash = remote.tools().find((t) => t.name === 'bash') as Tool;
        const call = {
          id: `call_${cycle}`,
          args: JSON.stringify({ command: `sleep ${word} >/dev/null 2>&1 &` }),
        };
        const result = await bash.execute(call, createContext({ call }));
        expect(outputText(result.output)).toBe('(no output)');
        expect(await withArgument(word)).toHaveLength(1);
        expect(server.sessions).toHaveLength(1);
        await remote.close();
        // The close has ended the session, and with it the shell, before it returned.
        expect(server.sessions).toHaveLength(0);
        expect(await noneWithArgument(word)).toBe(true);
      }
      for (const word of words) expect(await noneWithArgument(word)).toBe(true);
    } finally {
      await server.close();
      await app.close();
    }
  },
  120_000,
);
