// What the tools/call benchmark's parent and its workers agree on (imports nothing).

export const IN_FLIGHT = 32;

export const FLOOR = 'floor: SDK Server + ajv';
export const FLOOR_HOOKS = 'floor, ALS promise hooks on';
export const AGENTTOOL = 'agenttool serveTools';
export const MCP_SERVER = 'SDK McpServer + zod';
export const FASTMCP = 'fastmcp';

/** Every contender, in the order a pass runs them. */
export const CONTENDER_NAMES = [FLOOR, FLOOR_HOOKS, AGENTTOOL, MCP_SERVER, FASTMCP] as const;

/**
 * What a worker prints: ns per call, sequential and with IN_FLIGHT in flight, in wall
 * time (the median of `measure`'s rounds) and in the process's CPU time (the median
 * over the same rounds).
 */
export interface WorkerFigures {
  readonly sequential: number;
  readonly concurrent: number;
  readonly sequentialCpu: number;
  readonly concurrentCpu: number;
}
