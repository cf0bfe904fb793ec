/**
 * `agenttool workspace` driven by Python hosts: the official MCP SDK's `Client` and
 * FastMCP's, pinned in requirements.txt and installed by scripts/setup-python-peer.sh.
 * Each starts the built command from `/` over stdio, in the 2025 era and in 2026-07-28,
 * and (workspace_host.py) lists the tools, sets a directory and a variable, sends two
 * `bash` calls together as a model's parallel calls, reads a file whose result is longer
 * than a stdio client reads at once, and looks at the shell again.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, ensureBuilt, ROOT, tempDir } from '../../cli/helpers';
import { noneWithArgument } from '../../support/processes';

const PYTHON = join(ROOT, '.tmp/python-peer/bin/python');
const HOST = join(__dirname, 'workspace_host.py');

interface Seen {
  readonly tools: string[];
  readonly list_changed: boolean | null;
  readonly first: { text: string; is_error: boolean };
  readonly parallel: { slow: string; quick: string; errors: boolean[]; finished: string[] };
  readonly big: { is_error: boolean; text: string };
  readonly after: { text: string; is_error: boolean };
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

function host(library: string, mode: string, root: string): Promise<Seen> {
  return new Promise((resolve, reject) => {
    execFile(
      PYTHON,
      [HOST, library, mode, process.execPath, CLI, root],
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

test.each([
  ['mcp', 'legacy', '2025-11-25'],
  ['mcp', 'auto', '2026-07-28'],
  ['fastmcp', 'legacy', '2025-11-25'],
  ['fastmcp', 'auto', '2026-07-28'],
])(
  "Python's %s client (%s): a fixed list, one shell kept, parallel calls in order, a too-long result as a tool error",
  async (library, mode, protocol) => {
    const root = realpathSync(tempDir());
    mkdirSync(join(root, 'sub'));
    // Six bytes each as JSON: 24 MiB, past what a stdio client reads at once.
    writeFileSync(join(root, 'controls.txt'), Buffer.alloc(4 * 1024 * 1024, 1));
    const seen = await host(library, mode, root);
    expect(seen.protocol).toBe(protocol);
    expect(seen.tools).toEqual(['append_file', 'bash', 'read_file', 'restart', 'write_file']);
    expect(seen.list_changed).toBe(false);
    expect(seen.first).toEqual({ text: 'set\n', is_error: false });
    expect(seen.parallel).toEqual({
      slow: `slow in ${root}/sub\n`,
      quick: 'quick yes\n',
      errors: [false, false],
      // The quick call came second, so it ran after the slow one.
      finished: ['slow', 'quick'],
    });
    expect(seen.big.is_error).toBe(true);
    expect(seen.big.text).toMatch(
      /^The result of this call is 251\d{5} bytes as JSON, more than the 10420224 bytes this server sends in one message over stdio/,
    );
    expect(seen.after).toEqual({ text: `${root}/sub\nyes\n`, is_error: false });
    // The host ended the server as it left; nothing of it is still running.
    expect(await noneWithArgument(root)).toBe(true);
  },
  180_000,
);
