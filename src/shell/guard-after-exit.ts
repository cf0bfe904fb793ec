/**
 * The repository guard's check after its process was killed outright, run by that
 * process's janitor (janitor.ts) with the path of the guard's record (guard-record.ts),
 * once the sandbox's processes are killed: what a command added to a repository since
 * the shell's first start (a hook, a config entry that runs something, an agent's
 * settings) is undone, as the check after each command does. Its notes go to stderr,
 * which the janitor does not keep: the files renamed `.disabled` say what was done.
 *
 * Usage: node guard-after-exit.js <record>
 */
import { readFileSync } from 'node:fs';
import { parseGuardState } from './guard-state';
import { RepositoryGuard } from './repository-guard';

const record = process.argv[2];
if (record === undefined) {
  process.stderr.write('usage: guard-after-exit <record>\n');
  process.exitCode = 2;
} else {
  const guard = RepositoryGuard.restored(parseGuardState(readFileSync(record, 'utf8')));
  void guard.check().then((notes) => {
    for (const note of notes) process.stderr.write(`agenttool: ${note}\n`);
  });
}
