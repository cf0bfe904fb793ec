/**
 * The paths a sandboxed shell keeps read-only inside its writable paths, computed for
 * each writable root whatever the server's working directory: the sandbox runtime's
 * lists (held equal to its own here, so that an upgrade that changes them fails), its
 * rules at the root, and a bounded scan below it (depth, node_modules, directory count).
 */
import type * as LinuxUtils from '@anthropic-ai/sandbox-runtime/dist/sandbox/linux-sandbox-utils.js' with {
  'resolution-mode': 'import',
};
import type * as SandboxUtils from '@anthropic-ai/sandbox-runtime/dist/sandbox/sandbox-utils.js' with {
  'resolution-mode': 'import',
};
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  AGENT_CONFIG_DIRECTORIES,
  AGENT_CONFIG_FILES,
  HELD_WHEN_MISSING,
  PROTECTED_DIRECTORIES,
  PROTECTED_FILES,
  PROTECTED_SCAN_DEPTH,
  protectedPaths,
  withProtectedPaths,
  writeProtection,
} from '../../src/shell/protected-paths';
import { sandboxPolicy } from '../../src/shell/sandbox-policy';

/* eslint-disable @typescript-eslint/no-require-imports -- the runtime's inner files, deep */
const LIBRARY = dirname(require.resolve('@anthropic-ai/sandbox-runtime/package.json'));
const sandboxUtils =
  require('@anthropic-ai/sandbox-runtime/dist/sandbox/sandbox-utils.js') as typeof SandboxUtils;
const linuxUtils =
  require('@anthropic-ai/sandbox-runtime/dist/sandbox/linux-sandbox-utils.js') as typeof LinuxUtils;
/* eslint-enable @typescript-eslint/no-require-imports */

let work: string;

beforeEach(() => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'protected-paths-')));
});

afterEach(() => rmSync(work, { recursive: true, force: true }));

/** Makes `path` (relative to `root`) as a file, with its folders. */
function file(root: string, path: string, text = 'x'): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

/** What stands in for a missing name that is held all the same (see its own test). */
const STAND_IN = '/.agenttool-held';

/** `paths` but the stand-ins of missing held names. */
function withoutStandIns(paths: readonly string[]): string[] {
  return paths.filter((path) => !path.endsWith(STAND_IN));
}

/** The paths found under `root`, relative to it, stand-ins left out. */
async function found(root: string, options = {}): Promise<string[]> {
  const { paths } = await protectedPaths([root], options);
  return withoutStandIns(paths).map((path) => path.slice(root.length + 1));
}

const AT_ROOT = [...PROTECTED_FILES, ...PROTECTED_DIRECTORIES];

describe("the sandbox runtime's lists", () => {
  it('are ours, and the scan is as deep as its default', () => {
    expect(PROTECTED_FILES).toEqual(sandboxUtils.DANGEROUS_FILES);
    expect(PROTECTED_DIRECTORIES).toEqual(sandboxUtils.getDangerousDirectories());
    // Not exported: read from its source, where both the scan and the manager say it.
    const linux = readFileSync(join(LIBRARY, 'dist/sandbox/linux-sandbox-utils.js'), 'utf8');
    expect(/const DEFAULT_MANDATORY_DENY_SEARCH_DEPTH = (\d+);/.exec(linux)?.[1]).toBe(
      String(PROTECTED_SCAN_DEPTH),
    );
    const manager = readFileSync(join(LIBRARY, 'dist/sandbox/sandbox-manager.js'), 'utf8');
    expect(/config\?\.mandatoryDenySearchDepth \?\? (\d+)/.exec(manager)?.[1]).toBe(
      String(PROTECTED_SCAN_DEPTH),
    );
  });

  it.each([
    ['a repository', (root: string) => file(root, '.git/HEAD', 'ref: refs/heads/main\n')],
    ['a worktree (.git is a file)', (root: string) => file(root, '.git', 'gitdir: /elsewhere\n')],
    ['no repository', () => undefined],
  ])(
    'protect at a root what the runtime protects at its working directory, where it exists: %s',
    async (_name, make) => {
      const root = join(work, 'root');
      mkdirSync(root);
      make(root);
      file(root, '.profile');
      file(root, '.vscode/settings.json');
      if (existsSync(join(root, '.git', 'HEAD'))) file(root, '.git/config');
      const saved = process.cwd();
      let theirs: string[];
      try {
        process.chdir(root);
        theirs = linuxUtils.linuxGetCwdMandatoryDenyPaths(false);
      } finally {
        process.chdir(saved);
      }
      // From elsewhere: the working directory plays no part in ours. Theirs that exist,
      // and a repository's hooks there or not; a missing one of their lists would need a
      // stand-in made in the user's folder.
      const paths = withoutStandIns((await protectedPaths([root])).paths);
      const held = theirs.filter(
        (path) => existsSync(path) || path === join(root, '.git', 'hooks'),
      );
      expect(paths).toEqual(expect.arrayContaining(held));
      expect(paths.filter((path) => !existsSync(path))).toEqual(
        existsSync(join(root, '.git', 'HEAD')) ? [join(root, '.git', 'hooks')] : [],
      );
    },
  );
});

describe('protectedPaths', () => {
  it('holds a missing name that runs or instructs on its own by a folder standing in, the rest where they exist', async () => {
    const root = join(work, 'ws');
    file(root, '.claude/notes.md');
    file(root, '.idea/workspace.xml');
    const { paths } = await protectedPaths([root]);
    expect(AGENT_CONFIG_DIRECTORIES).toEqual([
      '.claude',
      '.cursor',
      '.gemini',
      '.qwen',
      '.codex',
      '.zed',
      '.kiro',
      '.amazonq',
      '.continue',
      '.roo',
      '.kilocode',
      '.windsurf',
      '.opencode',
      '.factory',
      '.junie',
      '.trae',
    ]);
    expect(AGENT_CONFIG_FILES).toEqual([
      '.mcp.json',
      'opencode.json',
      'opencode.jsonc',
      'crush.json',
      '.crush.json',
    ]);
    expect(HELD_WHEN_MISSING).toEqual([
      '.mcp.json',
      '.crush.json',
      '.vscode',
      '.idea',
      ...AGENT_CONFIG_DIRECTORIES,
    ]);
    // A path below each missing one makes the sandbox runtime stand an empty read-only
    // folder in for it, which git does not list. `.claude` is there: held whole, the
    // runtime's `.claude/commands` and `.claude/agents` with it, so no stand-in is made
    // in it.
    expect(paths.map((path) => path.slice(root.length + 1))).toEqual(
      [
        // Hidden: a stand-in for a plain name would show in every `ls` (the repository
        // guard moves such a file aside when a command makes it).
        '.mcp.json/.agenttool-held',
        '.crush.json/.agenttool-held',
        '.vscode/.agenttool-held',
        '.idea',
        '.claude',
        ...AGENT_CONFIG_DIRECTORIES.filter((name) => name !== '.claude').map(
          (name) => `${name}/.agenttool-held`,
        ),
      ].sort(),
    );
    // The shell start-up files, git's and ripgrep's own files, .gitmodules: none made
    // when missing (a project's own do not run), held where they exist.
    for (const name of PROTECTED_FILES.filter((name) => name !== '.mcp.json')) {
      expect(paths.some((path) => path.startsWith(join(root, name)))).toBe(false);
    }
  });

  it('protects a root and a nested repository, down to the depth, skipping node_modules', async () => {
    const root = join(work, 'ws');
    file(root, '.git/HEAD');
    file(root, '.git/config');
    file(root, '.bashrc');
    // A nested repository one level down: its hooks (none yet) and its config.
    file(root, 'sub/.git/HEAD');
    file(root, 'sub/.git/config');
    file(root, 'sub/.vscode/settings.json');
    file(root, 'sub/.claude/commands/x.md');
    file(root, 'sub/.claude/notes.md');
    // Dangerous files two levels down, but not three; names compared without case.
    file(root, 'a/b/.bashrc');
    file(root, 'a/.ZSHRC');
    file(root, 'a/b/c/.bashrc');
    // Protected directories and repositories two levels down are past the depth.
    file(root, 'a/b/.git/HEAD');
    file(root, 'a/b/.vscode/settings.json');
    // A worktree's .git file below the root is git's to rewrite.
    file(root, 'wt/.git', 'gitdir: /elsewhere\n');
    file(root, 'node_modules/pkg/.bashrc');
    file(root, 'node_modules/.git/HEAD');
    expect(await found(root)).toEqual(
      [
        '.bashrc',
        '.git/hooks',
        '.git/config',
        'sub/.git/hooks',
        'sub/.git/config',
        'sub/.vscode',
        'sub/.claude',
        'a/.ZSHRC',
        'a/b/.bashrc',
      ].sort(),
    );
  });

  it("protects what exists of a bare repository's layout in the folders it reads: a folder holding a HEAD", async () => {
    const root = join(work, 'ws');
    // A bare repository one level down, and one two levels down, with a worktree's own.
    file(root, 'origin.git/HEAD', 'ref: refs/heads/main\n');
    file(root, 'origin.git/config');
    file(root, 'origin.git/hooks/post-receive.sample');
    file(root, 'fixtures/srv.git/HEAD', 'ref: refs/heads/main\n');
    file(root, 'fixtures/srv.git/hooks/pre-receive');
    file(root, 'fixtures/srv.git/worktrees/w/HEAD');
    file(root, 'fixtures/srv.git/commondir', '..');
    // Three levels down is past the depth; a hooks folder without a HEAD is any folder.
    file(root, 'a/b/deep.git/HEAD');
    file(root, 'a/b/deep.git/config');
    file(root, 'src/hooks/use-items.ts');
    expect((await found(root)).filter((path) => !AT_ROOT.includes(path))).toEqual(
      [
        'origin.git/config',
        'origin.git/hooks',
        'fixtures/srv.git/hooks',
        'fixtures/srv.git/worktrees',
        'fixtures/srv.git/commondir',
      ].sort(),
    );
  });

  it("holds the agents' folders whole where they are, at the root and nested, and reads nothing in them", async () => {
    const root = join(work, 'ws');
    file(root, '.claude/settings.json', '{}');
    file(root, '.claude/.bashrc');
    file(root, 'sub/.claude/settings.local.json', '{}');
    file(root, 'sub/.CURSOR/mcp.json', '{}');
    file(root, 'sub/.gemini/notes.md');
    // Given by a link to settings kept elsewhere: held as the link leads.
    file(root, 'shared/settings.json', '{}');
    symlinkSync(join(root, 'shared'), join(root, 'sub', '.codex'));
    // Past the depth, and in node_modules: not read.
    file(root, 'a/b/.claude/settings.json', '{}');
    file(root, 'node_modules/.claude/settings.json', '{}');
    const paths = await found(root);
    expect(paths.filter((path) => !AT_ROOT.includes(path))).toEqual(
      ['.claude', 'sub/.claude', 'sub/.CURSOR', 'sub/.codex', 'sub/.gemini'].sort(),
    );
  });

  it('is what the file tools refuse too, wherever the file is, a missing one included', () => {
    for (const path of [
      ['.claude', 'settings.json'],
      ['deep', 'down', '.Claude', 'settings.local.json'],
      ['.claude', 'skills', 'x', 'SKILL.md'],
      ['.cursor', 'mcp.json'],
      ['.cursor', 'hooks.json'],
      ['.gemini', 'settings.json'],
      ['.zed', 'tasks.json'],
      ['.claude'],
    ]) {
      expect(writeProtection(path)).toMatch(
        /stays read-only: the agent or editor it configures runs the commands its settings name \(hooks, MCP servers\) outside the sandbox$/,
      );
    }
    for (const path of [['claude', 'notes.md'], ['settings.json'], ['docs', '.claude.md']]) {
      expect(writeProtection(path)).toBeUndefined();
    }
  });

  it('takes every writable root, and skips one that is not there', async () => {
    const one = join(work, 'one');
    const two = join(work, 'two');
    file(one, 'x/.gitmodules');
    file(two, 'y/.git/HEAD');
    const { paths } = await protectedPaths([one, two, join(work, 'absent')]);
    expect(withoutStandIns(paths)).toEqual(
      [join(one, 'x/.gitmodules'), join(two, 'y/.git/hooks')].sort(),
    );
    // Each root's missing held names stand in there.
    expect(paths.filter((path) => path.endsWith(STAND_IN))).toHaveLength(
      2 * HELD_WHEN_MISSING.length,
    );
  });

  it('reads at most maxDirectories, breadth first, and says it stopped', async () => {
    const root = join(work, 'big');
    for (let i = 0; i < 30; i += 1) file(root, `d${String(i).padStart(2, '0')}/e/.bashrc`);
    file(root, 'zz/.bashrc');
    const all = await protectedPaths([root]);
    expect(all.complete).toBe(true);
    // The root, 31 folders under it, and the 30 below those.
    expect(all.directoriesRead).toBe(62);
    expect(withoutStandIns(all.paths)).toHaveLength(31);
    const bounded = await protectedPaths([root], { maxDirectories: 32 });
    expect(bounded.complete).toBe(false);
    expect(bounded.directoriesRead).toBe(32);
    // The first level is read whole; of the second, nothing.
    expect(withoutStandIns(bounded.paths).map((path) => path.slice(root.length + 1))).toEqual([
      'zz/.bashrc',
    ]);
    const rootOnly = await protectedPaths([root], { maxDirectories: 1 });
    expect(withoutStandIns(rootOnly.paths)).toEqual([]);
  });

  it('is added to the denyWrite of a policy, next to what was there', async () => {
    const root = join(work, 'ws');
    file(root, '.git/HEAD');
    const policy = sandboxPolicy({}, undefined, root);
    const protectedPolicy = await withProtectedPaths(policy);
    expect(protectedPolicy.denyWrite).toEqual([
      ...policy.denyWrite,
      ...(await protectedPaths(policy.allowWrite)).paths,
    ]);
    expect(protectedPolicy.denyWrite).toContain(join(root, '.git/hooks'));
    expect(protectedPolicy.allowWrite).toEqual(policy.allowWrite);
  });
});
