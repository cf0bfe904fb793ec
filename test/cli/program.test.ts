/**
 * The command line as a whole, run in process: a command given first is defined alone
 * (its siblings' options are not built for it), and prints, parses and refuses as it does
 * beside them; anything else (no command, an option, `help`, a mistyped word) gets every
 * command, for the list, the help and the suggestion.
 */
import { runCli } from '../../src/cli/program';
import { sink } from './helpers';

async function agenttool(...args: string[]) {
  const stdout = sink();
  const stderr = sink();
  const code = await runCli(args, { stdin: process.stdin, stdout, stderr });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** The commands, in the order the help lists them, and their aliases. */
const NAMES = [
  'serve',
  'workspace',
  'dev',
  'install',
  'init',
  'list',
  'call',
  'get-prompt',
  'read-resource',
];
const WORDS = [...NAMES, 'prompt', 'read'];

test.each(WORDS)(
  '`agenttool %s --help`, the command alone, prints what `agenttool help` with every command does',
  async (word) => {
    const alone = await agenttool(word, '--help');
    const beside = await agenttool('help', word);
    expect(alone).toEqual(beside);
    expect(alone.code).toBe(0);
    expect(alone.stdout).toMatch(/^Usage: agenttool /);
    expect(alone.stdout).toContain('Exit codes:');
  },
);

test('the help without a command lists every command', async () => {
  const help = await agenttool('--help');
  expect(help.code).toBe(0);
  const listed = [...help.stdout.matchAll(/^ {2}([a-z-]+)(?:\|([a-z-]+))? /gm)].map((m) => m[1]);
  expect(listed).toEqual([...NAMES, 'help']);
});

test('a mistyped command is refused with the command meant, and exits 2', async () => {
  const ran = await agenttool('srve', 'app.js');
  expect(ran.code).toBe(2);
  expect(ran.stderr).toContain("error: unknown command 'srve'");
  expect(ran.stderr).toContain('(Did you mean serve?)');
});

test("a command's unknown option is refused with the option meant, and --version is the program's", async () => {
  const typo = await agenttool('serve', 'app.js', '--htp', '127.0.0.1:0');
  expect(typo.code).toBe(2);
  expect(typo.stderr).toContain("error: unknown option '--htp'");
  expect(typo.stderr).toContain('(Did you mean --http?)');
  // After a command's name an option is that command's (positional options).
  const late = await agenttool('serve', '--version');
  expect(late.code).toBe(2);
  expect(late.stderr).toContain("error: unknown option '--version'");
  const version = await agenttool('--version');
  expect(version.code).toBe(0);
  expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
});

test('help asked for exits 0, and help for a missing command 2, whatever process.exitCode holds', async () => {
  // Commander takes help's code from process.exitCode, which something that ran before in
  // the same process (a test runner's worker, an embedding program) may have set.
  const before = process.exitCode;
  process.exitCode = 1;
  try {
    const asked = await agenttool('help', 'serve');
    expect(asked.code).toBe(0);
    expect(asked.stdout).toMatch(/^Usage: agenttool serve /);
    const missing = await agenttool();
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/^Usage: agenttool /);
  } finally {
    process.exitCode = before;
  }
});
