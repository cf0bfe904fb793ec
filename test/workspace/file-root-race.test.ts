// A directory of the root swapped for a symbolic link to the outside, over and over, by
// another process, while writes, appends and reads run through the sandbox: nothing may
// appear outside the root (no file, no temporary file, no directory) and nothing outside
// may be read.
import { type ChildProcess, spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PathEscapeError, FileRoot } from '../../src/workspace/file-root';

/**
 * Swaps `dir` for a link to `outside` and back, in a loop, until killed. A write may
 * re-create `dir` while it is away; that copy is dropped and the parked one put back.
 */
const SWAPPER = `
const fs = require('node:fs');
const [dir, parked, outside] = process.argv.slice(1);
let swaps = 0;
for (;;) {
  try {
    fs.renameSync(dir, parked);
    fs.symlinkSync(outside, dir);
    // Leave the link in place for a few system calls, so that calls meet it.
    for (let i = 0; i < 5; i += 1) fs.lstatSync(dir);
    fs.unlinkSync(dir);
    fs.renameSync(parked, dir);
  } catch {
    try {
      if (fs.existsSync(parked)) {
        fs.rmSync(dir, { recursive: true, force: true });
        fs.renameSync(parked, dir);
      }
    } catch {}
  }
  if (++swaps === 1) process.stdout.write('swapping\\n');
}
`;

let base: string;
let root: string;
let outside: string;
let swapper: ChildProcess | undefined;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'sandbox-race-')));
  root = join(base, 'root');
  outside = join(base, 'outside');
  mkdirSync(join(root, 'd'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, 'd', 'secret.txt'), 'inside');
  writeFileSync(join(outside, 'secret.txt'), 'outside');
});

afterEach(() => {
  swapper?.kill('SIGKILL');
  rmSync(base, { recursive: true, force: true });
});

function startSwapper(): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['-e', SWAPPER, join(root, 'd'), join(root, 'parked'), outside],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    child.stdout.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`the swapper exited (${code})`)));
  });
}

describe('FileRoot under a directory swapped for a link', () => {
  it('never writes, creates or reads anything outside the root', async () => {
    const sandbox = new FileRoot(root);
    swapper = await startSwapper();
    const outcomes = { done: 0, escaped: 0, failed: 0 };
    const leaks: string[] = [];
    const attempt = async (operation: () => Promise<unknown>) => {
      try {
        const value = await operation();
        outcomes.done += 1;
        return value;
      } catch (error) {
        if (error instanceof PathEscapeError) outcomes.escaped += 1;
        else outcomes.failed += 1;
        return undefined;
      }
    };
    // Rounds of concurrent operations until the race has been seen both ways (bounded).
    for (let round = 0; round < 400; round += 1) {
      await Promise.all(
        Array.from({ length: 8 }, async (_, k) => {
          const i = round * 8 + k;
          await attempt(() => sandbox.write(`d/write-${i}.txt`, 'x'));
          await attempt(() => sandbox.append(`d/append-${i % 10}.txt`, 'x'));
          await attempt(() => sandbox.write(`d/sub-${i % 4}/deeper/new-${i}.txt`, 'x'));
          const read = await attempt(() => sandbox.read('d/secret.txt'));
          if (read !== undefined) {
            const text = (read as { content: Buffer }).content.toString();
            if (text !== 'inside') leaks.push(text);
          }
        }),
      );
      if (round >= 20 && outcomes.done > 50 && outcomes.escaped > 50) break;
    }
    swapper.kill('SIGKILL');
    expect(readdirSync(outside, { recursive: true })).toEqual(['secret.txt']);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('outside');
    expect(leaks).toEqual([]);
    // The race was run: calls went through, and calls met the link.
    expect(outcomes.done).toBeGreaterThan(0);
    expect(outcomes.escaped).toBeGreaterThan(0);
  }, 120_000);
});
