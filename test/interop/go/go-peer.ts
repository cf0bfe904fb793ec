/**
 * The Go peer (test/interop/go/peer, built by scripts/setup-go-peer.sh) as the tests
 * drive it: a server started on a loopback port, a host run against a URL or a
 * command, a batch through its executor. Every wait is bounded and every process the
 * tests start is stopped by them.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '../../..');
export const PEER = path.join(ROOT, '.tmp/go-peer/agenttool-go-peer');
/** The contract's test data: the Go server serves its golden "everything" schema. */
export const FIXTURES = path.join(ROOT, 'test/fixtures/contract');

/** Fails, saying how to get it, when the peer has not been built (never skips). */
export function requirePeer(): void {
  if (!existsSync(PEER)) {
    throw new Error(
      `The Go peer ${PEER} is missing. Build it with \`bash scripts/setup-go-peer.sh\` ` +
        '(`npm test` and .ci/run do), which needs Go 1.25 or later: install it from ' +
        'https://go.dev/dl/ and put its bin folder on PATH.',
    );
  }
}

/** One JSON line the peer printed. */
export type PeerLine = Record<string, unknown> & { kind: string };

function parseLines(text: string): PeerLine[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as PeerLine);
}

/** Runs the peer to its end and returns the lines it printed; rejects on a failure. */
export function runPeer(args: readonly string[], timeoutMs = 60_000): Promise<PeerLine[]> {
  requirePeer();
  return new Promise((resolve, reject) => {
    execFile(
      PEER,
      [...args],
      { timeout: timeoutMs, maxBuffer: 16 << 20, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`agenttool-go-peer ${args[0]} failed: ${error.message}\n${stderr}`));
          return;
        }
        resolve(parseLines(stdout));
      },
    );
  });
}

/** A script for the Go host: its calls, made one after another once it has listed. */
export interface HostCall {
  tool: string;
  args?: unknown;
  progress?: boolean;
  answer?: { action: string; content?: Record<string, unknown> };
}

/** The Go host's run against `target` (a URL, or a command and its arguments). */
export function runGoHost(
  target: readonly string[],
  protocol: '2025-11-25' | '2026-07-28',
  calls: readonly HostCall[],
): Promise<PeerLine[]> {
  const script = JSON.stringify({ calls });
  return runPeer(['host', '--protocol', protocol, '--script', script, '--', ...target]);
}

/** The Go server over Streamable HTTP, with what it recorded during calls. */
export interface GoServer {
  readonly url: string;
  /** The records its tools wrote while they ran (stderr lines of kind "record"). */
  records(): PeerLine[];
  stop(): Promise<void>;
}

/** Starts the Go server on a free loopback port; it stops when its stdin closes. */
export function startGoServer(timeoutMs = 20_000): Promise<GoServer> {
  requirePeer();
  const child: ChildProcess = spawn(PEER, ['serve-http', '--fixtures', FIXTURES], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.stdin?.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`the Go server did not start within ${timeoutMs} ms:\n${stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the Go server exited (${code}) before listening:\n${stderr}`));
    });
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const first = stdout.split('\n')[0];
      if (!stdout.includes('\n') || first === undefined) return;
      clearTimeout(timer);
      const line = JSON.parse(first) as PeerLine;
      resolve({
        url: String(line['url']),
        records: () =>
          parseLines(
            stderr
              .split('\n')
              .filter((l) => l.startsWith('{'))
              .join('\n'),
          ).filter((l) => l.kind === 'record'),
        stop,
      });
    });
  });
}

/** The Go server over stdio, as a command for a client to start. */
export function goStdioCommand(): { command: string; args: string[] } {
  requirePeer();
  return { command: PEER, args: ['serve-stdio', '--fixtures', FIXTURES] };
}

/** The lines of one kind, for one call when `call` is given. */
export function linesOf(lines: readonly PeerLine[], kind: string, call?: number): PeerLine[] {
  return lines.filter((l) => l.kind === kind && (call === undefined || l['call'] === call));
}
