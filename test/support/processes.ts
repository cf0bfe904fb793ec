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

/** A process as /proc shows it: its id, its name, and when it started (ids are reused). */
export interface ProcessInfo {
  readonly pid: number;
  readonly comm: string;
  readonly started: string;
}

function info(pid: number): (ProcessInfo & { readonly ppid: number }) | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z') return undefined;
    return { pid, comm, ppid: Number(fields[1]), started: fields[19] ?? '' };
  } catch {
    return undefined;
  }
}

/** The live processes descended from `pid` (its children, theirs, and so on), not it. */
export function descendants(pid: number): ProcessInfo[] {
  const all: (ProcessInfo & { readonly ppid: number })[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const found = info(Number(entry));
    if (found !== undefined) all.push(found);
  }
  const result: ProcessInfo[] = [];
  let parents = new Set([pid]);
  while (parents.size > 0) {
    const next = new Set<number>();
    for (const proc of all) {
      if (parents.has(proc.ppid)) {
        result.push({ pid: proc.pid, comm: proc.comm, started: proc.started });
        next.add(proc.pid);
      }
    }
    parents = next;
  }
  return result;
}

/** Those of `processes` still alive (the same id, started at the same time). */
export function stillAlive(processes: readonly ProcessInfo[]): ProcessInfo[] {
  return processes.filter((proc) => info(proc.pid)?.started === proc.started);
}

/** Waits, boundedly, until none of `processes` is alive; those still alive then. */
export async function allGone(processes: readonly ProcessInfo[]): Promise<ProcessInfo[]> {
  for (let i = 0; i < 500; i += 1) {
    if (stillAlive(processes).length === 0) return [];
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return stillAlive(processes);
}
