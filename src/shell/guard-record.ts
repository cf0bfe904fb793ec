import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type GuardState } from './guard-state';
import { cleanupOnHardExit } from './janitor';

/**
 * Where a sandboxed shell's repository guard keeps what it knows, for the check the
 * janitor makes from it when this process is killed outright (SIGKILL, an OOM kill: no
 * stop of ours runs): a hook or config entry a command planted just before would else
 * stay for git on the host to run, and a later start take it as the user's. A file in a
 * folder of its own under the temporary directory, this user's alone; removed once
 * released (the shell closed), or by the janitor after its check.
 */
export class GuardRecord {
  #folder: string | undefined;
  #forget: (() => void) | undefined;
  #released = false;

  /** Writes `state` over what the record held (whole: a kill never finds half of it). */
  keep(state: GuardState): void {
    if (this.#released) return;
    try {
      this.#folder ??= mkdtempSync(join(tmpdir(), 'agenttool-guard-'));
      const file = join(this.#folder, 'state.json');
      const next = `${file}.next`;
      writeFileSync(next, JSON.stringify(state), { mode: 0o600 });
      renameSync(next, file);
      this.#forget ??= cleanupOnHardExit.guard(file);
    } catch {
      // No room to keep it: the guard still checks after each command and at a stop;
      // only a kill outright then leaves what the last command planted.
    }
  }

  /** Removes the record: the shell stopped, its guard checked for the last time. */
  release(): void {
    this.#released = true;
    this.#forget?.();
    if (this.#folder !== undefined) rmSync(this.#folder, { recursive: true, force: true });
  }
}
