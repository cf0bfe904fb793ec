/**
 * A workspace that holds more paths to keep read-only than bubblewrap can mount (a folder
 * of many repositories, a temporary folder) fails its shell's start saying so in the
 * workspace's terms: which folders, how many paths, what to name instead.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Shell } from 'agenttool/shell';
import { HELD_WHEN_MISSING } from '../../src/shell/protected-paths';

const linux = process.platform === 'linux' ? it : it.skip;

linux(
  'refuses to start on a folder of too many repositories, naming it and what to do',
  async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'sandbox-mounts-')));
    const shell = new Shell({ cwd: dir });
    try {
      for (let i = 0; i < 1100; i += 1) {
        const git = join(dir, `repo-${i}`, '.git');
        mkdirSync(join(git, 'hooks'), { recursive: true });
        writeFileSync(join(git, 'HEAD'), 'ref: refs/heads/main\n');
        writeFileSync(join(git, 'config'), '[core]\n');
      }
      const failure = await shell.run('echo started').then(
        () => 'started',
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      expect(failure).toContain(
        `the shell's sandbox cannot start: the folders the shell may write (${dir})`,
      );
      expect(failure).toContain(
        // Each repository's hooks and config, and what stands in for the folder's missing
        // held names (.vscode, .mcp.json, ...).
        `hold more paths it keeps read-only than the sandbox can mount (bubblewrap takes about 3000 mounts, each path and each folder on its way counting): ${2200 + HELD_WHEN_MISSING.length} paths, 1100 of them git repositories' hooks`,
      );
      expect(failure).toContain('Name a smaller folder as the workspace');
    } finally {
      await shell.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
  60_000,
);
