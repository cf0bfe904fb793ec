// The no-op tool's arguments as a zod shape (imports zod only).
import { z } from 'zod';
import { MODES } from './mcp-noop';

/** A fresh zod shape equivalent to the decorated arguments class. */
export function noopZodShape(): {
  path: z.ZodString;
  count: z.ZodNumber;
  ratio: z.ZodNumber;
  enabled: z.ZodBoolean;
  mode: z.ZodEnum<{ fast: 'fast'; safe: 'safe'; dry: 'dry' }>;
} {
  return {
    path: z.string().describe('Where'),
    count: z.number().int().describe('How many'),
    ratio: z.number().describe('A ratio'),
    enabled: z.boolean().describe('On or off'),
    mode: z.enum(MODES).describe('Which mode'),
  };
}
