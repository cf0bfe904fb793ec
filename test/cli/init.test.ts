/**
 * `agenttool init`, run in process on temporary folders: the project it writes (the
 * README's tool, test and tsconfig.json, byte for byte; agenttool at this version; the
 * compiler pinned as this repository pins it), the commands it prints (the README's
 * first screen), and what it refuses or keeps. test/package/install.test.ts installs
 * and tests a project it made from the packed package.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/program';
import { sink } from './helpers';

const ROOT = join(__dirname, '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const OURS = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  devDependencies: Record<string, string>;
};

/** Runs `agenttool <args>` in `cwd`: its exit code, stdout and stderr. */
async function agenttool(cwd: string, ...args: string[]) {
  const stdout = sink();
  const stderr = sink();
  const before = process.cwd();
  process.chdir(cwd);
  try {
    const code = await runCli(args, { stdin: process.stdin, stdout, stderr });
    return { code, stdout: stdout.text, stderr: stderr.text };
  } finally {
    process.chdir(before);
  }
}

/** A block of the README, after the `<!-- marker -->` before it. */
function readmeBlock(marker: string, language: string): string {
  const block = new RegExp(`<!-- ${marker} -->\\n+\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(
    README,
  )?.[1];
  if (block === undefined) throw new Error(`README.md has no block after <!-- ${marker} -->`);
  return block;
}

const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');
const json = (dir: string, file: string) => JSON.parse(read(dir, file)) as Record<string, unknown>;

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'agenttool-init-'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

describe('agenttool init', () => {
  it("makes the README's project, and prints the README's next commands", async () => {
    const ran = await agenttool(work, 'init', 'greeter');
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    const project = join(work, 'greeter');
    expect(readdirSync(project, { recursive: true, encoding: 'utf8' }).sort()).toEqual([
      '.gitignore',
      '.mcp.json',
      '.vscode',
      '.vscode/mcp.json',
      'README.md',
      'package.json',
      'src',
      'src/greet.test.ts',
      'src/greet.ts',
      'tsconfig.json',
    ]);
    expect(read(project, 'src/greet.ts')).toBe(read(ROOT, 'samples/readme/greet.ts'));
    expect(read(project, 'src/greet.test.ts')).toBe(read(ROOT, 'samples/readme/greet.test.ts'));
    expect(read(project, 'tsconfig.json')).toBe(readmeBlock('install: tsconfig.json', 'json'));
    // The first screen: `init`, `cd` into the project, then what init says comes next.
    const screen = readmeBlock('first-screen: commands', 'sh').trimEnd().split('\n');
    expect(screen.slice(0, 2)).toEqual(['npx agenttool init greeter', 'cd greeter']);
    const next = ran.stdout
      .slice(ran.stdout.indexOf('\nNext:\n') + 7)
      .trimEnd()
      .split('\n');
    expect(next.map((line) => line.trim())).toEqual(screen.slice(1));
    expect(ran.stdout).toMatch(
      /^agenttool init: made greeter, an ES module project, in the folder greeter:\n/,
    );
  });

  it('writes an ES module package pinned to this agenttool and compiler', async () => {
    await agenttool(work, 'init', 'tools');
    expect(json(join(work, 'tools'), 'package.json')).toEqual({
      name: 'tools',
      version: '0.1.0',
      private: true,
      description: 'Agent tools built with agenttool',
      type: 'module',
      scripts: {
        dev: 'agenttool dev src/greet.ts',
        build: 'tsc',
        start: 'agenttool serve dist/greet.js',
        test: 'tsc && node --test "dist/**/*.test.js"',
      },
      dependencies: { agenttool: OURS.version },
      // The compiler and the Node types of this repository, and the SWC `dev` compiles with.
      devDependencies: {
        '@swc/core': OURS.devDependencies['@swc/core'],
        '@types/node': OURS.devDependencies['@types/node'],
        typescript: OURS.devDependencies.typescript,
      },
      engines: { node: '>=22.13' },
      // npm 11.19 warns of an install script it was not told of: SWC's is declined.
      allowScripts: { '@swc/core': false },
    });
    // `agenttool install` leaves the client's file it replaced beside it, not to commit.
    expect(read(join(work, 'tools'), '.gitignore')).toBe('node_modules/\ndist/\n*.bak\n');
  });

  it('configures Claude Code and VS Code to run npm start, quietly, in the project, as the server agenttool install names', async () => {
    await agenttool(work, 'init', 'tools');
    const project = join(work, 'tools');
    expect(json(project, '.mcp.json')).toEqual({
      mcpServers: {
        greet: {
          type: 'stdio',
          command: 'npm',
          args: ['--prefix', '${CLAUDE_PROJECT_DIR:-.}', '--silent', 'start'],
        },
      },
    });
    expect(json(project, '.vscode/mcp.json')).toEqual({
      servers: {
        greet: {
          type: 'stdio',
          command: 'npm',
          args: ['--prefix', '${workspaceFolder}', '--silent', 'start'],
        },
      },
    });
  });

  it.each([
    [['--cjs'], 'commonjs'],
    [['--module', 'cjs'], 'commonjs'],
    [['--esm'], 'module'],
    [['--module', 'esm'], 'module'],
  ])('makes the project with %j as %s', async (flags, type) => {
    const ran = await agenttool(work, 'init', 'p', ...flags);
    expect(ran.code).toBe(0);
    expect(json(join(work, 'p'), 'package.json')['type']).toBe(type);
    // One source for both: `./greet.js` is the compiled file in either.
    expect(read(join(work, 'p'), 'src/greet.test.ts')).toContain("from './greet.js';");
  });

  it('makes it in the working directory, and names it after the folder', async () => {
    const folder = join(work, 'My Agent Tools!');
    mkdirSync(join(folder, '.git'), { recursive: true });
    const ran = await agenttool(folder, 'init');
    expect(ran.code).toBe(0);
    expect(json(folder, 'package.json')['name']).toBe('my-agent-tools');

    // No `cd`: the project is where the command ran.
    expect(ran.stdout).toContain('Next:\n  npm install\n');
  });

  it('quotes a folder for the shell in the cd it prints, and takes a scoped --name', async () => {
    const ran = await agenttool(work, 'init', "Ada's tools", '--name', '@ada/tools');
    expect(ran.stdout).toContain("Next:\n  cd 'Ada'\\''s tools'\n");
    const project = join(work, "Ada's tools");
    expect(json(project, 'package.json')['name']).toBe('@ada/tools');
  });
});

describe('agenttool init refuses', () => {
  it('a folder that is not empty, naming what is there, and writes nothing', async () => {
    writeFileSync(join(work, 'notes.txt'), 'mine');
    const ran = await agenttool(work, 'init');
    expect(ran.code).toBe(2);
    expect(ran.stderr).toBe(
      'agenttool init: . is not empty (it holds notes.txt); give a new or empty folder, or add --force to add the files it lacks and keep every file it has\n',
    );
    expect(readdirSync(work)).toEqual(['notes.txt']);
    // An empty name is the working directory, and said so.
    const empty = await agenttool(work, 'init', '');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^agenttool init: \. is not empty/);
  });

  it('a file for a folder, a name npm refuses, and two module kinds at once', async () => {
    writeFileSync(join(work, 'file'), '');
    expect((await agenttool(work, 'init', 'file')).stderr).toBe(
      'agenttool init: file is a file; give a folder\n',
    );
    expect((await agenttool(work, 'init', 'x', '--name', 'Bad Name')).stderr).toBe(
      'agenttool init: --name "Bad Name" is not an npm package name: lower case letters, digits and - . _ ~, optionally @scope/name\n',
    );
    const both = await agenttool(work, 'init', 'x', '--esm', '--cjs');
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/option '--esm' cannot be used with option '--cjs'/);
    expect(readdirSync(work)).toEqual(['file']);
  });

  it('a package.json that is not JSON, or whose type the flag contradicts, before writing', async () => {
    writeFileSync(join(work, 'package.json'), '{ "name": ');
    const broken = await agenttool(work, 'init', '--force');
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/^agenttool init: package\.json is not valid JSON \(/);
    writeFileSync(join(work, 'package.json'), '{ "type": "commonjs" }');
    expect((await agenttool(work, 'init', '--force', '--esm')).stderr).toBe(
      'agenttool init: package.json says "type": "commonjs", and --esm asks for ES modules; drop the flag to follow package.json, or change its type first\n',
    );
    expect(readdirSync(work)).toEqual(['package.json']);
  });
});

describe('agenttool init --force', () => {
  it('refuses, before writing, a file where a folder of the project goes', async () => {
    writeFileSync(join(work, 'src'), 'not a folder');
    const ran = await agenttool(work, 'init', '--force');
    expect(ran.code).toBe(2);
    expect(ran.stderr).toBe(
      'agenttool init: ./src is a file, where src/greet.ts goes; move it, or init another folder\n',
    );
    expect(readdirSync(work)).toEqual(['src']);
  });

  it("adds what an npm init project lacks, keeps the user's files, and says so", async () => {
    const mine = {
      name: 'mine',
      version: '1.0.0',
      main: 'index.js',
      type: 'commonjs',
      scripts: { test: 'echo "Error: no test specified" && exit 1', build: 'make' },
      keywords: [],
    };
    writeFileSync(join(work, 'package.json'), JSON.stringify(mine, null, 2));
    writeFileSync(join(work, 'README.md'), '# mine\n');
    writeFileSync(
      join(work, 'tsconfig.json'),
      '{ "compilerOptions": { "experimentalDecorators": true } }',
    );
    const ran = await agenttool(work, 'init', '--force');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/made mine, a CommonJS project, in this folder:/);
    expect(ran.stdout).toContain('README.md          what each script does (yours, kept)');
    expect(ran.stderr.split('\n').filter(Boolean)).toEqual([
      'agenttool init: package.json: kept your scripts.build ("make"); agenttool init would write "tsc"',
      `agenttool init: package.json: replaced npm's placeholder scripts.test with "tsc && node --test \\"dist/**/*.test.js\\""`,
      'agenttool init: kept tsconfig.json: it exists, and agenttool init does not overwrite a file',
      'agenttool init: tsconfig.json does not set "emitDecoratorMetadata": true, which agenttool\'s decorators need; add it to compilerOptions',
      'agenttool init: kept README.md: it exists, and agenttool init does not overwrite a file',
    ]);
    expect(read(work, 'README.md')).toBe('# mine\n');
    const merged = json(work, 'package.json');
    // The user's keys first and in their order, the project's added after.
    expect(Object.keys(merged)).toEqual([
      'name',
      'version',
      'main',
      'type',
      'scripts',
      'keywords',
      'dependencies',
      'devDependencies',
      'engines',
      'allowScripts',
    ]);
    expect(merged['scripts']).toEqual({
      test: 'tsc && node --test "dist/**/*.test.js"',
      build: 'make',
      dev: 'agenttool dev src/greet.ts',
      start: 'agenttool serve dist/greet.js',
    });
    expect(read(work, 'src/greet.ts')).toBe(read(ROOT, 'samples/readme/greet.ts'));
    expect(readdirSync(work).filter((f) => f.includes('agenttool-init'))).toEqual([]);
  });
});
