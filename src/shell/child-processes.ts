import type * as ChildProcesses from 'node:child_process';

// node:child_process costs about 1 ms to load (with node:dgram under it): a workspace
// whose sandbox's probe passed before here serves before it spawns anything.
let loaded: typeof ChildProcesses | undefined;

/** node:child_process, loaded on the first call. */
export function childProcesses(): typeof ChildProcesses {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use
  return (loaded ??= require('node:child_process') as typeof ChildProcesses);
}
