/**
 * The built `agenttool workspace` over stdio, or over Streamable HTTP on a port of its
 * choosing, as the workspace tests start it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { type Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

/** The built CLI. */
export const CLI = join(__dirname, '..', '..', 'dist', 'pkg', 'agenttool.js');

/**
 * Serves the workspace `root` over HTTP (with `args` besides); resolves with its URL.
 * `cleanups` gets what stops it.
 */
export function serveWorkspaceHttp(
  root: string,
  cleanups: (() => Promise<void> | void)[],
  args: readonly string[] = [],
): Promise<string> {
  const child = spawn(
    process.execPath,
    [CLI, 'workspace', root, '--http', '127.0.0.1:0', ...args],
    { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  cleanups.push(() => stopChild(child));
  let said = '';
  return new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      const url = /over Streamable HTTP at (http:\/\/\S+)/.exec(said)?.[1];
      if (url !== undefined) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}): ${said}`)));
  });
}

/** Ends `child` with SIGTERM, as a user would, and waits for it. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/**
 * Connects `client` to a workspace server on `root` (with `args` besides), over stdio or
 * HTTP; `cleanups` gets what closes both.
 */
export async function connectWorkspace(
  client: Client,
  over: 'stdio' | 'http',
  root: string,
  cleanups: (() => Promise<void> | void)[],
  args: readonly string[] = [],
): Promise<Client> {
  if (over === 'http') {
    const url = await serveWorkspaceHttp(root, cleanups, args);
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  } else {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'workspace', root, ...args],
        cwd: root,
        stderr: 'ignore',
      }),
    );
  }
  cleanups.push(() => client.close());
  return client;
}
