import { readFileSync } from 'node:fs';

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
