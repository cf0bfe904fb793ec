/**
 * The benchmarks' no-op MCP tool with five arguments, in the forms every contender
 * takes. This file imports nothing, so a start-up child loads only its own library.
 */

/** The arguments every call sends (valid for every form below). */
export const NOOP_ARGS = {
  path: 'notes/today.md',
  count: 3,
  ratio: 0.5,
  enabled: true,
  mode: 'safe',
} as const;

/** The modes `mode` allows. */
export const MODES = ['fast', 'safe', 'dry'] as const;

export const NOOP_DESCRIPTION = 'Does nothing with five arguments.';

/** The arguments' JSON Schema, as a hand-written server would serve and validate it. */
export function noopJsonSchema(): {
  type: 'object';
  properties: Record<string, Record<string, string | string[]>>;
  required: string[];
} {
  return {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'Where' },
      count: { type: 'integer', description: 'How many' },
      ratio: { type: 'number', description: 'A ratio' },
      enabled: { type: 'boolean', description: 'On or off' },
      mode: { type: 'string', enum: [...MODES], description: 'Which mode' },
    },
    required: ['path', 'count', 'ratio', 'enabled', 'mode'],
  };
}
