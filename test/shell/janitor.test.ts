/**
 * The janitor a process leaves behind for when it is killed outright: a process told of
 * before it started (a sandbox bridge, by the socket it will listen on) is killed all the
 * same, found by that socket in its command line, though its id was never told, and the
 * socket it left is removed.
 */
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../cli/helpers';
import { noneWithArgument, processesWithArgument } from '../support/processes';

beforeAll(() => ensureBuilt(), 300_000);

it('kills a bridge it was told of by its socket and removes the socket, once its process is killed', async () => {
  const socket = join(tmpdir(), `janitor-test-${randomBytes(6).toString('hex')}.sock`);
  const word = `UNIX-LISTEN:${socket},fork,reuseaddr`;
  // A process of the janitor's, told of the socket, then starting a stand-in bridge
  // (listening on the socket, and carrying the word) without telling its id, and
  // waiting to be killed. A bridge killed outright leaves its socket's file.
  const script = `
    const { cleanupOnHardExit } = require(${JSON.stringify(join(__dirname, '..', '..', 'dist', 'src', 'shell', 'janitor.js'))});
    const { spawn } = require('node:child_process');
    cleanupOnHardExit.listener(${JSON.stringify(socket)});
    const listen = 'require("node:net").createServer().listen(process.argv[1], () => console.log("up")); setTimeout(() => {}, 300000)';
    const bridge = spawn(process.execPath, ['-e', listen, ${JSON.stringify(socket)}, ${JSON.stringify(word)}], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    bridge.unref();
    bridge.stdout.once('data', () => console.log(String(bridge.pid)));
    setInterval(() => undefined, 1000);
  `;
  const owner = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const bridgePid = await new Promise<number>((resolve, reject) => {
    owner.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    owner.once('exit', (code) => reject(new Error(`the owner exited (${code})`)));
  });
  try {
    expect(processesWithArgument(word)).toEqual([bridgePid]);
    expect(existsSync(socket)).toBe(true);
    const exited = new Promise((resolve) => owner.once('exit', resolve));
    owner.kill('SIGKILL');
    await exited;
    expect(await noneWithArgument(word)).toBe(true);
    // The janitor removes the socket once it has killed the bridge.
    for (let i = 0; i < 100 && existsSync(socket); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(existsSync(socket)).toBe(false);
  } finally {
    for (const pid of processesWithArgument(word)) process.kill(pid, 'SIGKILL');
    rmSync(socket, { force: true });
  }
}, 30_000);
