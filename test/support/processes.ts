import { readFileSync, readdirSync } from 'node:fs';

/** The process group of a live process, from /proc; undefined when it is gone or a zombie. */
export function liveGroup(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' ? undefined : Number(fields[2]);
  } catch {
    return undefined;
  }
}

/**
 * Waits for a process to be gone (exited, or a zombie nobody reaped yet): the OS tells
 * no one when that happens, so /proc is polled, boundedly; false if it never goes.
 */
export async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 500; i += 1) {
    if (liveGroup(pid) === undefined) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

/**
 * Live processes of this host whose command line has `arg` as one of its words: a way to
 * find, from outside, a process started in a sandbox (whose own ids are its namespace's).
 */
export function processesWithArgument(arg: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const words = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (words.includes(arg) && liveGroup(Number(entry)) !== undefined) found.push(Number(entry));
    } catch {
      // gone
    }
  }
  return found;
}

/** Waits, boundedly, until no process has `arg` among its words; false if one stays. */
export async function noneWithArgument(arg: string): Promise<boolean> {
  for (let i = 0; i < 500; i += 1) {
    if (processesWithArgument(arg).length === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

/**
 * Waits, boundedly, until exactly `count` processes have `arg` among their words (a
 * process started in the background may not have run its program yet); their ids.
 */
export async function withArgument(arg: string, count = 1): Promise<number[]> {
  for (let i = 0; i < 250; i += 1) {
    const found = processesWithArgument(arg);
    if (found.length === count) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return processesWithArgument(arg);
}
