// Core's file, not its index: see batch.ts (read for every job of a batch).
import { isSequential, resourceOf } from '../core/tool';
import { DEFAULT_MAX_PARALLEL, type Job } from './types';

/** The bound a batch runs under: `maxParallel` when it is a positive number, else the default. */
export function boundOf(maxParallel: number | undefined): number {
  if (maxParallel === undefined || !(maxParallel >= 1)) return DEFAULT_MAX_PARALLEL;
  return Math.floor(maxParallel);
}

/**
 * The chains of a batch as links: the first job of each chain, in the order the chains
 * are placed, and for each job the next job of its chain (-1 for the last). A serial
 * batch is one chain of every job. Otherwise jobs whose tools name one resource form a
 * chain placed where its first job is, and every other job (one without a tool
 * included) is a chain of its own.
 */
export interface ChainLinks {
  readonly heads: readonly number[];
  readonly next: Int32Array;
}

function chainLinks(jobs: readonly Job[], serial: boolean): ChainLinks {
  const n = jobs.length;
  const next = new Int32Array(n).fill(-1);
  if (n === 0) return { heads: [], next };
  if (serial) return serialLinks(next);
  const heads: number[] = [];
  let lastOf: Map<string, { at: number }> | undefined;
  for (let i = 0; i < n; i++) {
    const tool = jobs[i]?.tool;
    if (tool === undefined || tool === null) {
      heads.push(i);
      continue;
    }
    // One read of each tool: a sequential tool makes the whole batch serial.
    if (isSequential(tool)) return serialLinks(next);
    const resource = resourceOf(tool);
    if (resource === '') {
      heads.push(i);
      continue;
    }
    // The chain's last job is kept in a holder, so a job joining a chain costs one lookup.
    lastOf ??= new Map();
    const last = lastOf.get(resource);
    if (last === undefined) {
      heads.push(i);
      lastOf.set(resource, { at: i });
    } else {
      next[last.at] = i;
      last.at = i;
    }
  }
  return { heads, next };
}

/** One chain of every job, in the model's order. */
function serialLinks(next: Int32Array): ChainLinks {
  next.fill(-1);
  for (let i = 0; i < next.length - 1; i++) next[i] = i + 1;
  return { heads: [0], next };
}

/**
 * The links a batch runs by: serial when `sequential` or a bound of 1 says so, or when
 * any job's tool is sequential (found in the same pass that groups resources).
 */
export function batchLinks(jobs: readonly Job[], bound: number, sequential: boolean): ChainLinks {
  return chainLinks(jobs, sequential || bound === 1);
}

/** The chains as lists of job indices in the model's order (see {@link batchLinks}). */
export function chainsOf(jobs: readonly Job[], bound: number, sequential: boolean): number[][] {
  const { heads, next } = batchLinks(jobs, bound, sequential);
  return heads.map((head) => {
    const chain: number[] = [];
    for (let i = head; i !== -1; i = next[i] as number) chain.push(i);
    return chain;
  });
}
