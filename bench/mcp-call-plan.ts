// What the tools/call benchmark's parent and its workers agree on (imports nothing).

export const IN_FLIGHT = 32;

/** The calls of a fresh process measured as its cold start (one at a time). */
export const COLD_CALLS = 1000;

/** The calls made before the timed rounds (after the cold ones), 32 in flight. */
export const WARM_CALLS = 20_000;

/** The protocol eras a contender is measured in. */
export const ERAS = ['2025', '2026-07-28'] as const;
export type Era = (typeof ERAS)[number];

export const FLOOR = 'floor: SDK low-level Server + ajv';
export const FLOOR_HOOKS = 'floor, ALS promise hooks on';
export const FLOOR_TOLD = 'floor, requests told first';
/** The floor in a worker whose client has a zod of its own (mcp-call-worker-own-zod). */
export const FLOOR_OWN_ZOD = 'floor, its client on a zod of its own';
export const AGENTTOOL = 'agenttool serveTools';
export const MCP_SERVER = 'SDK McpServer + zod';
export const FASTMCP = 'fastmcp';

/** The contenders of each era, in the order a pass runs them. */
export const CONTENDER_NAMES: Readonly<Record<Era, readonly string[]>> = {
  '2025': [FLOOR, FLOOR_HOOKS, FLOOR_TOLD, FLOOR_OWN_ZOD, AGENTTOOL, MCP_SERVER, FASTMCP],
  // fastmcp serves the 2025 era only; on Node 24 the hooks row is the floor again.
  '2026-07-28': [FLOOR, FLOOR_TOLD, FLOOR_OWN_ZOD, AGENTTOOL, MCP_SERVER],
};

/** A contender as the worker takes it on its command line: `<era>/<name>`. */
export function contenderKey(era: Era, name: string): string {
  return `${era}/${name}`;
}

/**
 * What a worker prints: ns per call, sequential and with IN_FLIGHT in flight, in wall
 * time (the median of `measure`'s rounds) and in the process's CPU time (the median
 * over the same rounds).
 */
export interface WorkerFigures {
  readonly sequential: number;
  readonly concurrent: number;
  readonly sequentialCpu: number;
  /** The mean over the timed rounds, collections included (see the worker's `figure`). */
  readonly sequentialCpuMean: number;
  readonly concurrentCpu: number;
  /** CPU time per call of the process's first COLD_CALLS calls, one at a time. */
  readonly coldCpu: number;
}
