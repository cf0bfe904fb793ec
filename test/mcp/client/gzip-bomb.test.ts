/**
 * A server on loopback answers a call with an event stream compressed with gzip that
 * inflates to 2 GiB of one event (fetch inflates `Content-Encoding: gzip` itself, as
 * the bytes come): the call fails at the client's limit (maxMessageBytes, 10 MiB by
 * default), and the client's memory stays near that limit while it reads. The client
 * runs in a child process of its own (the built package), which reports how far its
 * peak resident memory grew during the call.
 */
import { execFile } from 'node:child_process';
import * as http from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { ensureBuilt, ROOT } from '../../cli/helpers';
import { listenOnLoopback, scriptedPost } from '../../support/loopback-http';

const TOTAL = 2 * 1024 ** 3;
/** One gzip member of 16 MiB of `x` (some 16 KB sent); gzip allows members one after another. */
const BLOCK = 16 * 1024 ** 2;

const SCRIPT = `
const { connectMcp } = require(${JSON.stringify(join(ROOT, 'dist/pkg/mcp.js'))});
const { createContext } = require(${JSON.stringify(join(ROOT, 'dist/pkg/index.js'))});
(async () => {
  const remote = await connectMcp({ transport: { url: process.argv[1] }, protocol: 'legacy' });
  gc();
  // The peak so far (kB): what the call adds to it is what it made the client hold.
  const before = process.resourceUsage().maxRSS;
  const call = { id: 'call_1', args: '{}' };
  const failure = await Promise.resolve(remote.tools()[0].execute(call, createContext({ call }))).then(
    () => 'answered',
    (error) => error.message,
  );
  const grownMB = (process.resourceUsage().maxRSS - before) / 1024;
  await remote.close();
  console.log(JSON.stringify({ failure, grownMB }));
})();
`;

function bombServer(): http.Server {
  const block = gzipSync(Buffer.alloc(BLOCK, 'x'));
  return http.createServer((req, res) => {
    // No stream of its own for the client to open (GET): only answers.
    if (req.method !== 'POST') return void res.writeHead(405).end();
    scriptedPost(req, res, { name: 'bomb', tool: 'bomb' }, () => {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'content-encoding': 'gzip',
        'mcp-session-id': 's1',
      });
      res.write(gzipSync('event: message\ndata: '));
      // Until the client stops reading, 2 GiB at most: the test ends either way.
      let sent = 0;
      const more = (): void => {
        while (sent < TOTAL && !res.destroyed) {
          sent += BLOCK;
          if (!res.write(block)) return void res.once('drain', more);
        }
        if (!res.destroyed) res.end();
      };
      more();
    });
  });
}

beforeAll(() => ensureBuilt(), 300_000);

test('a gzip event stream of 2 GiB fails its call at the limit, the memory it takes near it', async () => {
  const server = await listenOnLoopback(bombServer());
  try {
    const run = await promisify(execFile)(
      process.execPath,
      ['--expose-gc', '-e', SCRIPT, server.url],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
        timeout: 120_000,
      },
    );
    expect(run.stderr).toBe('');
    const { failure, grownMB } = JSON.parse(run.stdout) as { failure: string; grownMB: number };
    expect(failure).toBe(
      `mcp: call "bomb": mcp: the server's answer is a message of more than ${10 * 1024 * 1024} bytes, the most this client reads (maxMessageBytes); ask for less, or raise maxMessageBytes`,
    );
    // The limit is 10 MiB; what is held past it is garbage not yet collected.
    expect(grownMB).toBeLessThan(100);
  } finally {
    await server.close();
  }
}, 180_000);
