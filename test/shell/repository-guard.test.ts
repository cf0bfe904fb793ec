/**
 * The repository guard, on folders changed as a sandboxed command would change them
 * (here by this process, so that each case is exact): what was added that git on the
 * host would run is moved aside, the user's own settings and hooks stay, and git then
 * runs none of it (checked with the real git, a marker file standing for the harm).
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import * as gitConfig from '../../src/shell/git-config';
import { type GuardState, parseGuardState } from '../../src/shell/guard-state';
import { RepositoryGuard } from '../../src/shell/repository-guard';
import { ensureBuilt, killChildren, ROOT, tempDir } from '../cli/helpers';
import { GIT_ENV, git } from '../support/git';

// The temporary folders this file makes, removed when it ends.
afterAll(killChildren);

/** A workspace that is a repository, with the user's own hook manager and hook. */
function workspace(): string {
  const root = tempDir();
  git(root, 'init', '-q', '.');
  git(root, 'config', 'core.hooksPath', '.husky');
  writeFileSync(join(root, '.git', 'hooks', 'post-checkout'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(root, '.git', 'hooks', 'post-checkout'), 0o755);
  return root;
}

/** The tree with nothing in it, which every repository has without making it. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** The note of a search that stopped at one of its bounds. */
const FOLLOWED_SO_FAR =
  "the repositories' chains (common folders, submodules, remotes) were followed so far only (8 steps, 256 repositories from one folder; an index of 64 MiB, 4 shared indexes and 1024 submodules, not one that is a link; 64 files of remotes of 8 KiB each): what git would run from beyond is not checked";

/** A hook or fsmonitor command that leaves `marker` behind when git runs it. */
function planted(marker: string): string {
  return `#!/bin/sh\ntouch '${marker}'\n`;
}

/**
 * The start of a script that works on `root` with the built guard: `RepositoryGuard`,
 * `root`, and `git(...args)` run there.
 */
function guardScript(root: string): string {
  return `const { RepositoryGuard } = require(${JSON.stringify(join(ROOT, 'dist/src/shell/repository-guard.js'))});
      const { execFileSync } = require('node:child_process');
      const root = ${JSON.stringify(root)};
      const git = (...args) => execFileSync('git', args, { cwd: root, env: { ...process.env, HOME: root } });`;
}

/**
 * Runs `script` as a user without root's right to read, enter and write anything (as the
 * server's user is), `root` made that user's; as this one where the tests do not run as
 * root. What it wrote on stdout, read as JSON; it must write nothing on stderr.
 */
function unprivileged(root: string, script: string): unknown {
  const asRoot = process.getuid?.() === 0;
  if (asRoot) spawnSync('chown', ['-R', '65534:65534', root]);
  const run = asRoot
    ? spawnSync(
        'setpriv',
        ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', script],
        { encoding: 'utf8', env: { ...GIT_ENV, HOME: root } },
      )
    : spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: GIT_ENV });
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as unknown;
}

describe('RepositoryGuard', () => {
  it('disables what a new repository would run: its fsmonitor and its hook', async () => {
    const root = workspace();
    const guard = new RepositoryGuard([root]);
    await guard.record();
    expect(await guard.check()).toEqual([]);

    const marker = join(tempDir(), 'ran');
    const script = join(root, 'monitor.sh');
    writeFileSync(script, planted(marker), { mode: 0o755 });
    git(root, 'init', '-q', 'sub');
    git(join(root, 'sub'), 'config', 'core.fsmonitor', script);
    git(join(root, 'sub'), 'config', 'user.email', 'agent@example.com');
    writeFileSync(join(root, 'sub', '.git', 'hooks', 'pre-commit'), planted(marker), {
      mode: 0o755,
    });

    // What was planted runs, as it stands.
    git(join(root, 'sub'), 'status');
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);

    const notes = await guard.check();
    expect(notes).toEqual([
      'sub/.git/hooks/pre-commit: a hook, renamed sub/.git/hooks/pre-commit.disabled',
      'sub/.git/config: core.fsmonitor, moved to sub/.git/config.disabled',
    ]);
    // What git keeps of the config is data; what was taken out is kept beside it.
    expect(git(join(root, 'sub'), 'config', '--get', 'user.email').trim()).toBe(
      'agent@example.com',
    );
    expect(readFileSync(join(root, 'sub', '.git', 'config.disabled'), 'utf8')).toContain(
      `[core]\n\tfsmonitor = ${script}\n`,
    );
    git(join(root, 'sub'), 'status');
    git(join(root, 'sub'), 'commit', '-q', '--allow-empty', '-m', 'x');
    expect(existsSync(marker)).toBe(false);
    // The user's own settings and hook were there at the record: they stay.
    expect(git(root, 'config', '--get', 'core.hooksPath').trim()).toBe('.husky');
    expect(existsSync(join(root, '.git', 'hooks', 'post-checkout'))).toBe(true);
    // Nothing more to do on the next check.
    expect(await guard.check()).toEqual([]);
  });

  /**
   * A workspace whose guard has recorded it, then a repository `sub` made in it with
   * `entries` and a `core.fsmonitor` in its config, as a command would make one; and
   * what says that git on the host would not run the monitor.
   */
  async function plantedMonitor(entries: readonly (readonly [string, string])[]) {
    const root = workspace();
    const guard = new RepositoryGuard([root]);
    await guard.record();
    const marker = join(tempDir(), 'ran');
    const script = join(root, 'monitor.sh');
    writeFileSync(script, planted(marker), { mode: 0o755 });
    git(root, 'init', '-q', 'sub');
    for (const [key, value] of entries) git(join(root, 'sub'), 'config', key, value);
    git(join(root, 'sub'), 'config', 'core.fsmonitor', script);
    const ranNot = (): void => {
      git(join(root, 'sub'), 'status');
      expect(existsSync(marker)).toBe(false);
    };
    return { guard, ranNot };
  }

  it("disables what follows a section named as one of Object's properties", async () => {
    // `[constructor]` once stopped the check with a TypeError: nothing was disabled.
    const { guard, ranNot } = await plantedMonitor([['constructor.x', '1']]);
    expect(await guard.check()).toEqual([
      'sub/.git/config: core.fsmonitor, constructor.x, moved to sub/.git/config.disabled',
    ]);
    ranNot();
  });

  it('moves aside a changed config whose entries it fails to judge, rather than leave it', async () => {
    // A fault in judging one entry (as `[constructor]` once was) must not leave the
    // config for git to run: the config is judged whole, as one git cannot read.
    const { guard, ranNot } = await plantedMonitor([['poison.x', '1']]);
    // A fault that one section meets, as a fault meets the same text each time: the
    // repository's own config, judged at the record, is judged alike and left.
    const judgeEntry = gitConfig.mayRunSomething;
    const judge = jest.spyOn(gitConfig, 'mayRunSomething').mockImplementation((entry) => {
      if (entry.section === 'poison') throw new TypeError('a fault');
      return judgeEntry(entry);
    });
    try {
      expect(await guard.check()).toEqual([
        'sub/.git/config: not checked (a fault), moved to sub/.git/config.disabled',
      ]);
    } finally {
      judge.mockRestore();
    }
    ranNot();
  });

  it('finds a bare layout, a .git file pointing elsewhere and a common directory', async () => {
    const root = workspace();
    const guard = new RepositoryGuard([root]);
    await guard.record();
    const marker = join(tempDir(), 'ran');
    // A bare repository's layout that becomes a worktree's repository through `.git`.
    mkdirSync(join(root, 'store', 'objects'), { recursive: true });
    mkdirSync(join(root, 'store', 'refs'), { recursive: true });
    writeFileSync(join(root, 'store', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(
      join(root, 'store', 'config'),
      `[core]\n\tbare = false\n[alias]\n\tboom = !touch '${marker}'\n`,
    );
    mkdirSync(join(root, 'work'));
    writeFileSync(join(root, 'work', '.git'), 'gitdir: ../store\n');
    // A git directory whose common one (where git reads the config) lies elsewhere.
    mkdirSync(join(root, 'linked'));
    mkdirSync(join(root, 'common', 'objects'), { recursive: true });
    mkdirSync(join(root, 'common', 'refs'));
    writeFileSync(join(root, 'common', 'config'), `[core]\n\tpager = touch '${marker}'\n`);
    mkdirSync(join(root, 'linked', '.git'));
    writeFileSync(join(root, 'linked', '.git', 'commondir'), '../../common\n');
    writeFileSync(join(root, 'linked', '.git', 'HEAD'), 'ref: refs/heads/main\n');

    git(join(root, 'work'), 'boom');
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);

    const notes = await guard.check();
    expect(notes.sort()).toEqual([
      'common/config: core.pager, moved to common/config.disabled',
      'store/config: alias.boom, moved to store/config.disabled',
    ]);
    git(join(root, 'work'), 'boom');
    expect(existsSync(marker)).toBe(false);
  });

  it('moves aside a config that is a link or that git cannot read, and a hooks link', async () => {
    const root = workspace();
    const guard = new RepositoryGuard([root]);
    await guard.record();
    const elsewhere = join(tempDir(), 'evil-config');
    writeFileSync(elsewhere, '[core]\n\tfsmonitor = x\n');
    git(root, 'init', '-q', 'a');
    git(root, 'init', '-q', 'b');
    git(root, 'init', '-q', 'c');
    const config = (name: string) => join(root, name, '.git', 'config');
    spawnSync('rm', [config('a')]);
    symlinkSync(elsewhere, config('a'));
    writeFileSync(config('b'), '[core\n');
    spawnSync('rm', ['-r', join(root, 'c', '.git', 'hooks')]);
    symlinkSync(tempDir(), join(root, 'c', '.git', 'hooks'));

    expect((await guard.check()).sort()).toEqual([
      'a/.git/config: not a plain file, moved to a/.git/config.disabled',
      'b/.git/config: unreadable at line 2, moved to b/.git/config.disabled',
      'c/.git/hooks: not a folder, moved to c/.git/hooks.disabled',
    ]);
    expect(readFileSync(elsewhere, 'utf8')).toBe('[core]\n\tfsmonitor = x\n');
    expect(existsSync(config('b'))).toBe(false);
  });

  it('never writes through a link planted where it puts what it moved', async () => {
    const root = workspace();
    const guard = new RepositoryGuard([root]);
    await guard.record();
    const victim = join(tempDir(), 'victim');
    writeFileSync(victim, 'untouched\n');
    git(root, 'init', '-q', 'sub');
    symlinkSync(victim, join(root, 'sub', '.git', 'config.disabled'));
    git(join(root, 'sub'), 'config', 'core.editor', 'evil');

    expect(await guard.check()).toEqual([
      'sub/.git/config: core.editor, moved to sub/.git/config.disabled-2',
    ]);
    expect(readFileSync(victim, 'utf8')).toBe('untouched\n');
  });

  it('leaves alone what the sandbox keeps read-only, which the user may change meanwhile', async () => {
    const root = workspace();
    const guard = new RepositoryGuard([root]);
    await guard.record();
    guard.readOnly([join(root, '.git', 'config'), join(root, '.git', 'hooks')]);
    git(root, 'config', 'core.editor', 'vim');
    writeFileSync(join(root, '.git', 'hooks', 'pre-push'), '#!/bin/sh\n', { mode: 0o755 });
    expect(await guard.check()).toEqual([]);
    expect(git(root, 'config', '--get', 'core.editor').trim()).toBe('vim');
  });

  it('changes nothing before its record, and skips node_modules and deeper folders', async () => {
    const root = tempDir();
    git(root, 'init', '-q', 'early');
    git(join(root, 'early'), 'config', 'core.editor', 'mine');
    const guard = new RepositoryGuard([root]);
    expect(await guard.check()).toEqual([]);
    await guard.record();
    git(root, 'init', '-q', join('node_modules', 'pkg'));
    git(root, 'init', '-q', join('deep', 'er'));
    git(join(root, 'node_modules', 'pkg'), 'config', 'core.editor', 'x');
    git(join(root, 'deep', 'er'), 'config', 'core.editor', 'x');
    expect(await guard.check()).toEqual([]);
    expect(readdirSync(join(root, 'early', '.git'))).not.toContain('config.disabled');
  });

  it('follows a .git link to a pointer file and a folder given by a link', async () => {
    const root = workspace();
    const elsewhere = tempDir();
    git(elsewhere, 'init', '-q', '--bare', 'store.git');
    const guard = new RepositoryGuard([root, elsewhere]);
    await guard.record();
    // A worktree whose .git is a link to a file that names the repository.
    mkdirSync(join(root, 'wt'));
    writeFileSync(join(elsewhere, 'pointer'), `gitdir: ${join(elsewhere, 'store.git')}\n`);
    symlinkSync(join(elsewhere, 'pointer'), join(root, 'wt', '.git'));
    git(join(root, 'wt'), 'config', 'core.editor', 'evil');
    // A link at the root to a folder deeper down, where a repository is made.
    git(root, 'init', '-q', join('deep', 'down', 'repo'));
    symlinkSync(join(root, 'deep', 'down', 'repo'), join(root, 'shortcut'));
    git(join(root, 'shortcut'), 'config', 'core.pager', 'evil');
    expect((await guard.check()).sort()).toEqual([
      'deep/down/repo/.git/config: core.pager, moved to deep/down/repo/.git/config.disabled',
      'store.git/config: core.editor, moved to store.git/config.disabled',
    ]);
  });

  it('finds what it cannot list: a repository in a folder, hooks in a folder, that can only be entered', () => {
    ensureBuilt();
    // Run as a user without root's right to read anything (as the server's user is).
    const root = tempDir();
    const script = `
      ${guardScript(root)}
      const { chmodSync, writeFileSync } = require('node:fs');
      (async () => {
        const guard = new RepositoryGuard([root]);
        await guard.record();
        git('init', '-q', 'hidden');
        git('-C', 'hidden', 'config', 'core.fsmonitor', 'evil');
        chmodSync(root + '/hidden', 0o100);
        git('init', '-q', 'locked');
        writeFileSync(root + '/locked/.git/hooks/pre-commit', '#!/bin/sh\\n', { mode: 0o755 });
        chmodSync(root + '/locked/.git/hooks', 0o100);
        process.stdout.write(JSON.stringify((await guard.check()).sort()));
        chmodSync(root + '/hidden', 0o755);
      })();`;
    expect(unprivileged(root, script)).toEqual([
      'hidden/.git/config: core.fsmonitor, moved to hidden/.git/config.disabled',
      "hidden: a folder its owner could not enter or list, given back its owner's rights",
      'locked/.git/hooks: a folder that cannot be listed, moved to locked/.git/hooks.disabled',
    ]);
  });

  it('gives back the rights a command took from its owner to hide a repository, and looks in', () => {
    ensureBuilt();
    // Run as a user without root's right to enter and write anything (as the server's
    // user is): a folder closed to its owner closed it to the guard, while git on the
    // host still ran what was planted (`chmod a-w .git`), or would once opened again.
    const root = tempDir();
    const script = `
      ${guardScript(root)}
      const { chmodSync, mkdirSync, statSync, writeFileSync } = require('node:fs');
      const plant = (gitDir, marker) => {
        writeFileSync(root + '/' + gitDir + '/hooks/pre-commit', '#!/bin/sh\\ntouch ' + root + '/' + marker + '\\n', { mode: 0o755 });
        git('--git-dir=' + gitDir, 'config', 'core.fsmonitor', 'touch ' + root + '/' + marker);
      };
      (async () => {
        git('init', '-q', '.');
        // The user's own folder, closed before the shell started: left as it is.
        mkdirSync(root + '/private');
        chmodSync(root + '/private', 0o000);
        await new Promise((resolve) => setTimeout(resolve, 250));
        const guard = new RepositoryGuard([root]);
        await guard.record();
        for (const name of ['readonly', 'closed', 'hooks', 'folder']) {
          git('init', '-q', name);
          plant(name + '/.git', name + '-ran');
        }
        git('init', '-q', 'super');
        git('init', '-q', '--bare', 'super/.git/modules/child');
        plant('super/.git/modules/child', 'child-ran');
        chmodSync(root + '/readonly/.git', 0o500);
        chmodSync(root + '/closed/.git', 0o000);
        chmodSync(root + '/hooks/.git/hooks', 0o500);
        chmodSync(root + '/folder', 0o000);
        chmodSync(root + '/super/.git/modules', 0o000);
        const notes = (await guard.check()).sort();
        // The workspace itself, made enterable only: its folders cannot be found; and
        // closed folders inside closed folders, opened in one check.
        git('init', '-q', 'unlisted');
        plant('unlisted/.git', 'unlisted-ran');
        git('init', '-q', 'nested');
        plant('nested/.git', 'nested-ran');
        chmodSync(root + '/nested/.git', 0o000);
        chmodSync(root + '/nested', 0o000);
        chmodSync(root, 0o100);
        notes.push(...(await guard.check()));
        // Entered but not listed: an agent's settings in it, a linked worktree's config.
        mkdirSync(root + '/pkg/.claude', { recursive: true });
        writeFileSync(root + '/pkg/.claude/settings.json', '{"hooks":{}}');
        chmodSync(root + '/pkg', 0o311);
        git('init', '-q', 'linked');
        git('-C', 'linked', 'config', 'extensions.worktreeConfig', 'true');
        mkdirSync(root + '/linked/.git/worktrees/wt', { recursive: true });
        writeFileSync(root + '/linked/.git/worktrees/wt/HEAD', 'ref: refs/heads/x\\n');
        writeFileSync(root + '/linked/.git/worktrees/wt/commondir', '../..\\n');
        writeFileSync(root + '/linked/.git/worktrees/wt/config.worktree', '[core]\\n\\tfsmonitor = touch ' + root + '/linked-ran\\n');
        chmodSync(root + '/linked/.git/worktrees', 0o111);
        notes.push(...(await guard.check()));
        // What git on the host does there now runs none of it.
        for (const name of ['readonly', 'closed', 'hooks', 'folder', 'unlisted', 'nested', 'linked']) {
          try { git('-C', name, 'status'); git('-C', name, 'commit', '-q', '--allow-empty', '-m', 'x'); } catch {}
        }
        const ran = ['readonly', 'closed', 'hooks', 'folder', 'child', 'unlisted', 'nested', 'linked'].filter((name) => {
          try { statSync(root + '/' + name + '-ran'); return true; } catch { return false; }
        });
        const privateMode = (statSync(root + '/private').mode & 0o777).toString(8);
        chmodSync(root + '/private', 0o755);
        process.stdout.write(JSON.stringify({ notes, ran, privateMode }));
      })();`;
    expect(unprivileged(root, script)).toEqual({
      notes: [
        'closed/.git/config: core.fsmonitor, moved to closed/.git/config.disabled',
        'closed/.git/hooks/pre-commit: a hook, renamed closed/.git/hooks/pre-commit.disabled',
        "closed/.git: a folder its owner could not enter or list, given back its owner's rights",
        'folder/.git/config: core.fsmonitor, moved to folder/.git/config.disabled',
        'folder/.git/hooks/pre-commit: a hook, renamed folder/.git/hooks/pre-commit.disabled',
        "folder: a folder its owner could not enter or list, given back its owner's rights",
        'hooks/.git/config: core.fsmonitor, moved to hooks/.git/config.disabled',
        'hooks/.git/hooks/pre-commit: a hook, renamed hooks/.git/hooks/pre-commit.disabled',
        "hooks/.git/hooks: a folder its owner could not change, given back its owner's rights",
        'readonly/.git/config: core.fsmonitor, moved to readonly/.git/config.disabled',
        'readonly/.git/hooks/pre-commit: a hook, renamed readonly/.git/hooks/pre-commit.disabled',
        "readonly/.git: a folder its owner could not change, given back its owner's rights",
        'super/.git/modules/child/config: core.fsmonitor, moved to super/.git/modules/child/config.disabled',
        'super/.git/modules/child/hooks/pre-commit: a hook, renamed super/.git/modules/child/hooks/pre-commit.disabled',
        "super/.git/modules: a folder its owner could not enter or list, given back its owner's rights",
        ".: a folder its owner could not enter or list, given back its owner's rights",
        "nested: a folder its owner could not enter or list, given back its owner's rights",
        "nested/.git: a folder its owner could not enter or list, given back its owner's rights",
        'nested/.git/hooks/pre-commit: a hook, renamed nested/.git/hooks/pre-commit.disabled',
        'nested/.git/config: core.fsmonitor, moved to nested/.git/config.disabled',
        'unlisted/.git/hooks/pre-commit: a hook, renamed unlisted/.git/hooks/pre-commit.disabled',
        'unlisted/.git/config: core.fsmonitor, moved to unlisted/.git/config.disabled',
        "linked/.git/worktrees: a folder its owner could not enter or list, given back its owner's rights",
        "pkg: a folder its owner could not enter or list, given back its owner's rights",
        "pkg/.claude: an agent's settings made by a command, moved to pkg/.claude.disabled",
        'linked/.git/worktrees/wt/config.worktree: core.fsmonitor, moved to linked/.git/worktrees/wt/config.worktree.disabled',
      ],
      ran: [],
      privateMode: '0',
    });
  });

  it("moves aside agents' settings a command makes one level down, not the user's", async () => {
    const root = workspace();
    // The user's own, there before the shell started.
    mkdirSync(join(root, 'mine', '.claude'), { recursive: true });
    writeFileSync(join(root, 'mine', '.claude', 'settings.json'), '{}');
    mkdirSync(join(root, 'shared'));
    symlinkSync(join(root, 'shared'), join(root, 'mine', '.cursor'));
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'crush.json'), '{}');
    await new Promise((resolve) => setTimeout(resolve, 250));
    const guard = new RepositoryGuard([root]);
    await guard.record();
    expect(await guard.check()).toEqual([]);
    // A hook Claude Code would run on the host when started in pkg; Gemini CLI's folder
    // as a case-insensitive file system finds it; an MCP server; a link to settings kept
    // elsewhere.
    mkdirSync(join(root, 'pkg', '.claude'), { recursive: true });
    writeFileSync(
      join(root, 'pkg', '.claude', 'settings.json'),
      '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch /tmp/owned"}]}]}}',
    );
    mkdirSync(join(root, 'pkg', '.Gemini'));
    writeFileSync(join(root, 'pkg', '.mcp.json'), '{"mcpServers":{}}');
    // opencode's MCP servers, and a plugin folder it runs; at the folder itself too, where
    // the sandbox holds no stand-in for a plain name (the user's crush.json stays).
    writeFileSync(join(root, 'pkg', 'opencode.json'), '{"mcp":{}}');
    writeFileSync(join(root, 'OpenCode.jsonc'), '{"mcp":{}}');
    writeFileSync(join(root, 'crush.json'), '{"mcp":{"x":{}}}');
    mkdirSync(join(root, 'pkg', '.opencode'));
    mkdirSync(join(root, 'app'));
    mkdirSync(join(root, 'elsewhere'));
    symlinkSync(join(root, 'elsewhere'), join(root, 'app', '.cursor'));
    // Behind a link one level down: moved where it lies.
    mkdirSync(join(root, 'deep', 'inner'), { recursive: true });
    symlinkSync(join(root, 'deep', 'inner'), join(root, 'linked'));
    mkdirSync(join(root, 'linked', '.claude'));
    // Not one of them (an editor's folder is left), or deeper than the guard looks.
    mkdirSync(join(root, 'pkg', 'claude'));
    mkdirSync(join(root, 'pkg', '.vscode'));
    mkdirSync(join(root, 'pkg', 'deep', '.claude'), { recursive: true });
    expect((await guard.check()).sort()).toEqual([
      "OpenCode.jsonc: an agent's settings made by a command, moved to OpenCode.jsonc.disabled",
      "app/.cursor: an agent's settings made by a command, moved to app/.cursor.disabled",
      "deep/inner/.claude: an agent's settings made by a command, moved to deep/inner/.claude.disabled",
      "pkg/.Gemini: an agent's settings made by a command, moved to pkg/.Gemini.disabled",
      "pkg/.claude: an agent's settings made by a command, moved to pkg/.claude.disabled",
      "pkg/.mcp.json: an agent's settings made by a command, moved to pkg/.mcp.json.disabled",
      "pkg/.opencode: an agent's settings made by a command, moved to pkg/.opencode.disabled",
      "pkg/opencode.json: an agent's settings made by a command, moved to pkg/opencode.json.disabled",
    ]);
    expect(readdirSync(join(root, 'pkg')).sort()).toEqual([
      '.Gemini.disabled',
      '.claude.disabled',
      '.mcp.json.disabled',
      '.opencode.disabled',
      '.vscode',
      'claude',
      'deep',
      'opencode.json.disabled',
    ]);
    expect(readFileSync(join(root, 'pkg', '.claude.disabled', 'settings.json'), 'utf8')).toContain(
      'SessionStart',
    );
    expect(readdirSync(join(root, 'mine', '.claude'))).toEqual(['settings.json']);
    // A folder of the user's, older than the record, renamed into place and filled.
    mkdirSync(join(root, 'lib'));
    renameSync(join(root, 'docs'), join(root, 'lib', '.claude'));
    expect(await guard.check()).toEqual([
      "lib/.claude: an agent's settings made by a command, moved to lib/.claude.disabled",
    ]);
    // The user's link to settings shared elsewhere, replaced by one to the command's.
    rmSync(join(root, 'mine', '.cursor'));
    symlinkSync(join(root, 'elsewhere'), join(root, 'mine', '.cursor'));
    expect(await guard.check()).toEqual([
      "mine/.cursor: an agent's settings made by a command, moved to mine/.cursor.disabled",
    ]);
    // Made again, moved again, beside the first.
    mkdirSync(join(root, 'pkg', '.claude'));
    expect(await guard.check()).toEqual([
      "pkg/.claude: an agent's settings made by a command, moved to pkg/.claude.disabled-2",
    ]);
    expect(await guard.check()).toEqual([]);
  });

  it('leaves alone the settings the sandbox holds, and the folders standing in for missing ones', async () => {
    const root = workspace();
    mkdirSync(join(root, 'home'));
    const guard = new RepositoryGuard([root]);
    await guard.record();
    // The sandbox stands an empty folder in for a missing home's .claude as it starts.
    mkdirSync(join(root, 'home', '.claude', '.agenttool-held'), { recursive: true });
    guard.readOnly([join(root, 'home', '.claude', '.agenttool-held')]);
    expect(await guard.check()).toEqual([]);
    expect(readdirSync(join(root, 'home'))).toEqual(['.claude']);
  });

  // Making another user's folder takes root.
  (process.getuid?.() === 0 ? it : it.skip)(
    "leaves alone, and unsaid, another user's folder it cannot enter, and finds an agent's settings in one it cannot list",
    async () => {
      ensureBuilt();
      const root = tempDir();
      spawnSync('chown', ['-R', '65534:65534', root]);
      const script = `
      ${guardScript(root)}
      const { existsSync, mkdirSync, writeFileSync } = require('node:fs');
      (async () => {
        const guard = new RepositoryGuard([root]);
        await guard.record();
        writeFileSync(root + '/recorded', '');
        while (!existsSync(root + '/go')) await new Promise((resolve) => setTimeout(resolve, 20));
        // A command plants settings in a folder it may write and enter, but not list.
        mkdirSync(root + '/vol/.claude');
        writeFileSync(root + '/vol/.claude/settings.json', '{"hooks":{}}');
        process.stdout.write(JSON.stringify(await guard.check()));
      })();`;
      const child = spawn(
        'setpriv',
        ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', script],
        { env: GIT_ENV },
      );
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      const closed = new Promise((resolve) => child.on('close', resolve));
      while (!existsSync(join(root, 'recorded'))) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // Made after the record, by root (a database's data folder in a container).
      mkdirSync(join(root, 'pgdata'), { mode: 0o700 });
      chmodSync(join(root, 'pgdata'), 0o700);
      mkdirSync(join(root, 'vol'));
      chmodSync(join(root, 'vol'), 0o733);
      writeFileSync(join(root, 'go'), '');
      await closed;
      expect(JSON.parse(stdout)).toEqual([
        "vol/.claude: an agent's settings made by a command, moved to vol/.claude.disabled",
      ]);
      expect(statSync(join(root, 'pgdata')).mode & 0o777).toBe(0o700);
    },
  );

  it('goes on past links that loop or lead nowhere where it looks', async () => {
    const root = workspace();
    const guard = new RepositoryGuard([root]);
    await guard.record();
    mkdirSync(join(root, 'loop'));
    symlinkSync('.git', join(root, 'loop', '.git'));
    mkdirSync(join(root, 'dangling'));
    symlinkSync(join(root, 'nowhere'), join(root, 'dangling', '.git'));
    symlinkSync('cycle', join(root, 'cycle'));
    git(root, 'init', '-q', 'real');
    git(join(root, 'real'), 'config', 'core.pager', 'evil');
    expect(await guard.check()).toEqual([
      'real/.git/config: core.pager, moved to real/.git/config.disabled',
    ]);
  });

  it("checks a submodule's git directory, however deep its worktree lies", async () => {
    const root = workspace();
    // A submodule whose worktree is two levels down: its git directory is in .git/modules.
    mkdirSync(join(root, '.git', 'modules', 'vendor'), { recursive: true });
    git(
      root,
      'init',
      '-q',
      '--separate-git-dir',
      join(root, '.git', 'modules', 'vendor', 'lib'),
      join('vendor', 'lib'),
    );
    git(join(root, 'vendor', 'lib'), 'config', 'core.worktree', '../../../../vendor/lib');
    const guard = new RepositoryGuard([root]);
    await guard.record();
    git(join(root, 'vendor', 'lib'), 'config', 'core.fsmonitor', 'evil');
    expect(await guard.check()).toEqual([
      '.git/modules/vendor/lib/config: core.fsmonitor, moved to .git/modules/vendor/lib/config.disabled',
    ]);
    // The user's own setting, there at the record, stays.
    expect(git(join(root, 'vendor', 'lib'), 'config', '--get', 'core.worktree').trim()).toBe(
      '../../../../vendor/lib',
    );
  });

  it('reads a .git file and a commondir as git does, and takes any layout git takes', async () => {
    const root = workspace();
    const guard = new RepositoryGuard([root], 50);
    await guard.record();
    const plant = (dir: string) => {
      mkdirSync(join(root, dir, 'objects'), { recursive: true });
      mkdirSync(join(root, dir, 'refs'));
      writeFileSync(join(root, dir, 'HEAD'), 'ref: refs/heads/main\n');
      writeFileSync(join(root, dir, 'config'), '[core]\n\tpager = evil\n');
    };
    // A name with a space at its start, a NUL, and line ends past 4 KiB: git reads " g",
    // "../deep/h" and "../deep/k".
    plant('a/ g');
    writeFileSync(join(root, 'a', '.git'), 'gitdir:  g\n');
    plant('deep/h');
    mkdirSync(join(root, 'b'));
    writeFileSync(join(root, 'b', '.git'), 'gitdir: ../deep/h\0junk');
    plant('deep/k');
    mkdirSync(join(root, 'c'));
    writeFileSync(join(root, 'c', '.git'), `gitdir: ../deep/k${'\n'.repeat(5000)}`);
    // A layout of a HEAD and a common directory, and one whose objects and refs are files.
    mkdirSync(join(root, 'd'));
    writeFileSync(join(root, 'd', 'HEAD'), 'ref: refs/heads/main\n');
    plant('deep/common');
    writeFileSync(join(root, 'deep', 'common', 'HEAD'), 'x');
    writeFileSync(join(root, 'd', 'commondir'), `../deep/common${'\n'.repeat(5000)}`);
    mkdirSync(join(root, 'e'));
    writeFileSync(join(root, 'e', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(root, 'e', 'objects'), '', { mode: 0o755 });
    writeFileSync(join(root, 'e', 'refs'), '', { mode: 0o755 });
    writeFileSync(join(root, 'e', 'config'), '[core]\n\tpager = evil\n');
    expect((await guard.check()).sort()).toEqual(
      ['a/ g', 'deep/common', 'deep/h', 'deep/k', 'e'].map(
        (dir) => `${dir}/config: core.pager, moved to ${dir}/config.disabled`,
      ),
    );
    // Past its folders, a check says once that it did not read them all.
    for (let i = 0; i < 60; i++) mkdirSync(join(root, `many-${i}`));
    const said = await guard.check();
    expect(said).toEqual([
      'the repositories were looked for in 50 folders only: a writable folder holds more folders than that, and what git would run from the others is not checked',
    ]);
    expect(await guard.check()).toEqual([]);
  });

  it('checks the repositories the index names as submodules, however deep', async () => {
    const root = workspace();
    const guard = new RepositoryGuard([root]);
    await guard.record();
    const marker = join(tempDir(), 'ran');
    // A repository two levels down, named in the root's index as a submodule (a gitlink,
    // no .gitmodules needed): git status at the root looks into it with its own config.
    git(root, 'init', '-q', join('a', 'b'));
    git(join(root, 'a', 'b'), 'commit', '-q', '--allow-empty', '-m', 'x');
    const head = git(join(root, 'a', 'b'), 'rev-parse', 'HEAD').trim();
    git(root, 'update-index', '--add', '--cacheinfo', `160000,${head},a/b`);
    writeFileSync(join(root, 'monitor.sh'), planted(marker), { mode: 0o755 });
    git(join(root, 'a', 'b'), 'config', 'core.fsmonitor', join(root, 'monitor.sh'));
    git(root, 'status');
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);
    expect(await guard.check()).toEqual([
      'a/b/.git/config: core.fsmonitor, moved to a/b/.git/config.disabled',
    ]);
    git(root, 'status');
    git(root, 'diff');
    expect(existsSync(marker)).toBe(false);
  });

  it('checks the repositories on this machine a remote names: a push there runs their hooks', async () => {
    const root = workspace();
    const guard = new RepositoryGuard([root]);
    await guard.record();
    const marker = join(tempDir(), 'ran');
    git(root, 'init', '-q', '--bare', join('x', 'y', 'target.git'));
    git(root, 'init', '-q', '--bare', join('x', 'y', 'legacy.git'));
    for (const target of ['target.git', 'legacy.git']) {
      writeFileSync(join(root, 'x', 'y', target, 'hooks', 'pre-receive'), planted(marker), {
        mode: 0o755,
      });
    }
    git(root, 'init', '-q', 'app');
    // Named without its `.git`, as git finds it too.
    git(join(root, 'app'), 'remote', 'add', 'origin', '../x/y/target');
    // The older way to name a remote, in a file of the user's own repository.
    mkdirSync(join(root, '.git', 'remotes'), { recursive: true });
    writeFileSync(
      join(root, '.git', 'remotes', 'old'),
      `URL: file://${join(root, 'x', 'y', 'legacy.git')}\nPush: refs/heads/*:refs/heads/*\n`,
    );
    expect((await guard.check()).sort()).toEqual([
      'x/y/legacy.git/hooks/pre-receive: a hook, renamed x/y/legacy.git/hooks/pre-receive.disabled',
      'x/y/target.git/hooks/pre-receive: a hook, renamed x/y/target.git/hooks/pre-receive.disabled',
    ]);
    git(join(root, 'app'), 'commit', '-q', '--allow-empty', '-m', 'x');
    git(join(root, 'app'), 'push', '-q', 'origin', 'HEAD:refs/heads/main');
    expect(existsSync(marker)).toBe(false);
  });

  it("takes for a git directory only what git would: a project's config and hooks folders stay", async () => {
    const root = workspace();
    mkdirSync(join(root, 'config'));
    writeFileSync(join(root, 'config', 'app.yml'), 'port: 1\n');
    mkdirSync(join(root, 'hooks'));
    writeFileSync(join(root, 'hooks', 'use-thing.ts'), 'export {};\n');
    const guard = new RepositoryGuard([root]);
    await guard.record();
    // A repository whose common directory is said to be the workspace itself.
    git(root, 'init', '-q', 'sub');
    writeFileSync(join(root, 'sub', '.git', 'commondir'), '../..\n');
    writeFileSync(join(root, 'hooks', 'added.ts'), 'export {};\n');
    expect(await guard.check()).toEqual([]);
    expect(readdirSync(join(root, 'hooks')).sort()).toEqual(['added.ts', 'use-thing.ts']);
    expect(readdirSync(join(root, 'config'))).toEqual(['app.yml']);
  });

  it('is not held by a FIFO where it reads a file', async () => {
    const root = workspace();
    const guard = new RepositoryGuard([root]);
    await guard.record();
    git(root, 'init', '-q', 'sub');
    const fifo = (path: string) => {
      const made = spawnSync('mkfifo', [path]);
      if (made.status !== 0) throw new Error(`mkfifo ${path} failed`);
    };
    for (const name of ['index', 'commondir', 'sharedindex.0000'])
      fifo(join(root, 'sub', '.git', name));
    mkdirSync(join(root, 'sub', '.git', 'remotes'));
    fifo(join(root, 'sub', '.git', 'remotes', 'origin'));
    rmSync(join(root, 'sub', '.git', 'config'));
    fifo(join(root, 'sub', '.git', 'config'));
    mkdirSync(join(root, 'pipe'));
    fifo(join(root, 'pipe', '.git'));
    expect(await guard.check()).toEqual([
      'sub/.git/config: not a plain file, moved to sub/.git/config.disabled',
    ]);
  });

  it('moves a hooks folder of very many entries aside whole', async () => {
    const root = workspace();
    const guard = new RepositoryGuard([root]);
    await guard.record();
    git(root, 'init', '-q', 'many');
    for (let i = 0; i < 1200; i++) {
      writeFileSync(join(root, 'many', '.git', 'hooks', `hook-${i}`), '', { mode: 0o755 });
    }
    expect(await guard.check()).toEqual([
      'many/.git/hooks: a folder of more than 1000 entries, moved to many/.git/hooks.disabled',
    ]);
  });

  it('follows no link out of the workspace, bounds its chains, and shows names plainly', async () => {
    const root = workspace();
    const guard = new RepositoryGuard([root]);
    await guard.record();
    // A repository far down, with a new hook, named only from a file outside the
    // workspace that a link in a repository's branches/ leads to: read, it would show.
    git(root, 'init', '-q', '--bare', join('deep', 'er', 'probe'));
    writeFileSync(join(root, 'deep', 'er', 'probe', 'hooks', 'pre-receive'), '#!/bin/sh\n', {
      mode: 0o755,
    });
    const outside = tempDir();
    writeFileSync(join(outside, 'origin'), `${join(root, 'deep', 'er', 'probe')}\n`);
    git(root, 'init', '-q', 'sub');
    rmSync(join(root, 'sub', '.git', 'branches'), { recursive: true, force: true });
    symlinkSync(outside, join(root, 'sub', '.git', 'branches'));
    // A chain of common directories longer than a stack.
    mkdirSync(join(root, 'chain'));
    writeFileSync(join(root, 'chain', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(root, 'chain', 'commondir'), '../links/1\n');
    for (let i = 1; i <= 3000; i++) {
      mkdirSync(join(root, 'links', String(i)), { recursive: true });
      writeFileSync(join(root, 'links', String(i), 'HEAD'), 'x');
      writeFileSync(join(root, 'links', String(i), 'commondir'), `../${i + 1}\n`);
    }
    // A name that would read as another line.
    git(root, 'init', '-q', 'two\nlines');
    git(join(root, 'two\nlines'), 'config', 'core.pager', 'evil');
    const notes = await guard.check();
    expect(notes.some((note) => note.includes('probe'))).toBe(false);
    expect(notes.some((note) => note.includes('were not checked ('))).toBe(false);
    expect(notes).toContain(FOLLOWED_SO_FAR);
    expect(notes).toContain(
      'two\\u000alines/.git/config: core.pager, moved to two\\u000alines/.git/config.disabled',
    );
    expect(notes.every((note) => !note.includes('\n'))).toBe(true);
  });

  it('says so when an index names more submodules than it reads, or when remotes are past their bound', async () => {
    const root = workspace();
    const guard = new RepositoryGuard([root]);
    await guard.record();
    // 1024 gitlinks nothing populates, then one whose git directory lies deep, with a
    // hook: past the bound, it would pass unseen and unsaid.
    git(root, 'init', '-q', 'many');
    const many = join(root, 'many');
    const commit = git(many, 'commit-tree', '-m', 'x', EMPTY_TREE).trim();
    const lines = Array.from({ length: 1024 }, (_, i) => `160000 ${commit}\tempty/${i}\n`);
    lines.push(`160000 ${commit}\tzz/deep/last\n`);
    const added = spawnSync('git', ['update-index', '--index-info'], {
      cwd: many,
      input: lines.join(''),
      env: GIT_ENV,
    });
    expect(added.status).toBe(0);
    git(root, 'init', '-q', '--bare', join('hidden', 'a', 'b', 'gitdir'));
    writeFileSync(join(root, 'hidden', 'a', 'b', 'gitdir', 'hooks', 'pre-commit'), '#!/bin/sh\n', {
      mode: 0o755,
    });
    mkdirSync(join(many, 'zz', 'deep', 'last'), { recursive: true });
    writeFileSync(
      join(many, 'zz', 'deep', 'last', '.git'),
      `gitdir: ${join(root, 'hidden', 'a', 'b', 'gitdir')}\n`,
    );
    expect(await guard.check()).toEqual([FOLLOWED_SO_FAR]);
    // Below the bound, the same repository is found and its hook moved aside.
    git(many, 'rm', '-q', '--cached', ...Array.from({ length: 10 }, (_, i) => `empty/${i}`));
    expect(await guard.check()).toEqual([
      'hidden/a/b/gitdir/hooks/pre-commit: a hook, renamed hidden/a/b/gitdir/hooks/pre-commit.disabled',
    ]);

    // A remotes folder of more files than are read.
    git(root, 'init', '-q', 'remotes-many');
    const remotes = join(root, 'remotes-many', '.git', 'remotes');
    mkdirSync(remotes, { recursive: true });
    for (let i = 0; i < 65; i++) writeFileSync(join(remotes, `r${i}`), 'URL: ../nowhere\n');
    expect(await guard.check()).toEqual([FOLLOWED_SO_FAR]);
  });

  it('checks by itself while idle, not while a command runs, and stops when told', async () => {
    const root = workspace();
    const guard = new RepositoryGuard([root]);
    await guard.record();
    let idle = false;
    const told: string[][] = [];
    guard.watch(
      () => idle,
      (notes) => told.push(notes),
    );
    git(root, 'init', '-q', 'bg');
    writeFileSync(join(root, 'bg', '.git', 'hooks', 'pre-commit'), '#!/bin/sh\n', { mode: 0o755 });
    const hook = join(root, 'bg', '.git', 'hooks', 'pre-commit');
    // A command runs: left for its own end.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(told).toEqual([]);
    expect(existsSync(hook)).toBe(true);
    idle = true;
    for (let waited = 0; told.length === 0 && waited < 10_000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(told).toEqual([
      ['bg/.git/hooks/pre-commit: a hook, renamed bg/.git/hooks/pre-commit.disabled'],
    ]);
    guard.unwatch();
    writeFileSync(join(root, 'bg', '.git', 'hooks', 'pre-push'), '#!/bin/sh\n', { mode: 0o755 });
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(told).toHaveLength(1);
    expect(existsSync(join(root, 'bg', '.git', 'hooks', 'pre-push'))).toBe(true);
  }, 20_000);

  it("leaves alone a user's repository first reached later, as by a clone of it", async () => {
    const root = workspace();
    // The user's own repository, deeper than the record looks, with a hook and settings.
    git(root, 'init', '-q', join('packages', 'foo'));
    const foo = join(root, 'packages', 'foo');
    writeFileSync(join(foo, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\nexit 0\n', {
      mode: 0o755,
    });
    git(foo, 'config', 'alias.st', 'status');
    git(foo, 'config', 'filter.lfs.clean', 'git-lfs clean -- %f');
    git(foo, 'commit', '-q', '--allow-empty', '-m', 'x');
    // Older than the record's margin for file clocks.
    await new Promise((resolve) => setTimeout(resolve, 250));
    const guard = new RepositoryGuard([root]);
    await guard.record();
    // An ordinary command: its clone names the user's repository as its remote.
    git(root, 'clone', '-q', join('packages', 'foo'), 'foo-copy');
    expect(await guard.check()).toEqual([]);
    expect(existsSync(join(foo, '.git', 'hooks', 'pre-commit'))).toBe(true);
    expect(git(foo, 'config', '--get', 'alias.st').trim()).toBe('status');
    // What a command adds there afterwards is still undone.
    writeFileSync(join(foo, '.git', 'hooks', 'pre-push'), '#!/bin/sh\n', { mode: 0o755 });
    expect(await guard.check()).toEqual([
      'packages/foo/.git/hooks/pre-push: a hook, renamed packages/foo/.git/hooks/pre-push.disabled',
    ]);
  });
});

/**
 * What the janitor's check after a kill outright goes on from (guard-after-exit.ts):
 * the guard's state, kept as JSON each time it changes, read back by another guard.
 */
describe('a guard restored from its record', () => {
  it('undoes what was added since the first record, and keeps what the user had', async () => {
    const root = workspace();
    const kept: GuardState[] = [];
    const guard = new RepositoryGuard([root], undefined, (state) => kept.push(state));
    await guard.record();
    expect(kept).toHaveLength(1);
    // A repository first seen by a check (made since the record) is kept in it too.
    git(root, 'init', '-q', 'later');
    expect(await guard.check()).toEqual([]);
    expect(kept).toHaveLength(2);
    expect(kept[1]?.baseline.map(([path]) => path)).toContain(join(root, 'later', '.git'));

    writeFileSync(join(root, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\n', { mode: 0o755 });
    writeFileSync(join(root, 'later', '.git', 'hooks', 'pre-push'), '#!/bin/sh\n', {
      mode: 0o755,
    });
    git(root, 'config', 'core.pager', 'echo planted');
    const record = JSON.stringify(kept.at(-1));
    const restored = RepositoryGuard.restored(parseGuardState(record));
    expect(await restored.check()).toEqual([
      '.git/hooks/pre-commit: a hook, renamed .git/hooks/pre-commit.disabled',
      '.git/config: core.pager, moved to .git/config.disabled',
      'later/.git/hooks/pre-push: a hook, renamed later/.git/hooks/pre-push.disabled',
    ]);
    // The user's hook manager and hook, there at the record, stay.
    expect(git(root, 'config', '--get', 'core.hooksPath').trim()).toBe('.husky');
    expect(existsSync(join(root, '.git', 'hooks', 'post-checkout'))).toBe(true);
  });

  it.each([
    ['[]', 'not a guard record: version is not 1'],
    ['null', 'not a guard record: not an object'],
    ['{"version":1,"roots":"/"}', 'not a guard record: roots is not a list of strings'],
    [
      '{"version":1,"roots":["/w"],"maxDirectories":10,"recordedAt":1,"baseline":[["/w/.git",7]],"mounted":[],"settings":[]}',
      'not a guard record: baseline is not a list of pairs',
    ],
  ])('refuses a record that is not one (%s), saying what is wrong', (text, message) => {
    expect(() => parseGuardState(text)).toThrow(message);
  });
});
