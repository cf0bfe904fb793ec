import { isSequential, resourceOf } from '../core';
import { DEFAULT_MAX_PARALLEL, type Job } from './types';

/** The bound a batch runs under: `maxParallel` when it is a positive number, else the default. */
export function boundOf(maxParallel: number | undefined): number {
  if (maxParallel === undefined || !(maxParallel >= 1)) return DEFAULT_MAX_PARALLEL;
  return Math.floor(maxParallel);
}

/** True when the batch runs one job at a time in the model's order. */
export function isSerialBatch(jobs: readonly Job[], bound: number, sequential: boolean): boolean {
  if (sequential || bound === 1) return true;
  for (const job of jobs) {
    if (job.tool !== undefined && job.tool !== null && isSequential(job.tool)) return true;
  }
  return false;
}

/**
 * The chains of a batch, each a list of job indices in the model's order, together
 * covering every job once. A serial batch is one chain of every job. Otherwise jobs
 * whose tools name one resource form a chain placed where its first job is, and every
 * other job (one without a tool included) is a chain of its own.
 */
export function chainsOf(jobs: readonly Job[], serial: boolean): number[][] {
  const n = jobs.length;
  if (n === 0) return [];
  if (serial) return [Array.from({ length: n }, (_, i) => i)];
  const chains: number[][] = [];
  let byResource: Map<string, number[]> | undefined;
  for (let i = 0; i < n; i++) {
    const tool = jobs[i]?.tool;
    const resource = tool === undefined || tool === null ? '' : resourceOf(tool);
    if (resource === '') {
      chains.push([i]);
      continue;
    }
    byResource ??= new Map();
    const chain = byResource.get(resource);
    if (chain !== undefined) {
      chain.push(i);
    } else {
      const fresh = [i];
      byResource.set(resource, fresh);
      chains.push(fresh);
    }
  }
  return chains;
}
