/**
 * `agenttool workspace` refuses a folder that would open too much to the model's
 * commands: `/` (given, or the working directory a host started it in with no folder
 * named) and, when no folder is named, a working directory that is the home folder.
 * `install` refuses to write such a server into a client's configuration too.
 */
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt, killChildren, runAgenttool, tempDir } from './helpers';

// The temporary folders this file makes, removed when it ends.
afterAll(killChildren);

beforeAll(() => ensureBuilt(), 300_000);

const WHOLE_FILE_SYSTEM =
  'the whole file system: every command could write wherever this process can; name the project folder to work in, e.g. `agenttool workspace ~/projects/site`';

test.each([
  ['no folder named, started from /', [] as string[], '/'],
  ['/ named', ['/'], undefined],
])('%s: refused, saying why', async (_case, words, cwd) => {
  const ran = await runAgenttool(['workspace', ...words, '--no-sandbox'], {
    ...(cwd === undefined ? {} : { cwd }),
  });
  expect(ran.code).toBe(2);
  const how =
    words.length === 0
      ? 'no folder was given, and the working directory is /'
      : 'the folder given is /';
  expect(ran.stderr).toBe(`agenttool: workspace: ${how}, ${WHOLE_FILE_SYSTEM}\n`);
});

test('an empty folder word, or one starting with a ~ no shell expanded: refused, saying so', async () => {
  const home = realpathSync(tempDir());
  const empty = await runAgenttool(['workspace', '', '--no-sandbox'], { cwd: home });
  expect(empty.code).toBe(2);
  expect(empty.stderr).toBe(
    "agenttool: workspace: the folder given is empty (a host's variable, such as ${workspaceFolder}, that was not set?); name the project folder to work in\n",
  );
  const tilde = await runAgenttool(['workspace', '~/projects/site', '--no-sandbox'], {
    cwd: home,
    env: { HOME: home },
  });
  expect(tilde.code).toBe(2);
  expect(tilde.stderr).toBe(
    `agenttool: workspace: the folder "~/projects/site" does not exist: ~ is not expanded here, since a host passes its arguments as written, without a shell; give the full path, e.g. ${JSON.stringify(`${home}/projects/site`)}\n`,
  );
  // Another user's home is not this one's.
  const theirs = await runAgenttool(['workspace', '~bob/site', '--no-sandbox'], {
    cwd: home,
    env: { HOME: home },
  });
  expect(theirs.stderr).toBe(
    'agenttool: workspace: the folder "~bob/site" does not exist: ~ is not expanded here, since a host passes its arguments as written, without a shell; give the full path\n',
  );
});

test('no folder named, started from the home folder: refused; named, the home folder serves', async () => {
  const home = realpathSync(tempDir());
  const env = { HOME: home };
  const refused = await runAgenttool(['workspace', '--no-sandbox'], { cwd: home, env });
  expect(refused.code).toBe(2);
  expect(refused.stderr).toBe(
    `agenttool: workspace: no folder was given, and the working directory is the home folder ${JSON.stringify(home)}: every command could write anywhere in it; name the folder to work in, e.g. \`agenttool workspace ~/projects/site\` (\`agenttool workspace .\` if it is this one)\n`,
  );
  const named = await runAgenttool(['workspace', '.', '--no-sandbox'], { cwd: home, env });
  expect(named.code).toBe(0);
  expect(named.stderr).toContain(`workspace: ${home}`);
});

test("a folder in an agent's settings or a repository's .git: refused, named or the working directory", async () => {
  const base = realpathSync(tempDir());
  const settings = join(base, '.cursor');
  mkdirSync(settings);
  mkdirSync(join(base, 'repo', '.git', 'hooks'), { recursive: true });
  const why = `${JSON.stringify(settings)} lies in what stays read-only wherever commands may write (.cursor stays read-only: the agent or editor it configures runs the commands its settings name (hooks, MCP servers) outside the sandbox); name a folder outside it`;
  // A host started in its own settings folder, with no folder named.
  const started = await runAgenttool(['workspace', '--no-sandbox'], { cwd: settings });
  expect(started.code).toBe(2);
  expect(started.stderr).toBe(
    `agenttool: workspace: no folder was given, and the working directory ${why}\n`,
  );
  const named = await runAgenttool(['workspace', join(base, 'repo', '.git', 'hooks')]);
  expect(named.code).toBe(2);
  expect(named.stderr).toContain(
    'agenttool: workspace: the folder "' +
      join(base, 'repo', '.git', 'hooks') +
      '" lies in what stays read-only wherever commands may write (a repository\'s .git file, hooks and config stay read-only',
  );
  const installed = await runAgenttool(['install', 'cursor', '--dry-run', 'workspace', settings]);
  expect(installed.code).toBe(2);
  expect(installed.stderr).toBe(`agenttool: install: the workspace folder ${why}\n`);
});

test('install writes no such server', async () => {
  const home = realpathSync(tempDir());
  const env = { HOME: home };
  const fromHome = await runAgenttool(['install', 'cursor', '--dry-run', 'workspace'], {
    cwd: home,
    env,
  });
  expect(fromHome.code).toBe(2);
  expect(fromHome.stderr).toContain(
    'agenttool: install: no folder was given, and the working directory is the home folder',
  );
  const root = await runAgenttool(['install', 'cursor', '--dry-run', 'workspace', '/'], { env });
  expect(root.code).toBe(2);
  expect(root.stderr).toBe(`agenttool: install: the folder given is /, ${WHOLE_FILE_SYSTEM}\n`);
  const named = await runAgenttool(['install', 'cursor', '--dry-run', 'workspace', '.'], {
    cwd: home,
    env,
  });
  expect(named.code).toBe(0);
  expect(named.stdout).toContain(JSON.stringify(home));
});

test('a --shell-env name that is not a variable name is the flag’s error, not a crash', async () => {
  const ran = await runAgenttool(['workspace', tempDir(), '--shell-env', 'BAD=NAME']);
  expect(ran.code).toBe(2);
  expect(ran.stderr).toMatch(
    /^agenttool: workspace: --shell-env: "BAD=NAME" is not an environment variable name/,
  );
  expect(ran.stderr.trimEnd().split('\n')).toHaveLength(1);
});
