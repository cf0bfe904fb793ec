/**
 * Classes compiled without `emitDecoratorMetadata` (as tsc does when the flag is off, and
 * as esbuild-based runners always do) have no constructor parameter types, so nothing
 * names what to inject: the error says so and names the flag, unlike the error for a
 * parameter whose emitted type names no token (an interface).
 */
import { ModuleError, ToolApp } from 'agenttool/di';
import { compileDecorated, removeCompiled } from '../support/compile-decorated';

const SOURCE = `
import { Tool } from 'agenttool';
import { Injectable, Module } from 'agenttool/di';

@Injectable()
export class Clock {
  now(): string {
    return 'noon';
  }
}

@Tool({ name: 'time', description: 'Tell the time' })
export class TimeTool {
  constructor(private readonly clock: Clock) {}
  execute(): string {
    return this.clock.now();
  }
}

@Module({ tools: [TimeTool], providers: [Clock] })
export class TimeModule {}
`;

afterAll(removeCompiled);

async function creationError(module: unknown): Promise<ModuleError> {
  const error: unknown = await ToolApp.create(module as new () => object).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ModuleError);
  return error as ModuleError;
}

describe('constructor injection without emitted parameter types', () => {
  it('names emitDecoratorMetadata and esbuild when a tool class was compiled without it', async () => {
    const { TimeModule } = compileDecorated(SOURCE, { emitDecoratorMetadata: false });
    const error = await creationError(TimeModule);
    expect(error.code).toBe('MISSING_PROVIDER');
    expect(error.message).toBe(
      `ToolApp.create(TimeModule): TimeModule: TimeTool's constructor parameter #0 has no injection token: TypeScript emitted no constructor parameter types for TimeTool; compile with "emitDecoratorMetadata": true and decorate the class (@Tool, @Injectable()), or add @Inject(token) to the parameter. If tsconfig.json sets the flag, the likely cause is a runner built on esbuild (tsx, esbuild, Vite, Vitest), which never emits the types: run the code through a compiler that does (tsc, or SWC: node -r @swc-node/register)`,
    );
  });

  it('suggests @Injectable() for a provider class without a decorator, even when the flag is on', async () => {
    const { HoursModule } = compileDecorated(
      `
import { Tool } from 'agenttool';
import { Module } from 'agenttool/di';

export class Clock {}

export class Hours {
  constructor(readonly clock: Clock) {}
}

@Tool({ name: 'hours', description: 'Count the hours' })
export class HoursTool {
  constructor(private readonly hours: Hours) {}
  execute(): string {
    return String(this.hours);
  }
}

@Module({ tools: [HoursTool], providers: [Clock, Hours] })
export class HoursModule {}
`,
      { emitDecoratorMetadata: true },
    );
    const error = await creationError(HoursModule);
    // HoursTool has a decorator, so its parameter types were emitted; Hours has none. Its
    // dependency is a class, so the fix is a decorator on Hours, not @Inject(token).
    expect(error.message).toBe(
      `ToolApp.create(HoursModule): HoursModule: Hours's constructor parameter #0 has no injection token: Hours has no decorator, so TypeScript emitted no constructor parameter types for it; decorate Hours with @Injectable() (compiled with "emitDecoratorMetadata": true)`,
    );
  });

  it('injects once the same classes are compiled with emitDecoratorMetadata', async () => {
    const { TimeModule } = compileDecorated(SOURCE, { emitDecoratorMetadata: true });
    const app = await ToolApp.create(TimeModule as new () => object);
    try {
      const [outcome] = await app.results([app.job('time', {})]);
      expect(outcome?.error).toBeUndefined();
      expect(outcome?.result?.output).toBe('noon');
    } finally {
      await app.close();
    }
  });

  describe('of an inherited constructor', () => {
    const INHERITED = `
import { Tool } from 'agenttool';
import { Inject, Injectable, Module } from 'agenttool/di';

@Injectable()
export class Clock {
  now(): string {
    return 'noon';
  }
}

export class Base {
  constructor(readonly clock: Clock) {}
}

@Tool({ name: 'time', description: 'Tell the time' })
export class TimeTool extends Base {
  execute(): string {
    return this.clock.now();
  }
}

export class TokenBase {
  constructor(@Inject(Clock) readonly clock: Clock) {}
}

@Tool({ name: 'time', description: 'Tell the time' })
export class TokenTimeTool extends TokenBase {
  execute(): string {
    return this.clock.now();
  }
}

@Module({ tools: [TimeTool], providers: [Clock] })
export class TimeModule {}

@Module({ tools: [TokenTimeTool], providers: [Clock] })
export class TokenTimeModule {}
`;
    const message = (tool: string) =>
      `ToolApp.create(TimeModule): TimeModule: ${tool}'s constructor parameter #0 (declared by Base) has no injection token: TypeScript emitted no constructor parameter types for Base, whose constructor ${tool} inherits; decorate Base with @Injectable() (compiled with "emitDecoratorMetadata": true), or add @Inject(token) to the parameter`;

    it.each([false, true])(
      'counts the parameters the base class declares (emitDecoratorMetadata %s), and says which class lacks the types',
      async (emitDecoratorMetadata) => {
        const { TimeModule } = compileDecorated(INHERITED, { emitDecoratorMetadata });
        const error = await creationError(TimeModule);
        expect(error.code).toBe('MISSING_PROVIDER');
        expect(error.message).toBe(message('TimeTool'));
      },
    );

    it("injects through the base class's @Inject tokens, without emitted types", async () => {
      const { TokenTimeModule } = compileDecorated(INHERITED, { emitDecoratorMetadata: false });
      const app = await ToolApp.create(TokenTimeModule as new () => object);
      try {
        const [outcome] = await app.results([app.job('time', {})]);
        expect(outcome?.result?.output).toBe('noon');
      } finally {
        await app.close();
      }
    });
  });
});
