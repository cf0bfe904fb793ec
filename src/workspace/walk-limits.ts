import { isAbsolute, join, relative, sep } from 'node:path';
import {
  homeDotEntries,
  homeFolders,
  foldName,
  homeStartupPaths,
  type SandboxOptions,
  sandboxPolicy,
  writeProtection,
} from 'agenttool/shell';
import { withRealPaths } from './file-operations';

/**
 * What the file tools keep of the sandbox `options` of a shell working in `root` (its
 * policy; throws a `TypeError` naming a malformed setting), where paths really are: what they may
 * not read (a command's `denyRead`) and what they may not write, each with what it is for
 * the refusal (the code the server runs, a home folder's start-up files, there or not).
 */
export function walkLimits(
  options: SandboxOptions,
  root: string,
): {
  readonly denyRead: string[];
  readonly denyWrite: (readonly [path: string, what: string])[];
  /** The home folders in the root, whose hidden names stay read-only, there or not. */
  readonly homes: string[];
} {
  const policy = sandboxPolicy(options, process.env['HOME'], root);
  const homes = homeFolders(process.env['HOME']);
  const startup = new Set(homeStartupPaths(policy.allowWrite, homes));
  const hidden = new Set(homeDotEntries(policy.allowWrite, homes).filter((p) => !startup.has(p)));
  // What the shell holds in a home folder of the sandbox runtime's lists (`.bashrc`,
  // `.profile`, `.vscode`, `.claude`...) is refused by name (`writeProtection`), saying
  // what it is: it is not the code this server runs.
  const byName = (path: string): boolean => {
    const rel = relative(root, path);
    if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return false;
    return writeProtection(rel.split(sep)) !== undefined;
  };
  const code = policy.denyWrite.filter(
    (path) => !startup.has(path) && !hidden.has(path) && !byName(path),
  );
  // The homes the root is or holds: those whose start-up files are in it.
  const held = withRealPaths(homes).filter(
    (home) => homeStartupPaths(policy.allowWrite, [home]).length > 0,
  );
  return {
    homes: held,
    denyRead: withRealPaths(policy.denyRead),
    denyWrite: [
      ...withRealPaths(code).map((path) => [path, 'the code this server runs'] as const),
      ...withRealPaths([...startup]).map(
        (path) =>
          [
            path,
            "a start-up file of the home folder (it runs outside the sandbox at the user's next login, shell or git command)",
          ] as const,
      ),
      ...withRealPaths([...hidden]).map(
        (path) =>
          [
            path,
            "a hidden file or folder of the home folder (settings and tools the user's programs run outside the sandbox)",
          ] as const,
      ),
    ],
  };
}

/**
 * Where `path` (folded, see `foldName`) lies in a hidden name at the top of one of
 * `homes`, but `.git`: that name's path, or undefined. What the user's programs trust
 * there (`.ssh/authorized_keys`, `.aws/config`) would run or let in outside any
 * sandbox, made or not.
 */
export function hiddenAtHomeTop(homes: readonly string[], path: string): string | undefined {
  for (const home of homes) {
    const folded = foldName(home);
    if (!path.startsWith(folded + sep)) continue;
    const first = path.slice(folded.length + 1).split(sep)[0]!;
    if (first.startsWith('.') && first !== '.git') return join(home, first);
  }
  return undefined;
}
