// The code cache for the package's own files (scripts/code-cache.js), as a host starts
// the built command and an app that imports agenttool/code-cache first: none at the first
// start, made once the start is over, used by the next one; a cache V8 refuses (damaged)
// is compiled past and made again; files outside the package are left to Node, and so is
// everything where the cache's folder is not the user's alone. NODE_DEBUG=agenttool has
// the process say, for each file of the package it compiles, whether a cache was used.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import {
  APP,
  appProject,
  COMMONJS_APP,
  ensureBuilt,
  ES_MODULE_APP,
  killChildren,
  ROOT,
  type Running,
  startAgenttool,
  startNode,
  stdioOpening,
  tempDir,
} from '../cli/helpers';

const PACKAGE = join(ROOT, 'dist/pkg');

const MESSAGES = stdioOpening();
/** The code cache's folder in a cache home (XDG_CACHE_HOME). */
const EXECUTED = 'agenttool/node-compile-cache/executed';

interface Start {
  readonly stderr: string;
  readonly listed: readonly string[];
}

/**
 * `agenttool serve APP` over stdio with `cacheHome` as XDG_CACHE_HOME, through a list;
 * with `untilWritten`, kept running until it says its caches are written.
 */
function start(cacheHome: string, untilWritten: boolean): Promise<Start> {
  const server = startAgenttool(['serve', APP], {
    env: { XDG_CACHE_HOME: cacheHome, NODE_DEBUG: 'agenttool' },
  });
  return listThenEnd(server, untilWritten);
}

/** A host's opening and list to a started stdio server, then its stdin closed. */
async function listThenEnd(server: Running, untilWritten: boolean): Promise<Start> {
  server.stdin.write(MESSAGES);
  let stdout = '';
  await new Promise<void>((resolve) => {
    server.process.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.includes('"id":2')) resolve();
    });
  });
  // Written in one go: the first line says they all are.
  if (untilWritten) await server.waitForStderr(/code cache written for /);
  server.stdin.end();
  const ran = await server.done;
  expect(ran.code).toBe(0);
  const list = stdout.split('\n').find((line) => line.includes('"id":2'))!;
  const tools = (JSON.parse(list) as { result: { tools: { name: string }[] } }).result.tools;
  return { stderr: ran.stderr, listed: tools.map((tool) => tool.name) };
}

/** How each file of the package was compiled, by its path in the package. */
function compiled(stderr: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const [, how, file] of stderr.matchAll(/agenttool: code cache (\w+) for (\S+)\n/g)) {
    if (file!.startsWith(`${PACKAGE}/`)) found.set(file!.slice(PACKAGE.length + 1), how!);
  }
  return found;
}

/** The cache files made, in the one folder of this Node and build. */
function cacheFiles(cacheHome: string): string[] {
  const executed = join(cacheHome, EXECUTED);
  const folders = readdirSync(executed);
  expect(folders).toHaveLength(1);
  return readdirSync(join(executed, folders[0]!)).map((name) => join(executed, folders[0]!, name));
}

beforeAll(() => ensureBuilt(), 300_000);
afterAll(() => killChildren());

test('made after the first start, used by the next; a damaged one is compiled past and made again', async () => {
  const cacheHome = tempDir();
  const first = await start(cacheHome, true);
  expect(first.listed).toEqual(['echo', 'count', 'ask', 'visit', 'fail', 'note', 'wait', 'stall']);
  const firstCompiled = compiled(first.stderr);
  const executor = [...firstCompiled.keys()].find((file) => /^chunks\/executor-/.test(file))!;
  expect(firstCompiled.get(executor)).toBe('none');
  expect([...firstCompiled.values()].every((how) => how === 'none')).toBe(true);
  // The command's one dynamic import() (of module files) is a file of its own, which Node
  // compiles, as the served module file, which is not the package's; cli.js gets the cache.
  expect(firstCompiled.has('import-file.js')).toBe(false);
  expect(firstCompiled.get('cli.js')).toBe('none');
  const named = [
    ...first.stderr.matchAll(/agenttool: code cache (?:none|used|refused) for (\S+)\n/g),
  ];
  expect(named.length).toBe(firstCompiled.size);
  const files = cacheFiles(cacheHome);
  expect(files.length).toBe(firstCompiled.size);

  const second = await start(cacheHome, false);
  expect(second.listed).toEqual(first.listed);
  const secondCompiled = compiled(second.stderr);
  expect([...secondCompiled.keys()].sort()).toEqual([...firstCompiled.keys()].sort());
  expect([...secondCompiled.values()].every((how) => how === 'used')).toBe(true);
  // cli.js compiled apart, with no dynamic import of its own: no experimental hook used.
  expect(second.stderr).not.toContain('ExperimentalWarning');

  const damaged = files.find((file) => /\/chunks~executor-[\w-]+\.js-\d+-\d+-\d+$/.test(file))!;
  writeFileSync(damaged, Buffer.from('not a code cache'));
  const third = await start(cacheHome, true);
  expect(third.listed).toEqual(first.listed);
  expect(compiled(third.stderr).get(executor)).toBe('refused');
  expect(readFileSync(damaged).toString()).not.toBe('not a code cache');
}, 60_000);

test('a cache folder that cannot be made leaves the package to Node', async () => {
  // A file where the folder would be: no cache can be written, so none is compiled for.
  const cacheHome = tempDir();
  mkdirSync(join(cacheHome, 'agenttool/node-compile-cache'), { recursive: true });
  writeFileSync(join(cacheHome, 'agenttool/node-compile-cache/executed'), 'in the way');
  const started = await start(cacheHome, false);
  expect(started.listed).toContain('echo');
  expect(started.stderr).toMatch(/code cache off: \S+\/executed is not a directory\n/);
  expect(compiled(started.stderr).size).toBe(0);
});

/** `node <args>` in `dir` with `cacheHome` as XDG_CACHE_HOME, through a list. */
function startApp(
  dir: string,
  args: readonly string[],
  cacheHome: string,
  untilWritten: boolean,
  env: Record<string, string> = {},
): Promise<Start> {
  const server = startNode(args, {
    cwd: dir,
    env: { XDG_CACHE_HOME: cacheHome, NODE_DEBUG: 'agenttool', ...env },
  });
  return listThenEnd(server, untilWritten);
}

describe('an app that imports agenttool/code-cache first', () => {
  test.each([
    ['a CommonJS app', 'app.cjs', COMMONJS_APP, ['app.cjs']],
    ['an ES module app', 'app.mjs', ES_MODULE_APP, ['app.mjs']],
    [
      'an app started with --require agenttool/code-cache',
      'app.cjs',
      COMMONJS_APP.replace("require('agenttool/code-cache')", 'exports'),
      ['--require', 'agenttool/code-cache', 'app.cjs'],
    ],
  ])(
    '%s: its first start makes the cache of the files it loaded, the next one uses it',
    async (_name, file, text, args) => {
      const dir = appProject(file, text);
      const cacheHome = tempDir();
      const first = await startApp(dir, args, cacheHome, true);
      expect(first.listed).toEqual(['echo']);
      const folders = readdirSync(join(cacheHome, EXECUTED));
      expect(folders).toHaveLength(1);
      if (!args.includes('--require')) {
        expect(first.stderr).toContain(
          `app: code cache folder ${join(cacheHome, EXECUTED, folders[0]!)}\n`,
        );
      }
      const firstCompiled = compiled(first.stderr);
      expect([...firstCompiled.keys()]).toEqual(
        expect.arrayContaining(['index.js', 'mcp.js', expect.stringMatching(/^chunks\//)]),
      );
      expect([...firstCompiled.values()].every((how) => how === 'none')).toBe(true);
      expect(cacheFiles(cacheHome)).toHaveLength(firstCompiled.size);

      const second = await startApp(dir, args, cacheHome, false);
      expect(second.listed).toEqual(['echo']);
      const secondCompiled = compiled(second.stderr);
      expect([...secondCompiled.keys()].sort()).toEqual([...firstCompiled.keys()].sort());
      expect([...secondCompiled.values()].every((how) => how === 'used')).toBe(true);
    },
    60_000,
  );

  test('with NODE_DISABLE_COMPILE_CACHE=1 it is off, and the app starts as before', async () => {
    const dir = appProject('app.cjs', COMMONJS_APP);
    const cacheHome = tempDir();
    const started = await startApp(dir, ['app.cjs'], cacheHome, false, {
      NODE_DISABLE_COMPILE_CACHE: '1',
    });
    expect(started.listed).toEqual(['echo']);
    expect(started.stderr).toContain('app: code cache folder undefined\n');
    expect(compiled(started.stderr).size).toBe(0);
  });

  // The cache is code the next start runs: a folder another user can write to (or owns)
  // could hold theirs. Nothing in it is read; a cache planted there, even a damaged one
  // that V8 would refuse, is not even offered to V8.
  type Spoil = [string, (dir: string) => void, RegExp];
  const untrusted: Spoil[] = [
    [
      'a folder any user can write to',
      (dir) => chmodSync(dir, 0o777),
      /code cache off: \S+ can be written by any user/,
    ],
  ];
  // Another user's or group's folder: only root can make one for the test.
  const untrustedAsRoot: Spoil[] = [
    [
      "another user's folder",
      (dir) => chownSync(dir, 65534, 65534),
      /code cache off: \S+ belongs to user 65534, not 0/,
    ],
    [
      "a folder its group can write to, of a group that is not the user's own",
      (dir) => {
        chmodSync(dir, 0o775);
        chownSync(dir, 0, 1);
      },
      /code cache off: \S+ can be written by group 1\n/,
    ],
  ];
  const asRoot = process.getuid?.() === 0 ? test : test.skip;
  const spoiled = async (spoil: (dir: string) => void, said: RegExp): Promise<void> => {
    const dir = appProject('app.cjs', COMMONJS_APP);
    const cacheHome = tempDir();
    const first = await startApp(dir, ['app.cjs'], cacheHome, true);
    expect(first.listed).toEqual(['echo']);
    for (const file of cacheFiles(cacheHome)) writeFileSync(file, 'planted');
    spoil(join(cacheHome, EXECUTED));

    const second = await startApp(dir, ['app.cjs'], cacheHome, false);
    expect(second.listed).toEqual(['echo']);
    expect(second.stderr).toMatch(said);
    expect(second.stderr).toContain('app: code cache folder undefined\n');
    expect(compiled(second.stderr).size).toBe(0);
  };
  test.each(untrusted)(
    'in %s, nothing of the package is compiled with a cache',
    (_name, spoil, said) => spoiled(spoil, said),
    60_000,
  );
  asRoot.each(untrustedAsRoot)(
    'in %s, nothing of the package is compiled with a cache (as root)',
    (_name, spoil, said) => spoiled(spoil, said),
    60_000,
  );

  test('under a folder another user can write to, neither cache is turned on', async () => {
    // Whoever can write the folder above could put a folder of theirs in the cache's place.
    const shared = join(tempDir(), 'shared');
    mkdirSync(shared, { mode: 0o777 });
    chmodSync(shared, 0o777);
    const cacheHome = join(shared, 'cache');
    const dir = appProject('app.cjs', COMMONJS_APP);
    const started = await startApp(dir, ['app.cjs'], cacheHome, false);
    expect(started.listed).toEqual(['echo']);
    expect(started.stderr).toContain(
      `agenttool: compile cache off: ${shared} can be written by any user\n`,
    );
    expect(started.stderr).toContain('app: code cache folder undefined\n');
    expect(compiled(started.stderr).size).toBe(0);
    // Checked before anything was made in it.
    expect(readdirSync(shared)).toEqual([]);
  });

  test('under a sticky folder any user can write to (as /tmp), and through a link, the cache is used', async () => {
    const sticky = join(tempDir(), 'sticky');
    mkdirSync(sticky);
    chmodSync(sticky, 0o1777);
    const linked = join(tempDir(), 'linked-cache-home');
    symlinkSync(sticky, linked);
    const dir = appProject('app.cjs', COMMONJS_APP);
    await startApp(dir, ['app.cjs'], linked, true);
    const second = await startApp(dir, ['app.cjs'], linked, false);
    expect(second.listed).toEqual(['echo']);
    // The folder it names is the real one, links resolved.
    expect(second.stderr).toContain(`app: code cache folder ${join(sticky, EXECUTED)}/`);
    const secondCompiled = compiled(second.stderr);
    expect(secondCompiled.size).toBeGreaterThan(0);
    expect([...secondCompiled.values()].every((how) => how === 'used')).toBe(true);
  }, 60_000);

  // A group of the user's own: the test can make one only where the user's gid is their uid.
  const ownGroup = process.getgid?.() === process.getuid?.() ? test : test.skip;
  ownGroup(
    "in a folder its group can write to, where the group is the user's own (uid and gid the same), the cache is used",
    async () => {
      const dir = appProject('app.cjs', COMMONJS_APP);
      const cacheHome = tempDir();
      await startApp(dir, ['app.cjs'], cacheHome, true);
      chmodSync(join(cacheHome, EXECUTED), 0o775);
      const second = await startApp(dir, ['app.cjs'], cacheHome, false);
      expect(second.listed).toEqual(['echo']);
      const secondCompiled = compiled(second.stderr);
      expect(secondCompiled.size).toBeGreaterThan(0);
      expect([...secondCompiled.values()].every((how) => how === 'used')).toBe(true);
    },
    60_000,
  );
});

test("a package file compiled with its cache keeps its lines: an error's stack names the line that threw", () => {
  // The cache is installed in a child as the command's launcher installs it, over the
  // package, with Node's compile cache on; an error thrown inside a chunk then names the
  // line of its `throw`.
  const cacheHome = tempDir();
  const script = `
    const { enableCompileCache } = require('node:module');
    enableCompileCache(${JSON.stringify(join(cacheHome, 'node-compile-cache'))});
    require(${JSON.stringify(join(PACKAGE, 'code-cache.js'))}).installCodeCache(${JSON.stringify(PACKAGE)}, 'test');
    const { toolFromInstance } = require(${JSON.stringify(join(PACKAGE, 'index.js'))});
    try { toolFromInstance(null); } catch (error) { console.log(error.stack); }
  `;
  const ran = spawnSync(process.execPath, ['-e', script], {
    encoding: 'utf8',
    env: { ...process.env, NODE_DEBUG: 'agenttool' },
  });
  // Compiled here, not by Node: the first start of this cache has none.
  expect(ran.stderr).toMatch(/code cache none for \S+\/chunks\/executor-[\w-]+\.js\n/);
  const frame = /\((\/[^():]+\/chunks\/[^():]+\.js):(\d+):\d+\)/.exec(ran.stdout);
  expect(frame).not.toBeNull();
  const line = readFileSync(frame![1]!, 'utf8').split('\n')[Number(frame![2]) - 1]!;
  expect(line).toContain('toolFromInstance takes an instance of a @Tool class');
});
