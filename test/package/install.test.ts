/**
 * The package as a user gets it. It is packed from a copy of this checkout, so that
 * `prepack` builds it as it would from a fresh clone (once for the same files: see
 * PACK_CACHE), and installed with
 * `npm install <tarball>` into new projects: one that follows the README's first screen
 * as a new user would, command by command (`agenttool init`, its tests, a build, a tool
 * call), through to the client configurations it writes and the README gives; and one
 * CommonJS and one ES module project, where the
 * examples of the README and the guides compile with the README's tsconfig.json and run,
 * and where every entry but the framework adapters compiles with `skipLibCheck: false`
 * and no optional peer installed.
 * It runs on the Node that runs Jest, which CI makes Node 22 and then Node 24. npm and
 * tsc make it slow: an integration test, self-contained so that it can run in a project
 * of its own.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const OURS = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { types: string; default: string }>;
  main: string;
  types: string;
  bin: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};
// The TypeScript this repository builds with, and the newest major that
// `npm install typescript` gives today: the CommonJS project uses one, the ES module
// project the other.
const OUR_TYPESCRIPT = OURS.devDependencies.typescript!;
const NEWEST_TYPESCRIPT = '7.0.2';
const TYPES_NODE = OURS.devDependencies['@types/node']!;
const MINUTES = 60_000;
/** The optional peers, which npm does not install with agenttool. */
const OPTIONAL_PEERS = Object.entries(OURS.peerDependenciesMeta)
  .filter(([, meta]) => meta.optional === true)
  .map(([peer]) => peer);
/** The entries that need no optional peer: all but the framework adapters. */
const PEERLESS_ENTRIES = Object.keys(OURS.exports)
  .filter((key) => !['./package.json', './nest', './ai-sdk', './openai-agents'].includes(key))
  .map((key) => `agenttool${key.slice(1)}`);

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

// The variables npm sets for the script that runs this test describe this package; a
// child npm working on another project must not see them.
const env = Object.fromEntries(
  Object.entries(process.env).filter(
    ([key]) =>
      !/^npm_(package|lifecycle)_/.test(key) &&
      !['npm_config_local_prefix', 'npm_command', 'npm_config_call', 'INIT_CWD'].includes(key),
  ),
);

function run(command: string, args: readonly string[], cwd: string): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd, env, maxBuffer: 64 * 1024 * 1024, timeout: 8 * MINUTES },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Runs a command that must succeed; its output is in the error when it does not. */
async function succeed(command: string, args: readonly string[], cwd: string): Promise<string> {
  const ran = await run(command, args, cwd);
  if (ran.code !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} (in ${cwd}) exited ${ran.code}\n${ran.stdout}\n${ran.stderr}`,
    );
  }
  return ran.stdout;
}

const npm = (args: readonly string[], cwd: string) =>
  succeed('npm', [...args, '--prefer-offline', '--no-audit', '--no-fund'], cwd);
/** Runs the project's own tsc, in `cwd` (the project by default). */
const tsc = (project: string, args: readonly string[], cwd = project) =>
  run(process.execPath, [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), ...args], cwd);

/** A code block of a page (the README by default), as the `<!-- marker -->` before it names it. */
function readmeBlock(marker: string, language: string, page = 'README.md'): string {
  const text = page === 'README.md' ? README : readFileSync(join(ROOT, page), 'utf8');
  const escaped = marker.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const block = new RegExp(`<!-- ${escaped} -->\\n+\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(
    text,
  )?.[1];
  if (block === undefined) throw new Error(`${page} has no block after <!-- ${marker} -->`);
  return block;
}

/**
 * The samples of the README and the guides that the projects below compile and run, by
 * the page that shows each; the greeter's server imports the README's greeter beside it.
 */
const EXAMPLES: Record<string, { page: string; file: string }> = {
  greet: { page: 'README.md', file: 'samples/readme/greet.ts' },
  'serve-greeter': { page: 'docs/serving.md', file: 'samples/docs/serve-greeter.ts' },
  remote: { page: 'docs/client.md', file: 'samples/docs/remote.ts' },
  context: { page: 'docs/tools.md', file: 'samples/docs/context.ts' },
  results: { page: 'docs/tools.md', file: 'samples/docs/results.ts' },
};

/** Writes the named examples into the project's src/, as an ES module project when `esm`. */
function writeExamples(project: string, names: readonly string[], esm: boolean): void {
  for (const name of names) {
    const { page, file } = EXAMPLES[name]!;
    const source = readmeBlock(`file: ${file}`, 'ts', page).replace(
      "from '../readme/greet';",
      esm ? "from './greet.js';" : "from './greet';",
    );
    write(join(project, 'src', `${name}.ts`), source);
  }
}

function write(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

let work: string;
let tarball: string;
let packed: string[];

/**
 * Where packs are kept, by the digest of what made them: CI runs this file on Node 22
 * and then on Node 24, and the second run takes the tarball the first one packed from
 * the same bytes, instead of building the same package again (about 25 s).
 */
const PACK_CACHE = join(ROOT, 'node_modules', '.cache', 'agenttool-package');

/**
 * Copies what a clone holds (tracked files and new ones not ignored) and packs it, or
 * takes the tarball packed before from the same files and the same installed tree.
 */
async function packCheckout(): Promise<void> {
  const listed = await succeed('git', ['ls-files', '-z', '-co', '--exclude-standard'], ROOT);
  const files = listed.split('\0').filter((file) => file !== '' && existsSync(join(ROOT, file)));
  // What prepack reads: the files, and the compilers and bundler of the installed tree
  // (npm records it in node_modules/.package-lock.json).
  const digest = createHash('sha256');
  for (const file of [...files, 'node_modules/.package-lock.json']) {
    const path = join(ROOT, file);
    digest.update(`${file}\0`);
    if (existsSync(path) && statSync(path).isFile()) digest.update(readFileSync(path));
    digest.update('\0');
  }
  const cached = join(PACK_CACHE, digest.digest('hex'));
  if (!existsSync(join(cached, 'pack.json'))) {
    const checkout = join(work, 'checkout');
    for (const file of files) cpSync(join(ROOT, file), join(checkout, file));
    symlinkSync(join(ROOT, 'node_modules'), join(checkout, 'node_modules'), 'dir');
    const out = await npm(['pack', '--json', '--pack-destination', work], checkout);
    const [result] = JSON.parse(out.slice(out.indexOf('['))) as {
      filename: string;
      files: { path: string }[];
    }[];
    // One entry is kept: a pack of another tree will not be asked for again. pack.json is
    // written last, so that a run stopped halfway leaves no entry that looks whole.
    rmSync(PACK_CACHE, { recursive: true, force: true });
    mkdirSync(cached, { recursive: true });
    cpSync(join(work, result!.filename), join(cached, result!.filename));
    writeFileSync(join(cached, 'pack.json'), JSON.stringify(result));
  }
  const result = JSON.parse(readFileSync(join(cached, 'pack.json'), 'utf8')) as {
    filename: string;
    files: { path: string }[];
  };
  tarball = join(work, result.filename);
  cpSync(join(cached, result.filename), tarball);
  packed = result.files.map((f) => f.path).sort();
}

/** A new project with the package installed as the README's "In a project of your own" says. */
async function newProject(
  name: string,
  manifest: Record<string, unknown>,
  typescript: string,
): Promise<string> {
  const dir = join(work, name);
  write(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', ...manifest }));
  await npm(['install', tarball, 'reflect-metadata'], dir);
  await npm(
    ['install', '--save-dev', `typescript@${typescript}`, `@types/node@${TYPES_NODE}`],
    dir,
  );
  write(join(dir, 'tsconfig.json'), readmeBlock('install: tsconfig.json', 'json'));
  return dir;
}

/**
 * The CommonJS project below, made once: its installed package is also the `agenttool`
 * command that the first screen's `npx agenttool init` runs (npx would fetch the same
 * package from the registry into a cache of its own).
 */
let commonJs: Promise<string> | undefined;
const commonJsProject = () => (commonJs ??= newProject('greeter-cjs', {}, OUR_TYPESCRIPT));

/** Compiles the README's greeter alone with the config that `tsc --init` writes. */
async function compileWithInitConfig(project: string, flags: readonly string[]): Promise<Ran> {
  const dir = join(project, 'init-config');
  if (!existsSync(join(dir, 'tsconfig.json'))) {
    mkdirSync(dir, { recursive: true });
    await tsc(project, ['--init'], dir);
    write(join(dir, 'greet.ts'), readmeBlock('file: samples/readme/greet.ts', 'ts'));
  }
  return tsc(project, ['-p', dir, '--noEmit', ...flags]);
}

/** The optional peers installed in the project or under agenttool (none, as npm installs it). */
function optionalPeersIn(project: string): string[] {
  const folders = [
    join(project, 'node_modules'),
    join(project, 'node_modules', 'agenttool', 'node_modules'),
  ];
  return OPTIONAL_PEERS.filter((peer) => folders.some((folder) => existsSync(join(folder, peer))));
}

/** No optional peer is installed in `project`, and its entries compile with lib checks on. */
/**
 * A check of the package's declarations alone: tsc's answer does not depend on the Node
 * that runs it, so it runs once, on Node 24 (CI runs this folder on Node 22 too).
 */
const typesTest = Number(process.versions.node.split('.')[0]) >= 24 ? it : it.skip;

async function expectStrictLibCheck(project: string): Promise<void> {
  expect(optionalPeersIn(project)).toEqual([]);
  const compiled = await compileWithLibCheck(project);
  expect(compiled.stdout).toBe('');
  expect(compiled.code).toBe(0);
}

/**
 * Compiles a decorated tool and an import of each entry that needs no optional peer with
 * `strict` and `skipLibCheck: false`, as libraries and strict monorepos do: every
 * declaration those entries reach is checked, so none may name a package that is not
 * installed.
 */
async function compileWithLibCheck(project: string): Promise<Ran> {
  const dir = join(project, 'lib-check');
  write(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2022',
        module: 'nodenext',
        types: ['node'],
        strict: true,
        skipLibCheck: false,
        noEmit: true,
        experimentalDecorators: true,
        emitDecoratorMetadata: true,
      },
      include: ['*.ts'],
    }),
  );
  write(
    join(dir, 'tool.ts'),
    `import { Param, Tool, toolFromInstance } from 'agenttool';
${PEERLESS_ENTRIES.map((entry, i) => `import * as entry${i} from '${entry}';`).join('\n')}

class GreetArgs {
  @Param('Who to greet')
  name!: string;
}

@Tool({ name: 'greet', description: 'Greets someone by name', args: GreetArgs })
class Greet {
  execute(args: GreetArgs): string {
    return \`Hello, \${args.name}!\`;
  }
}

export const greet = toolFromInstance(new Greet());
export const entries = [${PEERLESS_ENTRIES.map((_, i) => `entry${i}`).join(', ')}];
`,
  );
  return tsc(project, ['-p', dir]);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'agenttool-package-'));
  await packCheckout();
}, 10 * MINUTES);

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

/** The licenses of the code the bundle holds (scripts/bundle.js, writeThirdPartyLicenses). */
const THIRD_PARTY = 'dist/pkg/third-party-licenses.txt';

describe('the packed package', () => {
  it("holds the bundle, the declarations, the README, the LICENSE and the bundled code's licenses, and nothing else", () => {
    // agenttool/code-cache's declarations are written by hand, beside its entry.
    const handWritten = Object.values(OURS.exports)
      .flatMap((target) => (typeof target === 'string' ? [] : [target.types]))
      .map((target) => target.replace(/^\.\//, ''))
      .filter((target) => target.startsWith('dist/pkg/'));
    expect(handWritten).toEqual(['dist/pkg/code-cache-entry.d.ts']);
    const unexpected = packed.filter(
      (file) =>
        !/^dist\/pkg\/.+\.js$/.test(file) &&
        !/^dist\/src\/.+\.d\.ts$/.test(file) &&
        !handWritten.includes(file) &&
        !['LICENSE', 'README.md', 'package.json', THIRD_PARTY].includes(file),
    );
    expect(unexpected).toEqual([]);
    expect(packed).toEqual(
      expect.arrayContaining(['LICENSE', 'README.md', 'package.json', THIRD_PARTY]),
    );
    const targets = [
      OURS.main,
      OURS.types,
      ...Object.values(OURS.bin),
      ...Object.values(OURS.exports).flatMap((t) =>
        typeof t === 'string' ? [] : [t.types, t.default],
      ),
    ].map((target) => target.replace(/^\.\//, ''));
    expect(packed).toEqual(expect.arrayContaining(targets));
    // tsc's JavaScript stays out: the bundle is the one copy of the code.
    expect(packed.filter((f) => f.startsWith('dist/src/') && f.endsWith('.js'))).toEqual([]);
  });
});

describe("the README's first screen, followed in a new folder", () => {
  let project: string;
  // The Node that runs Jest comes first on the PATH of every command, so that npm, npx
  // and the agenttool command all run on it; npm works from its cache where it can.
  const shellEnv = {
    ...env,
    PATH: `${dirname(process.execPath)}:${env.PATH ?? ''}`,
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    // npm's check for a newer npm prints on stderr, which the commands' checks read.
    npm_config_update_notifier: 'false',
  };
  const shell = (line: string, cwd = project) =>
    new Promise<Ran>((resolve) => {
      execFile(
        'sh',
        ['-c', line],
        { cwd, env: shellEnv, maxBuffer: 64 * 1024 * 1024, timeout: 8 * MINUTES },
        (error, stdout, stderr) => {
          const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
          resolve({ code, stdout, stderr });
        },
      );
    });
  const quoted = (text: string) => `'${text.replace(/'/g, "'\\''")}'`;
  const lines = (block: string) => block.split('\n').filter((line) => line.trim() !== '');
  /** The packed package's `agenttool` command, installed. */
  let agenttool: string;
  /** What each command of the first screen printed, by its line. */
  const printed = new Map<string, Ran>();
  /** The last command's output. */
  let lastOutput: Ran;
  /** The client configurations init wrote, by file. */
  const initConfigs = new Map<string, string>();

  /**
   * Serves the project with the command and arguments a client configuration gives,
   * started in `cwd` as the client would start it, and calls the tool through it.
   */
  async function serveAs(command: string, args: readonly string[], cwd: string): Promise<Ran> {
    // Beside the project, so that it requires the project's agenttool.
    const client = join(project, 'client.cjs');
    if (!existsSync(client)) {
      write(
        client,
        `const { createContext } = require('agenttool');
const { connectMcp } = require('agenttool/mcp');

(async () => {
  const [command, args] = [process.argv[2], JSON.parse(process.argv[3])];
  const remote = await connectMcp({ transport: { command, args } });
  try {
    const greet = remote.tools().find((tool) => tool.name === 'greet');
    const call = { id: 'call_1', args: '{"name":"Ada"}' };
    console.log((await greet.execute(call, createContext({ call }))).output);
  } finally {
    await remote.close();
  }
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
`,
      );
    }
    return shell(`node ${quoted(client)} ${quoted(command)} ${quoted(JSON.stringify(args))}`, cwd);
  }

  beforeAll(async () => {
    agenttool = join(await commonJsProject(), 'node_modules', '.bin', 'agenttool');
    // A new, empty folder; each command as it stands, in order, and each must succeed.
    let cwd = join(work, 'first-screen');
    mkdirSync(cwd);
    for (const line of lines(readmeBlock('first-screen: commands', 'sh'))) {
      const into = /^cd (\S+)$/.exec(line)?.[1];
      if (into !== undefined) {
        cwd = join(cwd, into);
        continue;
      }
      // npx fetches agenttool and runs its command: here the packed one; npm install
      // takes the packed tarball in place of the registry's agenttool.
      const command = line.startsWith('npx agenttool init ')
        ? `${quoted(agenttool)} ${line.slice('npx agenttool '.length)}`
        : line === 'npm install'
          ? `npm install ${quoted(tarball)}`
          : line;
      lastOutput = await shell(command, cwd);
      printed.set(line, lastOutput);
      if (lastOutput.code !== 0) {
        throw new Error(
          `${line} exited ${lastOutput.code}:\n${lastOutput.stdout}${lastOutput.stderr}`,
        );
      }
    }
    project = cwd;
    // As init wrote them: the README's install commands below add their own entries.
    for (const file of ['.mcp.json', '.vscode/mcp.json']) {
      initConfigs.set(file, readFileSync(join(project, file), 'utf8'));
    }
  }, 10 * MINUTES);

  it('runs on the Node that runs the tests', async () => {
    expect((await shell('node --version')).stdout.trim()).toBe(process.version);
  });

  it('starts with agenttool init, and goes on with the commands it prints', () => {
    const [first, ...rest] = lines(readmeBlock('first-screen: commands', 'sh'));
    expect(first).toMatch(/^npx agenttool init \S+$/);
    const made = printed.get(first!)!.stdout;
    const next = made.slice(made.indexOf('\nNext:\n') + 7);
    expect(lines(next).map((line) => line.trim())).toEqual(rest);
  });

  it('installs the peer dependencies with agenttool alone', () => {
    for (const peer of ['reflect-metadata', 'class-validator', 'class-transformer']) {
      expect({ peer, installed: existsSync(join(project, 'node_modules', peer)) }).toEqual({
        peer,
        installed: true,
      });
    }
  });

  it('passes the tests init wrote, through agenttool/testing in both eras', () => {
    // node --test prints TAP when its output is not a terminal on Node 22, and its spec
    // reporter on Node 24.
    const tested = printed.get('npm test')!.stdout;
    expect(tested).toMatch(/^(?:# |ℹ )pass 4$/m);
    expect(tested).toMatch(/^(?:# |ℹ )fail 0$/m);
  });

  it('calls the tool and prints what the README says it prints', () => {
    expect(lastOutput.stderr).toBe('');
    expect(lastOutput.stdout).toBe(readmeBlock('first-screen: output', 'text'));
  });

  it(
    "serves the tool to each client the README's install commands configure, started from another folder",
    async () => {
      // A home of its own: the commands write the person's configuration files there.
      const home = mkdtempSync(join(work, 'home-'));
      const configs: Record<string, { file: string; key: string }> = {
        'claude-desktop': {
          file: join(home, '.config', 'Claude', 'claude_desktop_config.json'),
          key: 'mcpServers',
        },
        cursor: { file: join(home, '.cursor', 'mcp.json'), key: 'mcpServers' },
        vscode: { file: join(project, '.vscode', 'mcp.json'), key: 'servers' },
        'claude-code': { file: join(project, '.mcp.json'), key: 'mcpServers' },
      };
      const commands = lines(readmeBlock('mcp-install', 'sh'));
      expect(commands.map((line) => line.split(' ')[3])).toEqual(Object.keys(configs));
      // The client, as an MCP client application would: it starts the command in a folder
      // of its own, not the project's.
      for (const [i, line] of commands.entries()) {
        const client = Object.keys(configs)[i]!;
        const installed = await shell(`HOME=${quoted(home)} XDG_CONFIG_HOME= ${line}`);
        expect({ line, code: installed.code, stderr: installed.stderr }).toEqual({
          line,
          code: 0,
          stderr: '',
        });
        const { file, key } = configs[client]!;
        const config = JSON.parse(readFileSync(file, 'utf8')) as Record<
          string,
          Record<string, { type?: string; command: string; args: string[] }>
        >;
        const server = config[key]!['greet']!;
        expect(server.type ?? 'stdio').toBe('stdio');
        const ran = await serveAs(server.command, server.args, mkdtempSync(join(work, 'client-')));
        expect({ client, code: ran.code, stdout: ran.stdout }).toEqual({
          client,
          code: 0,
          stdout: 'Hello, Ada!\n',
        });
      }
    },
    4 * MINUTES,
  );

  it.each([
    // Claude Code expands ${VAR:-default} with its own environment, where
    // CLAUDE_PROJECT_DIR is unset, and starts the server in the project's folder.
    [
      '.mcp.json',
      'mcpServers',
      (arg: string) => arg.split('${CLAUDE_PROJECT_DIR:-.}').join('.'),
      true,
    ],
    // VS Code expands ${workspaceFolder}, and may start it anywhere.
    [
      '.vscode/mcp.json',
      'servers',
      (arg: string) => arg.split('${workspaceFolder}').join(project),
      false,
    ],
  ])(
    'serves the tool with npm start, as the %s init wrote starts it',
    async (file, key, expand, inProject) => {
      const config = JSON.parse(initConfigs.get(file)!) as Record<
        string,
        Record<string, { type: string; command: string; args: string[] }>
      >;
      const server = config[key]!['greet']!;
      expect(server.type).toBe('stdio');
      const cwd = inProject ? project : mkdtempSync(join(work, 'client-'));
      const ran = await serveAs(server.command, server.args.map(expand), cwd);
      expect({ code: ran.code, stdout: ran.stdout }).toEqual({ code: 0, stdout: 'Hello, Ada!\n' });
    },
    2 * MINUTES,
  );

  it(
    'serves the tool from source with npm run dev, on the SWC init pinned',
    async () => {
      const ran = await serveAs(
        'npm',
        ['--prefix', project, '--silent', 'run', 'dev'],
        mkdtempSync(join(work, 'client-')),
      );
      expect({ code: ran.code, stdout: ran.stdout }).toEqual({ code: 0, stdout: 'Hello, Ada!\n' });
    },
    2 * MINUTES,
  );

  // A CommonJS project differs from the ES module one only in how Node loads the same
  // compiled sources, which the projects below check on both Nodes: once, on Node 24.
  const onNode24 = Number(process.versions.node.split('.')[0]) >= 24 ? it : it.skip;
  onNode24(
    'makes a CommonJS project with --cjs whose tests pass too',
    async () => {
      const made = await shell(`${quoted(agenttool)} init greeter-cjs --cjs`, dirname(project));
      expect(made.code).toBe(0);
      const cjs = join(dirname(project), 'greeter-cjs');
      expect(JSON.parse(readFileSync(join(cjs, 'package.json'), 'utf8'))).toMatchObject({
        type: 'commonjs',
      });
      // The same dependencies, already installed.
      symlinkSync(join(project, 'node_modules'), join(cjs, 'node_modules'), 'dir');
      const tested = await shell('npm test', cjs);
      expect(tested.code).toBe(0);
      expect(tested.stdout).toMatch(/^(?:# |ℹ )pass 4$/m);
    },
    3 * MINUTES,
  );
});

describe('a CommonJS project', () => {
  let project: string;

  beforeAll(async () => {
    project = await commonJsProject();
    writeExamples(project, ['greet', 'serve-greeter', 'remote', 'context', 'results'], false);
    write(
      join(project, 'src', 'main.ts'),
      `import { importAsHost } from './context';
import { serveGreeter } from './serve-greeter';
import { greetRemotely } from './remote';

async function main(): Promise<void> {
  const greeter = await serveGreeter();
  try {
    console.log(await greetRemotely(greeter.url, 'Ada'));
  } finally {
    await greeter.stop();
  }
  console.log((await importAsHost(120, true)).output);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
`,
    );
    // Decorators of the project's own class-transformer and class-validator, which must
    // be the copies agenttool uses.
    write(
      join(project, 'src', 'peers.ts'),
      `import { createContext, Param, Tool, toolFromInstance } from 'agenttool';
import { Transform } from 'class-transformer';
import { MinLength } from 'class-validator';

class ShoutArgs {
  @Param('What to shout')
  @Transform(({ value }: { value: string }) => value.toUpperCase())
  @MinLength(3)
  words!: string;
}

@Tool({ name: 'shout', description: 'Shout', args: ShoutArgs })
class Shout {
  execute(args: ShoutArgs): string {
    return args.words;
  }
}

async function main(): Promise<void> {
  const tool = toolFromInstance(new Shout());
  for (const words of ['hey', 'no']) {
    const call = { id: words, args: JSON.stringify({ words }) };
    try {
      console.log((await tool.execute(call, createContext())).output);
    } catch (error) {
      console.log((error as Error).message);
    }
  }
}

void main();
`,
    );
  }, 10 * MINUTES);

  it('gets one copy of each peer dependency, shared with the project', () => {
    const peers = ['reflect-metadata', 'class-validator', 'class-transformer'];
    for (const peer of peers) {
      expect(existsSync(join(project, 'node_modules', peer, 'package.json'))).toBe(true);
    }
    const nested = join(project, 'node_modules', 'agenttool', 'node_modules');
    const own = existsSync(nested) ? readdirSync(nested) : [];
    expect(own.filter((name) => peers.includes(name))).toEqual([]);
  });

  it('fails to compile with the tsc --init config as the README says', async () => {
    const ran = await compileWithInitConfig(project, []);
    expect(ran.code).not.toBe(0);
    for (const code of ['TS1240', 'TS1295', 'TS1287']) expect(ran.stdout).toContain(code);
  });

  it('compiles the README examples with the README tsconfig and runs them', async () => {
    const compiled = await tsc(project, ['-p', '.']);
    expect(compiled.stdout).toBe('');
    expect(compiled.code).toBe(0);
    const ran = await run(process.execPath, ['dist/main.js'], project);
    expect(ran.stderr).toBe('');
    expect(ran.stdout).toBe('Hello, Ada!\nImported 120 rows\n');
  });

  typesTest(
    'compiles every entry but the adapters with skipLibCheck off and no optional peer installed',
    () => expectStrictLibCheck(project),
    // tsc checks every declaration file of the dependencies too: on a loaded machine,
    // longer than Jest's default bound.
    3 * MINUTES,
  );

  it("applies the project's own class-transformer and class-validator decorators", async () => {
    const ran = await run(process.execPath, ['dist/peers.js'], project);
    expect(ran.stdout).toBe(
      'HEY\ninvalid arguments: words: words must be longer than or equal to 3 characters\n',
    );
  });

  it('installs no framework, and each adapter entry resolves and names the peer it needs', async () => {
    // The frameworks are optional peers: npm installs none of them with agenttool.
    for (const peer of ['@nestjs/common', '@nestjs/core', 'ai', '@openai/agents']) {
      expect({ peer, installed: existsSync(join(project, 'node_modules', peer)) }).toEqual({
        peer,
        installed: false,
      });
    }
    write(
      join(project, 'adapters.js'),
      `for (const entry of ['agenttool/nest', 'agenttool/ai-sdk', 'agenttool/openai-agents']) {
  require.resolve(entry);
  try {
    require(entry);
    console.log(entry + ': loaded');
  } catch (error) {
    console.log(entry + ': ' + error.code + ': ' + error.message);
  }
}
`,
    );
    const ran = await run(process.execPath, ['adapters.js'], project);
    expect(ran.stderr).toBe('');
    expect(ran.stdout.trimEnd().split('\n')).toEqual([
      'agenttool/nest: MISSING_PEER: agenttool/nest: the package "@nestjs/common" is not installed; it is a peer dependency of this entry: npm install @nestjs/common@12 @nestjs/core@12 rxjs',
      'agenttool/ai-sdk: MISSING_PEER: agenttool/ai-sdk: the package "ai" is not installed; it is a peer dependency of this entry: npm install ai@7',
      'agenttool/openai-agents: MISSING_PEER: agenttool/openai-agents: the package "@openai/agents" is not installed; it is a peer dependency of this entry: npm install @openai/agents@0.20 zod@4',
    ]);
  });

  it('runs the agenttool command on the compiled module', async () => {
    const listed = await succeed('npx', ['--no', 'agenttool', 'list', 'dist/greet.js'], project);
    expect(listed).toMatch(/^greet +sha256:[0-9a-f]{64} /m);
    const called = await succeed(
      'npx',
      ['--no', 'agenttool', 'call', 'dist/greet.js', 'greet', '{"name":"Ada"}'],
      project,
    );
    expect(called).toBe('Hello, Ada!\n');
  });

  it('serves a folder as a workspace from the installed package, its bash in a sandbox', async () => {
    const folder = join(project, 'work');
    mkdirSync(folder);
    const called = await succeed(
      'npx',
      [
        '--no',
        'agenttool',
        'call',
        '--stdio',
        `npx --no agenttool workspace ${folder}`,
        'bash',
        JSON.stringify({ command: 'pwd; echo hi > f; cat f; touch ../outside 2>&1 | tail -1' }),
      ],
      project,
    );
    expect(called).toMatch(new RegExp(`^${folder}\\nhi\\n.*Read-only file system`));
    expect(existsSync(join(project, 'outside'))).toBe(false);
  });
});

describe('an ES module project', () => {
  let project: string;

  beforeAll(async () => {
    project = await newProject('greeter-esm', { type: 'module' }, NEWEST_TYPESCRIPT);
    writeExamples(project, ['greet', 'serve-greeter', 'remote'], true);
    write(
      join(project, 'src', 'main.ts'),
      `import { serveGreeter } from './serve-greeter.js';
import { greetRemotely } from './remote.js';

const greeter = await serveGreeter();
try {
  console.log(await greetRemotely(greeter.url, 'Ada'));
} finally {
  await greeter.stop();
}
`,
    );
    // Every export that require() sees, under the same name through import.
    write(
      join(project, 'exports.js'),
      `import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const missing = [];
for (const entry of ['agenttool', 'agenttool/di', 'agenttool/mcp', 'agenttool/shell', 'agenttool/workspace', 'agenttool/testing']) {
  const esm = await import(entry);
  const cjs = require(entry);
  if (esm.default !== cjs) missing.push(entry + ': default');
  for (const name of Object.keys(cjs)) {
    if (esm[name] !== cjs[name]) missing.push(entry + ': ' + name);
  }
}
console.log(JSON.stringify({ missing }));
`,
    );
  }, 10 * MINUTES);

  it('compiles the greeter with the README tsconfig and runs it', async () => {
    const compiled = await tsc(project, ['-p', '.']);
    expect(compiled.stdout).toBe('');
    expect(compiled.code).toBe(0);
    const ran = await run(process.execPath, ['dist/main.js'], project);
    expect(ran.stderr).toBe('');
    expect(ran.stdout).toBe('Hello, Ada!\n');
  });

  typesTest(
    'compiles every entry but the adapters with skipLibCheck off and no optional peer installed',
    () => expectStrictLibCheck(project),
    // tsc checks every declaration file of the dependencies too: on a loaded machine,
    // longer than Jest's default bound.
    3 * MINUTES,
  );

  it('imports every export of every entry by name', async () => {
    const ran = await run(process.execPath, ['exports.js'], project);
    expect(ran.stderr).toBe('');
    expect(JSON.parse(ran.stdout)).toEqual({ missing: [] });
  });

  it('compiles with the tsc --init config once the two decorator settings are added', async () => {
    const bare = await compileWithInitConfig(project, []);
    expect(bare.stdout).toContain('TS1240');
    expect(bare.stdout).not.toContain('TS1295');
    const fixed = await compileWithInitConfig(project, [
      '--experimentalDecorators',
      '--emitDecoratorMetadata',
    ]);
    expect(fixed.stdout).toBe('');
    expect(fixed.code).toBe(0);
  });
});
