import { AgentToolError } from '../core';

/** What a standard (TC39) decorator receives after its target: its context object. */
interface StandardDecoratorContext {
  readonly kind: string;
  readonly name: string | symbol | undefined;
}

function isStandardContext(value: unknown): value is StandardDecoratorContext {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { kind?: unknown }).kind === 'string' &&
    'name' in value
  );
}

/**
 * Throws, naming the decorator, where it was applied and the fix, when `second` (what
 * the decorator received after its target) is a standard (TC39) decorator's context:
 * TypeScript compiles standard decorators when `experimentalDecorators` is off, and so
 * do esbuild-based runners (tsx) reading such a tsconfig.json. agenttool's decorators
 * are TypeScript's experimental ones, which metadata needs; without this check
 * reflect-metadata fails with a bare `TypeError`.
 */
export function requireExperimentalDecorators(decorator: string, second: unknown): void {
  if (!isStandardContext(second)) return;
  const name = typeof second.name === 'symbol' ? second.name.toString() : (second.name ?? '');
  throw new AgentToolError(
    'INVALID_DECORATOR',
    `agenttool: @${decorator} on the ${second.kind} ${name} was applied as a standard (TC39) decorator; agenttool's decorators are TypeScript's experimental decorators: set "experimentalDecorators": true and "emitDecoratorMetadata": true in the tsconfig.json the code is compiled with (tsx and esbuild read it too)`,
  );
}
