// Shared by the CLI tests: the build (once, under a lock, only when stale), running the
// built command as a child process, and killing every child the tests started.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { INITIALIZE } from '../support/initialize';

export const ROOT = join(__dirname, '../..');
/** The package's bin, as npx runs it. */
export const CLI = join(ROOT, 'dist/pkg/agenttool.js');
export const FIXTURES = join(ROOT, 'dist/test/cli/fixtures');
export const APP = join(FIXTURES, 'cli-app.module.js');
/** An ES module app with top-level await. */
export const ESM_APP = join(FIXTURES, 'esm-app.module.mjs');
export const WORKSPACE = join(ROOT, 'dist/src/workspace/workspace.module.js');

const FIXTURE_SOURCES = [
  'cli-app.module.ts',
  'hostile-app.module.ts',
  'no-module.ts',
  'two-modules.ts',
  'output-app.module.ts',
  'primitives-app.module.ts',
  'scale-app.module.ts',
  'banner-app.module.ts',
  'compose-remote.module.ts',
  'esm-app.module.mts',
  'esm-verifier.mts',
  'close-throws.module.ts',
  'stalled-start.module.ts',
  'stalled-load.module.mts',
];
const LOCK = join(tmpdir(), 'agenttool-cli-tests.lock');

/**
 * Builds dist/ when a source is newer than its output (CI has built already: then
 * nothing runs), then the fixtures. Under `flock` so that parallel test files build once.
 */
export function ensureBuilt(): void {
  const locked = (command: string, args: string[]): void => {
    const hasFlock = spawnSync('flock', ['--version']).status === 0;
    const run = hasFlock
      ? spawnSync('flock', [LOCK, command, ...args], { cwd: ROOT, encoding: 'utf8' })
      : spawnSync(command, args, { cwd: ROOT, encoding: 'utf8' });
    if (run.status !== 0) {
      throw new Error(`${command} ${args.join(' ')} failed:\n${run.stdout}${run.stderr}`);
    }
  };
  locked(process.execPath, ['scripts/start-build.js', '--quiet', '--allow-type-errors']);
  if (fixturesStale()) {
    const tsc = require.resolve('typescript/bin/tsc', { paths: [ROOT] });
    locked(process.execPath, [tsc, '-p', 'test/cli/fixtures/tsconfig.json']);
  }
}

function fixturesStale(): boolean {
  const declarations = statSync(join(ROOT, 'dist/src/index.d.ts')).mtimeMs;
  return FIXTURE_SOURCES.some((name) => {
    const output = join(FIXTURES, name.replace(/\.ts$/, '.js').replace(/\.mts$/, '.mjs'));
    if (!existsSync(output)) return true;
    const built = statSync(output).mtimeMs;
    return built < statSync(join(ROOT, 'test/cli/fixtures', name)).mtimeMs || built < declarations;
  });
}

const dirs: string[] = [];

/** A fresh temporary folder, removed by {@link killChildren}. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agenttool-cli-test-'));
  dirs.push(dir);
  return dir;
}

const children = new Set<ChildProcess>();

/** Kills every child still running and removes the temporary folders; for afterAll. */
export function killChildren(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children.clear();
}

/** How a finished run of the command ended. */
/**
 * What a host writes to a stdio server it has just spawned, as JSON lines: a 2025-era
 * `initialize`, its notification and a `tools/list` (id 2), then `more`.
 */
export function stdioOpening(...more: readonly object[]): string {
  return [
    INITIALIZE,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ...more,
  ]
    .map((message) => `${JSON.stringify(message)}\n`)
    .join('');
}

export interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `agenttool <args>` to completion, with `input` on stdin (then closed). */
export function runAgenttool(
  args: readonly string[],
  options: { input?: string; env?: Record<string, string>; cwd?: string } = {},
): Promise<Ran> {
  const child = startAgenttool(args, options);
  // A command that exits before it reads its input (a bad argument, a malformed file)
  // closes the pipe: the write then fails with EPIPE, which is no failure of the test's.
  child.stdin.on('error', () => undefined);
  child.stdin.end(options.input ?? '');
  return child.done;
}

/** A running `agenttool` (or other Node) process. */
export interface Running {
  readonly process: ChildProcess;
  readonly stdin: NodeJS.WritableStream;
  readonly done: Promise<Ran>;
  /** Resolves with the first match of `pattern` in stderr, as soon as it appears. */
  waitForStderr(pattern: RegExp): Promise<RegExpMatchArray>;
}

/** Starts `agenttool <args>` and returns at once. */
export function startAgenttool(
  args: readonly string[],
  options: { env?: Record<string, string>; cwd?: string } = {},
): Running {
  return startNode([CLI, ...args], options);
}

/** Starts `node <args>` (the Node running the tests) and returns at once. */
export function startNode(
  args: readonly string[],
  options: { env?: Record<string, string>; cwd?: string } = {},
): Running {
  const child = spawn(process.execPath, args, {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.add(child);
  let stdout = '';
  let stderr = '';
  const watchers: { pattern: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    for (const watcher of [...watchers]) {
      const match = watcher.pattern.exec(stderr);
      if (match !== null) {
        watchers.splice(watchers.indexOf(watcher), 1);
        watcher.resolve(match);
      }
    }
  });
  const done = new Promise<Ran>((resolve) => {
    child.on('close', (code) => {
      children.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
  return {
    process: child,
    stdin: child.stdin,
    done,
    waitForStderr: (pattern) =>
      new Promise((resolve, reject) => {
        const match = pattern.exec(stderr);
        if (match !== null) return resolve(match);
        watchers.push({ pattern, resolve });
        void done.then(() =>
          reject(new Error(`exited before stderr matched ${pattern}:\n${stderr}`)),
        );
      }),
  };
}

/**
 * A project whose node_modules/agenttool is this package (as npm links one), with an app
 * of `text` in `file` (COMMONJS_APP, ES_MODULE_APP: it imports agenttool/code-cache, serves
 * an echo tool over stdio and says on stderr the code cache's folder it was given).
 */
export function appProject(file: string, text: string): string {
  const dir = tempDir();
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules/agenttool'));
  writeFileSync(join(dir, file), text);
  return dir;
}

const SERVE_ECHO = `
const echo = newTool({
  name: 'echo',
  parameters: { type: 'object' },
  execute: () => text('echoed'),
});
process.stderr.write(\`app: code cache folder \${codeCacheFolder}\\n\`);
void new McpToolServer([echo], { name: 'app', version: '1' }).serveStdio();
`;

export const COMMONJS_APP = `'use strict';
const { codeCacheFolder } = require('agenttool/code-cache');
const { newTool, text } = require('agenttool');
const { McpToolServer } = require('agenttool/mcp');
${SERVE_ECHO}`;

export const ES_MODULE_APP = `
import { codeCacheFolder } from 'agenttool/code-cache';
import { newTool, text } from 'agenttool';
import { McpToolServer } from 'agenttool/mcp';
${SERVE_ECHO}`;

/** A writable stream that keeps what is written to it, as text: an in-process run's output. */
export function sink(): Writable & { text: string } {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      stream.text += chunk.toString();
      done();
    },
  }) as Writable & { text: string };
  stream.text = '';
  return stream;
}

/**
 * What a terminal shows when `agenttool args...` runs on one: script(1) from util-linux
 * runs the command on a pseudo-terminal and copies what it shows (stdout and stderr
 * alike) to its own stdout.
 */
export function onTerminal(
  args: readonly string[],
): Promise<{ code: number | null; text: string }> {
  const quote = (word: string): string => `'${word.replaceAll("'", `'\\''`)}'`;
  const command = [process.execPath, CLI, ...args].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, text }));
  });
}
