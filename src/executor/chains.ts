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
 * included) is a chain of its own. Typed arrays: a batch of many jobs leaves the
 * collector nothing to copy.
 */
export interface ChainLinks {
  readonly heads: Int32Array;
  readonly next: Int32Array;
}

function chainLinks(jobs: readonly Job[], serial: boolean): ChainLinks {
  const n = jobs.length;
  const next = new Int32Array(n).fill(-1);
  if (n === 0) return { heads: new Int32Array(0), next };
  if (serial) return serialLinks(next);
  const heads = new Int32Array(n);
  let chains = 0;
  let lastOf: Map<string, { at: number }> | undefined;
  for (let i = 0; i < n; i++) {
    const tool = jobs[i]?.tool;
    if (tool === undefined || tool === null) {
      heads[chains++] = i;
      continue;
    }
    // One read of each tool: a sequential tool makes the whole batch serial.
    if (isSequential(tool)) return serialLinks(next);
    const resource = resourceOf(tool);
    if (resource === '') {
      heads[chains++] = i;
      continue;
    }
    // The chain's last job is kept in a holder, so a job joining a chain costs one lookup.
    lastOf ??= new Map();
    const last = lastOf.get(resource);
    if (last === undefined) {
      heads[chains++] = i;
      lastOf.set(resource, { at: i });
    } else {
      next[last.at] = i;
      last.at = i;
    }
  }
  return { heads: heads.subarray(0, chains), next };
}

/** One chain of every job, in the model's order. */
function serialLinks(next: Int32Array): ChainLinks {
  next.fill(-1);
  for (let i = 0; i < next.length - 1; i++) next[i] = i + 1;
  return { heads: Int32Array.of(0), next };
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
  return Array.from(heads, (head) => {
    const chain: number[] = [];
    for (let i = head; i !== -1; i = next[i] as number) chain.push(i);
    return chain;
  });
}
