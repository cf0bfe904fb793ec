/**
 * `agenttool workspace` driven by Python hosts: the official MCP SDK's `Client` and
 * FastMCP's, pinned in requirements.txt and installed by scripts/setup-python-peer.sh.
 * Each starts the built command from `/` over stdio, or reaches it over Streamable HTTP
 * (started from `/` too), in the 2025 era and in 2026-07-28, and (workspace_host.py)
 * lists the tools, sets a directory and a variable, sends two `bash` calls together as a
 * model's parallel calls, over stdio reads a file whose result is longer than a stdio
 * client reads at once, looks at the shell again, and gives up on a call (cancels it)
 * to send another at once; without sessions (2026-07-28 over
 * HTTP) it carries the `shell_id` handle as a model would, and a call without it gets a
 * shell of its own.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, ensureBuilt, killChildren, ROOT, startAgenttool, tempDir } from '../../cli/helpers';
import { noneWithArgument } from '../../support/processes';

// The temporary folders this file makes, removed when it ends.
afterAll(killChildren);

const PYTHON = join(ROOT, '.tmp/python-peer/bin/python');
const HOST = join(__dirname, 'workspace_host.py');

interface Seen {
  readonly tools: string[];
  readonly list_changed: boolean | null;
  readonly first: { text: string; is_error: boolean };
  readonly handle: boolean;
  readonly parallel: {
    slow: string;
    quick: string;
    errors: boolean[];
    finished: string[];
    /** When each command started and ended, in seconds of the shell's clock. */
    spans: Record<string, [number, number]>;
  };
  readonly big?: { is_error: boolean; text: string };
  readonly after: { text: string; is_error: boolean };
  readonly retried: { text: string; is_error: boolean; before_the_sleep_ended: boolean };
  readonly fresh?: { text: string; other: boolean };
  readonly again?: string;
  readonly protocol: string;
}

beforeAll(() => {
  if (!existsSync(PYTHON)) {
    throw new Error(
      `The Python peers are missing (${PYTHON}). Install them with \`bash scripts/setup-python-peer.sh\` (npm test and .ci/run do).`,
    );
  }
  ensureBuilt();
}, 300_000);

function host(library: string, mode: string, root: string, url?: string): Promise<Seen> {
  return new Promise((resolve, reject) => {
    execFile(
      PYTHON,
      [HOST, library, mode, process.execPath, CLI, root, ...(url === undefined ? [] : [url])],
      { cwd: '/', timeout: 120_000, maxBuffer: 4 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error !== null) {
          reject(new Error(`${library} (${mode}) failed: ${error.message}\n${stderr}`));
          return;
        }
        resolve(JSON.parse(stdout) as Seen);
      },
    );
  });
}

/** The workspace over Streamable HTTP, started from `/`; its URL and its stop. */
async function overHttp(root: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const server = startAgenttool(['workspace', root, '--http', '127.0.0.1:0'], { cwd: '/' });
  const [, url] = (await server.waitForStderr(/over Streamable HTTP at (\S+)/)) as [string, string];
  return {
    url,
    stop: async () => {
      server.process.kill('SIGTERM');
      await server.done;
    },
  };
}

const NEW_SHELL = /^set\n\[shell_id: shell_\S+ \(a new shell; pass shell_id to keep using it\)\]$/;

test.each([
  ['mcp', 'legacy', 'stdio', '2025-11-25'],
  ['mcp', 'auto', 'stdio', '2026-07-28'],
  ['fastmcp', 'legacy', 'stdio', '2025-11-25'],
  ['fastmcp', 'auto', 'stdio', '2026-07-28'],
  ['mcp', 'legacy', 'http', '2025-11-25'],
  ['mcp', 'auto', 'http', '2026-07-28'],
  ['fastmcp', 'legacy', 'http', '2025-11-25'],
  ['fastmcp', 'auto', 'http', '2026-07-28'],
])(
  "Python's %s client (%s) over %s: a fixed list, one shell kept, parallel calls in order, a cancel then a retry at once",
  async (library, mode, over, protocol) => {
    const root = realpathSync(tempDir());
    mkdirSync(join(root, 'sub'));
    // Six bytes each as JSON: 24 MiB, past what a stdio client reads at once.
    writeFileSync(join(root, 'controls.txt'), Buffer.alloc(4 * 1024 * 1024, 1));
    const http = over === 'http' ? await overHttp(root) : undefined;
    let seen: Seen;
    try {
      seen = await host(library, mode, root, http?.url);
    } finally {
      await http?.stop();
    }
    // Without sessions (2026-07-28 over HTTP), the shell is kept by its handle.
    const byHandle = over === 'http' && protocol === '2026-07-28';
    expect(seen.protocol).toBe(protocol);
    expect(seen.tools).toEqual([
      'append_file',
      'bash',
      'edit_file',
      'read_file',
      'restart',
      'write_file',
    ]);
    expect(seen.list_changed).toBe(false);
    expect(seen.first.is_error).toBe(false);
    if (byHandle) expect(seen.first.text).toMatch(NEW_SHELL);
    else expect(seen.first.text).toBe('set\n');
    expect(seen.handle).toBe(byHandle);
    const { spans, finished, ...parallel } = seen.parallel;
    expect(parallel).toEqual({
      slow: `slow in ${root}/sub\n`,
      quick: 'quick yes\n',
      errors: [false, false],
    });
    // One at a time, in the order they came: in the shell's clock, the one that started
    // second started only once the other had ended. Over stdio they came in the order they
    // were sent (one pipe), and their answers come back so; over HTTP they are two
    // requests, which may arrive either way round, and whose answers the client may take
    // in either order when they end a few milliseconds apart.
    expect([...finished].sort()).toEqual(['quick', 'slow']);
    const [earlier, later] = Object.values(spans).sort((a, b) => a[0] - b[0]);
    expect(later?.[0]).toBeGreaterThanOrEqual(earlier?.[1] ?? Infinity);
    if (over === 'stdio') {
      expect(spans.slow?.[0]).toBeLessThan(spans.quick?.[0] ?? -Infinity);
      expect(finished).toEqual(['slow', 'quick']);
    }
    if (over === 'stdio') {
      expect(seen.big?.is_error).toBe(true);
      expect(seen.big?.text).toMatch(
        /^The result of this call is 251\d{5} bytes as JSON, more than the 10420224 bytes this server sends in one message over stdio/,
      );
    }
    expect(seen.after).toEqual({ text: `${root}/sub\nyes\n`, is_error: false });
    // Cancelled, then another call at once: it ran once the cancelled command was gone.
    expect(seen.retried).toEqual({
      text: 'retried yes\n',
      is_error: false,
      before_the_sleep_ended: true,
    });
    if (byHandle) {
      // A call without the handle gets a new shell; the handle still reaches the first.
      expect(seen.fresh).toEqual({ text: `${root}\n[]`, other: true });
      expect(seen.again).toBe('yes\n');
    }
    // The server is gone once stopped (the host ends a stdio server as it leaves).
    expect(await noneWithArgument(root)).toBe(true);
  },
  180_000,
);
