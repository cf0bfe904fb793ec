import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Shell } from 'agenttool/shell';
import { startWithRetries } from '../../src/shell/shell-start';
import { socketPair, stall } from '../support/late-input';

let dir: string;
let churner: ChildProcess | undefined;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'shell-start-test-')));
});

afterEach(() => {
  churner?.kill('SIGKILL');
  churner = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('a sandboxed shell starting in a workspace whose files change', () => {
  it('starts although a protected file it found is gone before the sandbox binds it', async () => {
    // A `.bashrc` below the workspace is kept read-only, so the start's scan names it to
    // bubblewrap, which refuses to start when it is gone by then. Something in the
    // workspace makes and removes one every 50 ms, as a test suite or a build might.
    const sub = join(dir, 'project');
    mkdirSync(sub);
    // One that stays put, and must stay read-only however many tries the start took.
    mkdirSync(join(dir, 'stable'));
    writeFileSync(join(dir, 'stable', '.bashrc'), 'kept\n');
    churner = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs');
         const file = process.argv[1];
         const pause = new Int32Array(new SharedArrayBuffer(4));
         for (;;) {
           fs.writeFileSync(file, '');
           Atomics.wait(pause, 0, 0, 50);
           fs.rmSync(file, { force: true });
           Atomics.wait(pause, 0, 0, 50);
         }`,
        join(sub, '.bashrc'),
      ],
      { stdio: 'ignore' },
    );
    const outputs: string[] = [];
    for (let start = 0; start < 16; start++) {
      const shell = new Shell({ cwd: dir });
      try {
        const result = await shell.run('echo started; echo x >> stable/.bashrc || echo refused');
        outputs.push(result.output.replace(/^.*Read-only file system\n/m, ''));
      } finally {
        await shell.close();
      }
    }
    expect(outputs).toEqual(Array.from({ length: 16 }, () => 'started\nrefused\n'));
    expect(readFileSync(join(dir, 'stable', '.bashrc'), 'utf8')).toBe('kept\n');
  });
});

describe('a start whose timer fires late', () => {
  it('takes a ready line that came while the process was busy past the start timeout', async () => {
    // The ready line comes through a real socket of this process's own, so that it is
    // input the loop has to read, there to read as soon as it is written. Node runs due
    // timers before it polls for input.
    const { writer, reader, close } = await socketPair(join(dir, 'ready.sock'));
    try {
      const started = startWithRetries({
        timeoutMs: 20,
        placement: { kind: 'unconfined' },
        closed: () => false,
        tryOnce: (_progress, timeout) =>
          Promise.race([
            new Promise<string>((resolve) =>
              reader.once('data', (chunk: Buffer) => resolve(chunk.toString())),
            ),
            timeout,
          ]),
      });
      writer.write('R 4242\n');
      stall(100);
      await expect(started).resolves.toBe('R 4242\n');
    } finally {
      close();
    }
  });
});
