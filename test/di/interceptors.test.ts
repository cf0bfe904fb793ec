/**
 * Interceptors in an app, through the public entries: the app's, its modules' (the
 * importing modules' first, as module guards chain) and each tool's `@UseInterceptors`,
 * around each call once its guards have let it through and its arguments are valid, the
 * results coming back in reverse; interceptor classes built once with injection; what an
 * interceptor throws read as any tool error, once; the same chain for a served call
 * (both protocol eras) and for a batch, never twice.
 */
import 'reflect-metadata';
import {
  type AccessRequest,
  type CallHandler,
  createContext,
  type Elicitor,
  Guard,
  type Interceptor,
  Param,
  recordable,
  type Result,
  Tool,
  type ToolContext,
  type ToolExecutionContext,
  UseInterceptors,
  toolFromInstance,
} from 'agenttool';
import {
  CallAuth,
  type CanActivate,
  Inject,
  Injectable,
  InjectionToken,
  Module,
  ToolApp,
} from 'agenttool/di';
import { connectMcp, type McpToolServer, serveTools } from 'agenttool/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport as SdkMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { connectInMemory } from '../support/in-memory';

const apps: ToolApp[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function create(
  module: new () => unknown,
  options: Parameters<typeof ToolApp.create>[1] = {},
): Promise<ToolApp> {
  const app = await ToolApp.create(module, options);
  apps.push(app);
  return app;
}

/** An interceptor that writes `<name> before` and `<name> after` into `log`. */
function around(log: string[], name: string): Interceptor {
  return {
    async intercept(_context: ToolExecutionContext, next: CallHandler): Promise<Result> {
      log.push(`${name} before`);
      const result = await next.handle();
      log.push(`${name} after`);
      return result;
    },
  };
}

async function call(app: ToolApp, name: string, args: object = {}): Promise<Result> {
  const [outcome] = await app.results([app.job(name, args)]);
  if (outcome?.error !== undefined) throw outcome.error;
  return outcome!.result;
}

/** Calls `name` served by `server` over the 2025 era (in memory) or 2026-07-28 (its fetch face). */
async function served(
  server: McpToolServer,
  era: 'legacy' | 'modern',
  name: string,
  args: object = {},
  listed: () => void = () => undefined,
  elicitor?: Elicitor,
): Promise<Result> {
  let remote;
  if (era === 'legacy') {
    remote = await connectInMemory(server, { elicitation: elicitor !== undefined });
  } else {
    const handler = server.handler();
    remote = await connectMcp({
      transport: {
        url: 'http://localhost/mcp',
        fetch: (url, init) => handler.fetch(new Request(url, init)),
      },
      protocol: 'modern',
      notificationGrace: 0,
      elicitation: elicitor !== undefined,
    });
  }
  try {
    // Listing asks the guards too: what comes after is the call's.
    listed();
    const tool = remote.tools().find((t) => t.name === name)!;
    const c = { id: 'call_1', args: JSON.stringify(args) };
    return await tool.execute(c, createContext({ call: c, elicitor }));
  } finally {
    await remote.close();
  }
}

describe('the chain', () => {
  const log: string[] = [];
  beforeEach(() => (log.length = 0));

  class SayArgs {
    @Param('Who') name!: string;
  }
  const guard = (name: string) => (): boolean => {
    log.push(`guard ${name}`);
    return true;
  };

  @Tool({ name: 'say', description: 'Says hello', args: SayArgs })
  @Guard(guard('tool'))
  @UseInterceptors(around(log, 'tool 1'), around(log, 'tool 2'))
  class Say {
    execute(args: SayArgs): string {
      log.push(`execute ${args.name}`);
      return `hello ${args.name}`;
    }
  }
  @Module({ tools: [Say], guards: [guard('feature')], interceptors: [around(log, 'feature')] })
  class FeatureModule {}
  @Module({
    imports: [FeatureModule],
    guards: [guard('middle')],
    interceptors: [around(log, 'middle')],
  })
  class MiddleModule {}
  @Module({ imports: [MiddleModule], guards: [guard('root')], interceptors: [around(log, 'root')] })
  class RootModule {}

  const expected = [
    'guard root',
    'guard middle',
    'guard feature',
    'guard tool',
    'app before',
    'root before',
    'middle before',
    'feature before',
    'tool 1 before',
    'tool 2 before',
    'execute ada',
    'tool 2 after',
    'tool 1 after',
    'feature after',
    'middle after',
    'root after',
    'app after',
  ];

  it.each(['legacy', 'modern'] as const)(
    'runs the app, the modules (root first) and the tool, after the guards, served in the %s era',
    async (era) => {
      const app = await create(RootModule, { interceptors: [around(log, 'app')] });
      const server = serveTools(app);
      try {
        const result = await served(server, era, 'say', { name: 'ada' }, () => (log.length = 0));
        expect(result.output).toBe('hello ada');
      } finally {
        await server.close();
      }
      expect(log).toEqual(expected);
    },
  );

  it('runs the same chain in a batch (guards are a server matter there)', async () => {
    const app = await create(RootModule, { interceptors: [around(log, 'app')] });
    expect((await call(app, 'say', { name: 'ada' })).output).toBe('hello ada');
    expect(log).toEqual(expected.filter((line) => !line.startsWith('guard')));
  });

  it('runs the chain once per call when one app is served and runs batches too', async () => {
    let runs = 0;
    const counted = (_c: ToolExecutionContext, next: CallHandler): Promise<Result> => {
      runs++;
      return next.handle();
    };
    const app = await create(RootModule, { interceptors: [counted] });
    const server = serveTools(app);
    try {
      await served(server, 'legacy', 'say', { name: 'a' });
      await served(server, 'modern', 'say', { name: 'b' });
      await app.results([app.job('say', { name: 'c' }), app.job('say', { name: 'd' })]);
    } finally {
      await server.close();
    }
    expect(runs).toBe(4);
    expect(log.filter((line) => line === 'tool 1 before')).toHaveLength(4);
  });

  it('runs no interceptor for arguments that are not valid', async () => {
    const app = await create(RootModule, { interceptors: [around(log, 'app')] });
    await expect(call(app, 'say', { name: 7 })).rejects.toThrow(/^invalid arguments: name/);
    expect(log).toEqual([]);
  });
});

describe('interceptor classes', () => {
  it('are built once for the app with their module providers injected, and may resolve providers per call', async () => {
    const built: string[] = [];
    const PREFIX = new InjectionToken<string>('PREFIX');
    @Injectable()
    class Audit {
      readonly lines: string[] = [];
    }
    @Injectable()
    class Audited implements Interceptor {
      constructor(
        private readonly audit: Audit,
        private readonly auth: CallAuth,
      ) {
        built.push('Audited');
      }
      async intercept(context: ToolExecutionContext, next: CallHandler): Promise<Result> {
        const prefix = await context.resolve(PREFIX);
        this.audit.lines.push(`${prefix} ${context.tool.name} by ${this.auth.subject ?? 'nobody'}`);
        return next.handle();
      }
    }
    @Tool({ name: 'one', description: 'A tool of the test' })
    @UseInterceptors(Audited)
    class One {
      execute(): string {
        return '1';
      }
    }
    @Tool({ name: 'two', description: 'A tool of the test' })
    class Two {
      execute(): string {
        return '2';
      }
    }
    @Module({
      tools: [One, Two],
      providers: [Audit, { provide: PREFIX, useValue: 'audit:' }],
      interceptors: [Audited],
    })
    class AuditModule {}

    const app = await create(AuditModule);
    expect(built).toEqual(['Audited']);
    await call(app, 'one');
    await call(app, 'two');
    expect((await app.get(Audit)).lines).toEqual([
      'audit: one by nobody',
      'audit: one by nobody',
      'audit: two by nobody',
    ]);
  });

  it('refuses an entry that is no interceptor, one that needs a session-scoped provider, and a missing dependency', async () => {
    @Injectable({ scope: 'session' })
    class PerSession {}
    @Injectable()
    class Sessional implements Interceptor {
      constructor(readonly perSession: PerSession) {}
      intercept(_c: ToolExecutionContext, next: CallHandler): Promise<Result> {
        return next.handle();
      }
    }
    @Injectable()
    class Missing {}
    @Injectable()
    class NeedsMissing implements Interceptor {
      constructor(@Inject(Missing) readonly missing: Missing) {}
      intercept(_c: ToolExecutionContext, next: CallHandler): Promise<Result> {
        return next.handle();
      }
    }
    class NotOne {}
    @Tool({ name: 't', description: 'A tool of the test' })
    @UseInterceptors(NeedsMissing)
    class T {
      execute(): string {
        return '';
      }
    }
    @Module({
      tools: [T],
      providers: [PerSession],
      interceptors: [Sessional, 42 as never, NotOne as never],
    })
    class Broken {}
    const error = await ToolApp.create(Broken, { interceptors: ['nope' as never] }).then(
      () => undefined,
      (thrown: unknown) => thrown as Error,
    );
    expect(error?.message).toMatch(/options\.interceptors\[0\]: "nope" is not an interceptor/);
    expect(error?.message).toMatch(/Broken interceptors\[1\]: 42 is not an interceptor/);
    expect(error?.message).toMatch(
      /Broken interceptors\[2\]: NotOne has no intercept\(context, next\) method/,
    );
    expect(error?.message).toMatch(
      /Broken: interceptor Sessional needs a session-scoped provider, but an interceptor is built once for the app/,
    );
    expect(error?.message).toMatch(
      /interceptor NeedsMissing's constructor parameter #0 needs Missing/,
    );
  });

  it('refuses a bad @UseInterceptors when the class is read', () => {
    @Tool({ name: 'bad', description: 'A tool of the test' })
    @UseInterceptors({} as never)
    class Bad {
      execute(): string {
        return '';
      }
    }
    expect(() => toolFromInstance(new Bad())).toThrow(
      /Bad: @UseInterceptors' interceptor #0: an object without intercept is not an interceptor/,
    );
  });
});

describe('failures', () => {
  @Tool({ name: 'works', description: 'A tool of the test' })
  class Works {
    execute(): string {
      return 'worked';
    }
  }

  it.each([
    ['an error', new Error('no entry today'), 'no entry today', 'Error'],
    [
      'a fault',
      new TypeError('x is not a function'),
      'tool "works" panicked: TypeError: x is not a function',
      'PanicError',
    ],
  ])(
    'reads %s an interceptor throws as the tool error, once',
    async (_what, thrown, message, name) => {
      const fail: Interceptor = {
        intercept: () => {
          throw thrown;
        },
      };
      @Module({ tools: [Works], interceptors: [fail] })
      class FailingModule {}
      const app = await create(FailingModule);
      const [outcome] = await app.results([app.job('works')]);
      expect(outcome?.error?.message).toBe(message);
      expect(outcome?.error?.constructor.name).toBe(name);
      const server = serveTools(app);
      try {
        for (const era of ['legacy', 'modern'] as const) {
          // The isError result's text is the message itself, once: the model reads
          // `Error: <message>`, added by its harness.
          const error = await served(server, era, 'works').then(
            () => undefined,
            (thrown: unknown) => thrown as Error,
          );
          expect([era, error?.message]).toEqual([era, message]);
        }
      } finally {
        await server.close();
      }
    },
  );

  it('reads an interceptor that returns nothing as a fault naming it', async () => {
    class Forgetful implements Interceptor {
      async intercept(_c: ToolExecutionContext, next: CallHandler): Promise<Result> {
        await next.handle();
        return undefined as never;
      }
    }
    @Module({ tools: [Works], interceptors: [new Forgetful()] })
    class ForgetfulModule {}
    const app = await create(ForgetfulModule);
    await expect(call(app, 'works')).rejects.toThrow(
      'tool "works" panicked: TypeError: interceptor Forgetful of tool "works" returned undefined; return the result of next.handle() (or a Result of its own)',
    );
  });

  it("hands interceptors the tool's fault as its panic, which one may reshape", async () => {
    @Tool({ name: 'broken', description: 'A tool of the test' })
    class Broken {
      execute(): string {
        throw new RangeError('out of range');
      }
    }
    const seen: string[] = [];
    const shape = async (_c: ToolExecutionContext, next: CallHandler): Promise<Result> => {
      try {
        return await next.handle();
      } catch (error) {
        seen.push((error as Error).constructor.name);
        throw new Error('the tool is broken; try another');
      }
    };
    @Module({ tools: [Broken], interceptors: [shape] })
    class ShapedModule {}
    const app = await create(ShapedModule);
    await expect(call(app, 'broken')).rejects.toThrow(/^the tool is broken; try another$/);
    expect(seen).toEqual(['PanicError']);
  });
});

describe('what an interceptor sees of a call', () => {
  it('sees progress, records, questions and cancellation through the context it hands on', async () => {
    const seen: string[] = [];
    @Tool({ name: 'busy', description: 'A tool of the test' })
    class Busy {
      async execute(_args: object, ctx: ToolContext): Promise<string> {
        ctx.progress('half way');
        await ctx.record(recordable('busy:step', { step: 1 }));
        const answer = await ctx.ask({ message: 'go on?' });
        return `${answer.action}, aborted: ${ctx.signal.aborted}`;
      }
    }
    const watch = async (context: ToolExecutionContext, next: CallHandler): Promise<Result> => {
      const { ctx } = context;
      const controller = new AbortController();
      controller.abort(new Error('stop'));
      return next.handle(
        ctx.with({
          signal: controller.signal,
          call: {
            ...ctx.call,
            onUpdate: (update) => {
              seen.push(`progress ${update.output as string}`);
              ctx.call.onUpdate?.(update);
            },
          },
          recorder: async (record, current) => {
            seen.push(`recorded ${record.ns} ${record.data}`);
            await ctx.recorder?.(record, current);
          },
          elicitor: async (question) => {
            seen.push(`asked ${question.message}`);
            return { action: 'accept', content: {} };
          },
        }),
      );
    };
    @Module({ tools: [Busy], interceptors: [watch] })
    class BusyModule {}
    const records: string[] = [];
    const app = await create(BusyModule, { recorder: (record) => void records.push(record.ns) });
    expect((await call(app, 'busy')).output).toBe('accept, aborted: true');
    expect(seen).toEqual(['progress half way', 'recorded busy:step {"step":1}', 'asked go on?']);
    // Passed on: the app's recorder wrote it too.
    expect(records).toEqual(['busy:step']);
  });

  it('sees the tool, its class, the call, its validated arguments, and the caller', async () => {
    class EchoArgs {
      @Param('Text') text!: string;
    }
    @Tool({ name: 'echo', description: 'Echoes', args: EchoArgs })
    class Echo {
      execute(args: EchoArgs): string {
        return args.text;
      }
    }
    let seen: unknown;
    const look = (context: ToolExecutionContext, next: CallHandler): Promise<Result> => {
      seen = {
        tool: context.tool.name,
        description: context.tool.description,
        cls: context.toolClass,
        args: context.args,
        raw: context.call.args,
        subject: context.ctx.auth?.subject,
      };
      return next.handle();
    };
    const tool = toolFromInstance(new Echo(), { interceptors: [{ intercept: look }] });
    const c = { id: 'c1', args: '{"text":"hi"}' };
    const ctx = createContext({ call: c, auth: { subject: 'ada', clientId: 'x', scopes: [] } });
    expect((await tool.execute(c, ctx)).output).toBe('hi');
    expect(seen).toEqual({
      tool: 'echo',
      description: 'Echoes',
      cls: Echo,
      args: Object.assign(new EchoArgs(), { text: 'hi' }),
      raw: '{"text":"hi"}',
      subject: 'ada',
    });
  });

  it('fails context.resolve for a tool outside an app, unless optional', async () => {
    @Tool({ name: 'lone', description: 'A tool of the test' })
    class Lone {
      execute(): string {
        return 'lone';
      }
    }
    const results: unknown[] = [];
    const tool = toolFromInstance(new Lone(), {
      interceptors: [
        {
          intercept: async (context, next) => {
            results.push(await context.resolve('CONFIG', { optional: true }));
            await context.resolve('CONFIG');
            return next.handle();
          },
        },
      ],
    });
    const c = { id: 'c1', args: '{}' };
    await expect(tool.execute(c, createContext({ call: c }))).rejects.toThrow(
      'tool "lone": an interceptor asked for "CONFIG", but the tool is not part of an app; serve it from a ToolApp, or give the interceptor what it needs',
    );
    expect(results).toEqual([undefined]);
  });
});

describe('questions to the client', () => {
  it.each(['legacy', 'modern'] as const)(
    'leave the chain running once while the %s client answers',
    async (era) => {
      let runs = 0;
      @Tool({ name: 'confirm', description: 'Asks before it answers' })
      class Confirm {
        async execute(_args: object, ctx: ToolContext): Promise<string> {
          const answer = await ctx.ask({
            message: 'Go on?',
            schema: { type: 'object', properties: { ok: { type: 'boolean' } } },
          });
          return `${answer.action} ${JSON.stringify(answer.content)}`;
        }
      }
      const counted = async (_c: ToolExecutionContext, next: CallHandler): Promise<Result> => {
        runs++;
        const result = await next.handle();
        return { ...result, output: `${result.output as string} after ${runs} run` };
      };
      @Module({ tools: [Confirm], interceptors: [counted] })
      class ConfirmModule {}
      const app = await create(ConfirmModule);
      const server = serveTools(app);
      try {
        const result = await served(server, era, 'confirm', {}, undefined, () => ({
          action: 'accept',
          content: { ok: true },
        }));
        expect(result.output).toBe('accept {"ok":true} after 1 run');
      } finally {
        await server.close();
      }
      expect(runs).toBe(1);
    },
  );
});

describe('guards come first', () => {
  it('leaves a refused call unseen by every interceptor', async () => {
    const log: string[] = [];
    @Injectable()
    class Nobody implements CanActivate {
      canActivate(_request: AccessRequest): boolean {
        return false;
      }
    }
    @Tool({ name: 'secret', description: 'A tool of the test' })
    @Guard(Nobody)
    class Secret {
      execute(): string {
        return 'secret';
      }
    }
    @Module({ tools: [Secret], interceptors: [around(log, 'module')] })
    class SecretModule {}
    const app = await create(SecretModule, { interceptors: [around(log, 'app')] });
    const server = serveTools(app);
    const [clientEnd, serverEnd] = SdkMemoryTransport.createLinkedPair();
    await server.connect(serverEnd);
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(clientEnd);
    try {
      const result = await client.callTool({ name: 'secret', arguments: {} });
      expect(result).toMatchObject({ isError: true, content: [{ text: 'unknown tool "secret"' }] });
    } finally {
      await client.close();
      await server.close();
    }
    expect(log).toEqual([]);
  });
});
