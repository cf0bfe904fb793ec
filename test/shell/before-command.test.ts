/**
 * `ShellOptions.beforeCommand`: what a command of the bash tool waits for once its turn
 * has come (the workspace: the file changes its session sent before it). Through the
 * bash tool on a real shell, and `Shell.beforeCommand` for its edges.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContext, type Session, toolFromInstance } from 'agenttool';
import { Shell, type ShellOptions, shellTools } from 'agenttool/shell';

const { BashTool } = shellTools({});

let dir: string;
const shells: Shell[] = [];

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'before-command-')));
});

afterEach(async () => {
  await Promise.all(shells.splice(0).map((shell) => shell.close()));
  rmSync(dir, { recursive: true, force: true });
});

function shellWith(beforeCommand: ShellOptions['beforeCommand']): Shell {
  const shell = new Shell({ cwd: dir, beforeCommand });
  shells.push(shell);
  return shell;
}

function later(): { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void } {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

const session: Session = { id: 's1', onClose: () => undefined };

it('runs a command once what it waits for has settled, given the call session', async () => {
  const gate = later();
  const asked: (Session | undefined)[] = [];
  const shell = shellWith((s) => {
    asked.push(s);
    return gate.promise;
  });
  const run = jest.spyOn(shell, 'run');
  const bash = toolFromInstance(new BashTool(shell));
  const ran = Promise.resolve(
    bash.execute(
      { id: 'call_1', args: JSON.stringify({ command: 'echo ran' }) },
      createContext({ session }),
    ),
  );
  await new Promise((resolve) => setImmediate(resolve));
  expect(asked).toEqual([session]);
  // Asked, and waiting: the command has not been handed to the shell.
  expect(run).not.toHaveBeenCalled();
  gate.resolve();
  expect((await ran).output).toBe('ran\n');
  expect(run).toHaveBeenCalledTimes(1);
});

it('fails the call with the wait’s error, and runs nothing', async () => {
  const shell = shellWith(() => Promise.reject(new Error('the file change failed to settle')));
  const bash = toolFromInstance(new BashTool(shell));
  await expect(
    bash.execute(
      { id: 'call_1', args: JSON.stringify({ command: 'touch ran' }) },
      createContext({}),
    ),
  ).rejects.toThrow('the file change failed to settle');
  expect(await shell.run('ls')).toMatchObject({ output: '' });
});

it('ends the wait when the call is cancelled', async () => {
  const shell = shellWith(() => new Promise<void>(() => undefined));
  const cancel = new AbortController();
  const waiting = shell.beforeCommand(undefined, cancel.signal);
  expect(waiting).toBeInstanceOf(Promise);
  cancel.abort(new Error('cancelled by the client'));
  await expect(waiting).rejects.toThrow('cancelled by the client');
});

it("fails the call, running nothing, when the wait outlasts the command's timeout", async () => {
  const shell = shellWith(() => new Promise<void>(() => undefined));
  const run = jest.spyOn(shell, 'run');
  const bash = toolFromInstance(new BashTool(shell));
  await expect(
    Promise.resolve(
      bash.execute(
        { id: 'call_1', args: JSON.stringify({ command: 'echo ran', timeout_seconds: 1 }) },
        createContext({}),
      ),
    ),
  ).rejects.toThrow(
    'the command did not run: what it waits for first (the file changes sent before it) had not settled after 1 s',
  );
  expect(run).not.toHaveBeenCalled();
});

it('asks nothing when the call is cancelled already', async () => {
  let asked = 0;
  const shell = shellWith(() => {
    asked++;
    return Promise.reject(new Error('not to be asked'));
  });
  const cancel = new AbortController();
  cancel.abort(new Error('cancelled before'));
  await expect(shell.beforeCommand(undefined, cancel.signal)).rejects.toThrow('cancelled before');
  expect(asked).toBe(0);
});

it('waits for nothing without the option, or when it returns nothing', () => {
  const signal = new AbortController().signal;
  expect(shellWith(undefined).beforeCommand(session, signal)).toBeUndefined();
  expect(shellWith(() => undefined).beforeCommand(session, signal)).toBeUndefined();
});

it('refuses an option that is not a function', () => {
  expect(() => new Shell({ cwd: dir, beforeCommand: 'soon' as never })).toThrow(
    'beforeCommand must be a function that returns a promise, or undefined',
  );
});
