/**
 * The persistent shell against a fresh `bash -c` spawned for each command (what a shell
 * tool without state costs), in the OS sandbox and unconfined:
 * - a command that does nothing (`true`), and one that prints 1 MB;
 * - the shell's start-up, to the first command's answer;
 * - over MCP: a served `bash` call against a served `read_file` call, over the same
 *   connection to the same workspace server (Streamable HTTP on loopback).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContext, type Tool } from 'agenttool';
import { ToolApp } from 'agenttool/di';
import { connectMcp, serveTools } from 'agenttool/mcp';
import { Shell, type ShellOptions } from 'agenttool/shell';
import { WorkspaceModule } from 'agenttool/workspace';
import { measure, report } from './measure';

const MEGABYTE = "head -c 1000000 /dev/zero | tr '\\0' a";

/** Runs `bash -c command` in a fresh process and waits for all of its output. */
function freshBash(command: string, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-c', command], {
      cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', () => undefined);
    child.stderr.on('data', () => undefined);
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}

async function perCommand(dir: string): Promise<void> {
  const modes: [string, ShellOptions][] = [
    ['persistent shell, sandboxed', {}],
    ['persistent shell, unconfined', { sandbox: false }],
  ];
  for (const [command, label, ops] of [
    ['true', 'a command that does nothing (true)', 200],
    [MEGABYTE, 'a command that prints 1 MB', 20],
  ] as const) {
    const figures = [
      await measure(
        'fresh bash -c',
        async (n) => {
          for (let i = 0; i < n; i++) await freshBash(command, dir);
        },
        { ops, rounds: 5 },
      ),
    ];
    for (const [name, options] of modes) {
      const shell = new Shell({ cwd: dir, ...options });
      try {
        await shell.run('true');
        figures.push(
          await measure(
            name,
            async (n) => {
              for (let i = 0; i < n; i++) await shell.run(command);
            },
            { ops, rounds: 5 },
          ),
        );
      } finally {
        await shell.close();
      }
    }
    report(`Per command: ${label}`, figures, 'fresh bash -c');
  }
}

async function startUp(dir: string): Promise<void> {
  const figures = [
    await measure(
      'fresh bash -c true',
      async (n) => {
        for (let i = 0; i < n; i++) await freshBash('true', dir);
      },
      { ops: 20, rounds: 5 },
    ),
  ];
  for (const [name, options] of [
    ['start, sandboxed', {}],
    ['start, unconfined', { sandbox: false }],
  ] as const) {
    figures.push(
      await measure(
        name,
        async (n) => {
          for (let i = 0; i < n; i++) {
            const shell = new Shell({ cwd: dir, ...options });
            await shell.run('true');
            await shell.close();
          }
        },
        { ops: 10, rounds: 5 },
      ),
    );
  }
  report('Start-up: a new shell to its first answer', figures, 'fresh bash -c true');
}

/**
 * A served `bash` call against a served `read_file` call over one connection. Our client,
 * as the contract's (Go's mcpclient), waits up to 50 ms after a call to a tool that is
 * not read-only for a list change the server may still announce; `read_file` is
 * read-only, `bash` is not. So the pair is measured twice: with that wait, and without
 * it (`notificationGrace: 0`), which shows what the server and the shell cost.
 */
async function served(dir: string): Promise<void> {
  writeFileSync(join(dir, 'small.txt'), 'hello\n');
  const app = await ToolApp.create(WorkspaceModule.forRoot({ root: dir }));
  const server = serveTools(app);
  const listener = await server.listenHttp();
  try {
    for (const [label, grace] of [
      ["with the client's list-change wait (default)", undefined],
      ['without it (notificationGrace: 0)', 0],
    ] as const) {
      const remote = await connectMcp({
        transport: { url: listener.url },
        protocol: 'legacy',
        ...(grace === undefined ? {} : { notificationGrace: grace }),
      });
      try {
        const tool = (name: string) => remote.tools().find((t) => t.name === name) as Tool;
        let id = 0;
        const call = async (name: string, args: object) => {
          const c = { id: `call_${++id}`, args: JSON.stringify(args) };
          await tool(name).execute(c, createContext({ call: c }));
        };
        await call('bash', { command: 'true' });
        const figures = [
          await measure(
            'served read_file',
            async (n) => {
              for (let i = 0; i < n; i++) await call('read_file', { path: 'small.txt' });
            },
            { ops: 50, rounds: 5 },
          ),
          await measure(
            'served bash (sandboxed) true',
            async (n) => {
              for (let i = 0; i < n; i++) await call('bash', { command: 'true' });
            },
            { ops: 50, rounds: 5 },
          ),
        ];
        report(`Over MCP (Streamable HTTP, one connection), ${label}`, figures, 'served read_file');
      } finally {
        await remote.close();
      }
    }
  } finally {
    await server.close();
    await app.close();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'shell-bench-'));
  try {
    await perCommand(dir);
    await startUp(dir);
    await served(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
