import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Constructor,
  type JobOutcome,
  type Session,
  type ToolRecord,
  resourceOf,
} from 'agenttool';
import { ToolApp } from 'agenttool/di';
import { ShellModule } from 'agenttool/shell';
import {
  DEFAULT_WORKSPACE_FOLDER,
  FilesModule,
  WORKSPACE_ROOT_ENV,
  WORKSPACE_SHELL_ENV,
  WorkspaceModule,
  workspaceConfigFromEnvironment,
} from 'agenttool/workspace';
import { noneWithArgument, processesWithArgument, withArgument } from '../support/processes';
import { testSession as session } from '../support/session';

let root: string;
let savedRoot: string | undefined;
const apps: ToolApp[] = [];

async function create(module: Constructor = WorkspaceModule, options = {}): Promise<ToolApp> {
  const app = await ToolApp.create(module, options);
  apps.push(app);
  return app;
}

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'workspace-test-')));
  savedRoot = process.env[WORKSPACE_ROOT_ENV];
  process.env[WORKSPACE_ROOT_ENV] = root;
});

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
  if (savedRoot === undefined) delete process.env[WORKSPACE_ROOT_ENV];
  else process.env[WORKSPACE_ROOT_ENV] = savedRoot;
  rmSync(root, { recursive: true, force: true });
});

function outputOf(outcome: JobOutcome | undefined): unknown {
  if (outcome === undefined) return undefined;
  return outcome.error !== undefined ? `Error: ${outcome.error.message}` : outcome.result.output;
}

describe('WorkspaceModule', () => {
  it('serves the shell and file tools, the shell ones on shell:session', async () => {
    const app = await create();
    expect(app.definitions().map((d) => d.name)).toEqual([
      'bash',
      'restart',
      'read_file',
      'write_file',
      'edit_file',
      'append_file',
    ]);
    expect(resourceOf(app.tools.lookup('bash')!)).toBe('shell:session');
    expect(resourceOf(app.tools.lookup('restart')!)).toBe('shell:session');
  });

  it("runs a batch's commands once its file changes have settled, which never wait for a command", async () => {
    const app = await create();
    // The executor hands every call over at once: the command waits for the write before
    // it and for the append after it alike (a command runs before a change only from an
    // earlier batch).
    const outcomes = await app.results([
      app.job('write_file', { path: 'run.sh', content: 'echo ran\n' }),
      app.job('bash', { command: 'bash run.sh' }),
      app.job('append_file', { path: 'run.sh', content: 'echo again\n' }),
    ]);
    expect(outcomes.map(outputOf)).toEqual([
      `Wrote 9 bytes to ${root}/run.sh.`,
      'ran\nagain\n',
      `Appended 11 bytes to ${root}/run.sh.`,
    ]);
  });

  it('works on the configured root: files written are what the shell sees', async () => {
    const app = await create();
    const [written] = await app.results([
      app.job('write_file', { path: 'notes/todo.txt', content: 'ship it\n' }),
    ]);
    expect(outputOf(written)).toBe(`Wrote 8 bytes to ${root}/notes/todo.txt.`);
    const outcomes = await app.results([
      app.job('bash', { command: 'cd notes && echo "more" >> todo.txt' }),
      app.job('bash', { command: 'pwd; cat todo.txt' }),
    ]);
    expect(outcomes.map(outputOf)).toEqual(['(no output)', `${root}/notes\nship it\nmore\n`]);
    const [read] = await app.results([app.job('read_file', { path: 'notes/todo.txt' })]);
    expect(outputOf(read)).toBe('ship it\nmore\n');
  });

  it("takes the paths the shell prints, and says where relative ones start when the shell's cd misleads", async () => {
    const app = await create();
    const [made] = await app.results([
      app.job('bash', {
        command: 'mkdir -p sub && cd sub && echo x > big.txt && realpath big.txt',
      }),
    ]);
    expect(outputOf(made)).toBe(`${root}/sub/big.txt\n`);
    const [relative, absolute] = await app.results([
      app.job('read_file', { path: 'big.txt' }),
      app.job('read_file', { path: `${root}/sub/big.txt` }),
    ]);
    expect(outputOf(relative)).toBe(
      `Error: cannot read "big.txt": no such file under the workspace root "${root}": relative paths start there, not at the shell's working directory (give the absolute path, as \`realpath FILE\` prints it)`,
    );
    expect(outputOf(absolute)).toBe('x\n');
    const described = app.definitions().find((d) => d.name === 'read_file')?.description;
    expect(described).toContain(
      "Paths are relative to the workspace root, not to the shell's current directory",
    );
  });

  it('takes file paths under a root given through a symbolic link, and the real ones', async () => {
    const links = mkdtempSync(join(tmpdir(), 'workspace-link-'));
    try {
      const link = join(links, 'project');
      symlinkSync(root, link);
      const app = await create(WorkspaceModule.forRoot({ root: link }));
      const [written] = await app.results([
        app.job('write_file', { path: join(link, 'via-link.txt'), content: 'link' }),
      ]);
      expect(outputOf(written)).toBe(`Wrote 4 bytes to ${join(link, 'via-link.txt')}.`);
      const [read, beside] = await app.results([
        app.job('read_file', { path: join(root, 'via-link.txt') }),
        app.job('read_file', { path: join(links, 'elsewhere.txt') }),
      ]);
      expect(outputOf(read)).toBe('link');
      expect(String(outputOf(beside))).toContain('outside the root directory');
      expect(existsSync(join(root, 'via-link.txt'))).toBe(true);
    } finally {
      rmSync(links, { recursive: true, force: true });
    }
  });

  it('refuses file paths outside the root and touches nothing', async () => {
    const app = await create();
    const outside = join(root, '..', `${root.split('/').pop()}-escape.txt`);
    const outcomes = await app.results([
      app.job('write_file', { path: '../escape.txt', content: 'x' }),
      app.job('append_file', { path: outside, content: 'x' }),
    ]);
    for (const outcome of outcomes) {
      expect(outputOf(outcome)).toMatch(/^Error: the path .* is outside the root directory/);
    }
    expect(existsSync(join(root, '..', 'escape.txt'))).toBe(false);
    expect(existsSync(outside)).toBe(false);
  });

  it('records the process group as the command starts, through the app recorder', async () => {
    const records: ToolRecord[] = [];
    const app = await create(WorkspaceModule, {
      recorder: (r: ToolRecord) => void records.push(r),
    });
    const [outcome] = await app.results([app.job('bash', { command: 'echo hi' })]);
    expect(outputOf(outcome)).toBe('hi\n');
    expect(records.map((r) => r.ns)).toEqual(['shell:process-group']);
    expect(JSON.parse(records[0]!.data)).toEqual({
      pgid: expect.any(Number),
      sandbox: 'bubblewrap',
    });
  });

  it('an aborted batch interrupts the command and keeps the shell', async () => {
    const controller = new AbortController();
    const app = await create(WorkspaceModule, { recorder: () => controller.abort() });
    await app.results([app.job('bash', { command: 'kept=1' })], { recorder: () => undefined });
    const [interrupted] = await app.results([app.job('bash', { command: 'sleep 30' })], {
      signal: controller.signal,
    });
    expect(outputOf(interrupted)).toBe('[interrupted]\n[exit status 130]');
    const [after] = await app.results([app.job('bash', { command: 'echo "$kept"' })], {
      recorder: () => undefined,
    });
    expect(outputOf(after)).toBe('1\n');
  });

  /**
   * Leaves a process in the shell that this host can find by a word of its command line
   * (the shell's own ids are its sandbox's), and returns that word.
   */
  async function mark(app: ToolApp, s?: Session): Promise<string> {
    const word = `3600.${randomBytes(4).readUInt32BE()}`;
    const [outcome] = await app.results(
      [app.job('bash', { command: `sleep ${word} >/dev/null 2>&1 &` })],
      s === undefined ? {} : { session: s },
    );
    expect(outputOf(outcome)).toBe('(no output)');
    expect(await withArgument(word)).toHaveLength(1);
    return word;
  }

  it('app.close() ends the shell; closing again is harmless', async () => {
    const app = await create();
    const word = await mark(app);
    await app.close();
    expect(await noneWithArgument(word)).toBe(true);
    await app.close();
  });

  it('gives each client session its own shell, closed when the session ends', async () => {
    const app = await create();
    const first = session('one');
    const second = session('two');
    const run = async (s: Session, command: string) =>
      String(outputOf((await app.results([app.job('bash', { command })], { session: s }))[0]));
    await run(first, 'where=first');
    await run(second, 'where=second');
    const firstWord = await mark(app, first);
    const secondWord = await mark(app, second);
    expect(await run(first, 'echo $where')).toBe('first\n');
    expect(await run(second, 'echo $where')).toBe('second\n');
    await first.end();
    expect(await noneWithArgument(firstWord)).toBe(true);
    expect(processesWithArgument(secondWord)).toHaveLength(1);
    expect(await run(second, 'echo $where')).toBe('second\n');
    await app.close();
    expect(await noneWithArgument(secondWord)).toBe(true);
  });

  it("leaves no shell state behind when app.close() follows a session's end at once", async () => {
    const stateFiles = () =>
      ['/dev/shm', tmpdir()].flatMap((where) =>
        existsSync(where) ? readdirSync(where).filter((n) => n.startsWith('.agenttool-')) : [],
      );
    const before = stateFiles();
    const app = await create();
    const client = session('leaving');
    const word = await mark(app, client);
    const ended = client.end();
    await app.close();
    await ended;
    expect(await noneWithArgument(word)).toBe(true);
    expect(stateFiles()).toEqual(before);
  });

  it("gives the shell an allow-listed environment, never the server's secrets", async () => {
    const saved = { ...process.env };
    process.env.AGENTTOOL_TEST_SECRET = 'hunter2';
    process.env.AGENTTOOL_TEST_EXTRA = 'wanted';
    process.env[WORKSPACE_SHELL_ENV] = 'AGENTTOOL_TEST_EXTRA';
    try {
      const app = await create();
      const [outcome] = await app.results([
        app.job('bash', {
          command:
            'echo "[${AGENTTOOL_TEST_SECRET-unset}] [${AGENTTOOL_TEST_EXTRA-unset}]"; env | grep -c hunter2',
        }),
      ]);
      expect(outputOf(outcome)).toBe('[unset] [wanted]\n0\n[exit status 1]');
    } finally {
      for (const name of ['AGENTTOOL_TEST_SECRET', 'AGENTTOOL_TEST_EXTRA', WORKSPACE_SHELL_ENV]) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
  });

  it('fails to start, naming the variable, when the configured root does not exist', async () => {
    process.env[WORKSPACE_ROOT_ENV] = join(root, 'missing');
    await expect(ToolApp.create(WorkspaceModule)).rejects.toThrow(
      `${WORKSPACE_ROOT_ENV}=${JSON.stringify(join(root, 'missing'))}`,
    );
  });

  it('says a root that is a file is a file, not that it is missing', async () => {
    const file = join(root, 'notes.txt');
    writeFileSync(file, 'x');
    expect(() => WorkspaceModule.forRoot({ root: file })).toThrow(
      `root ${JSON.stringify(file)} is a file, not a directory; give the folder to work in (${JSON.stringify(root)}, say)`,
    );
    expect(() => WorkspaceModule.forRoot({ root: join(root, 'none') })).toThrow(
      `root ${JSON.stringify(join(root, 'none'))} does not exist; create it first`,
    );
    process.env[WORKSPACE_ROOT_ENV] = file;
    await expect(ToolApp.create(WorkspaceModule)).rejects.toThrow(
      `${WORKSPACE_ROOT_ENV}=${JSON.stringify(file)}: ${JSON.stringify(file)} is a file, not a directory; set ${WORKSPACE_ROOT_ENV} to the folder to work in`,
    );
  });
});

describe('the sample modules on their own', () => {
  it('ShellModule serves only the shell tools', async () => {
    const app = await create(ShellModule);
    expect(app.definitions().map((d) => d.name)).toEqual(['bash', 'restart']);
  });

  it('FilesModule serves only the file tools', async () => {
    const app = await create(FilesModule);
    expect(app.definitions().map((d) => d.name)).toEqual([
      'read_file',
      'write_file',
      'edit_file',
      'append_file',
    ]);
  });
});

describe('workspaceConfigFromEnvironment', () => {
  it('defaults to ./workspace under the working directory, creating it', async () => {
    const config = await workspaceConfigFromEnvironment({}, root);
    expect(config.root).toBe(join(root, DEFAULT_WORKSPACE_FOLDER));
    expect(existsSync(config.root)).toBe(true);
  });

  it('reads the names WORKSPACE_SHELL_ENV adds to the shell environment', async () => {
    const config = await workspaceConfigFromEnvironment(
      { [WORKSPACE_ROOT_ENV]: '.', [WORKSPACE_SHELL_ENV]: ' GOPATH, NODE_ENV  EDITOR' },
      root,
    );
    expect(config.shellEnv).toEqual(['GOPATH', 'NODE_ENV', 'EDITOR']);
    await expect(
      workspaceConfigFromEnvironment({ [WORKSPACE_SHELL_ENV]: 'OK,NOT-A-NAME' }, root),
    ).rejects.toThrow(`${WORKSPACE_SHELL_ENV}: "NOT-A-NAME" is not an environment variable name`);
  });

  it('takes WORKSPACE_ROOT relative to the working directory', async () => {
    const config = await workspaceConfigFromEnvironment({ [WORKSPACE_ROOT_ENV]: '.' }, root);
    expect(config.root).toBe(root);
  });
});
