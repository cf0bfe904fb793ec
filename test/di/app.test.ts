import 'reflect-metadata';
import {
  createContext,
  Param,
  recordable,
  type Session,
  type ToolContext,
  type ToolRecord,
  Tool,
} from 'agenttool';
import {
  CallElicitor,
  CallRecorder,
  Inject,
  Injectable,
  InjectionToken,
  Module,
  ModuleError,
  ToolApp,
} from 'agenttool/di';

// A closable resource, as a persistent shell or a container would be.
class Log {
  readonly lines: string[] = [];
}

@Injectable()
class Resource {
  static created = 0;
  readonly id = ++Resource.created;
  constructor(private readonly log: Log) {}
  close(): void {
    this.log.lines.push(`close resource ${this.id}`);
  }
}

const GREETING = new InjectionToken<string>('greeting');
const SYMBOL_TOKEN = Symbol('answer');

class EchoArgs {
  @Param('What to say') text!: string;
}

@Tool({ name: 'echo', description: 'Echo with a greeting', args: EchoArgs })
class EchoTool {
  constructor(
    @Inject(GREETING) private readonly greeting: string,
    @Inject('PUNCTUATION') private readonly punctuation: string,
    @Inject(SYMBOL_TOKEN) private readonly answer: number,
    private readonly resource: Resource,
  ) {}
  execute(args: EchoArgs): string {
    return `${this.greeting} ${args.text}${this.punctuation} ${this.answer} #${this.resource.id}`;
  }
}

@Tool({ name: 'shared', description: 'Uses the shared resource too' })
class SharedTool {
  constructor(
    private readonly resource: Resource,
    private readonly log: Log,
  ) {}
  execute(): string {
    return `resource ${this.resource.id}`;
  }
  close(): void {
    this.log.lines.push('close shared tool');
  }
}

@Module({
  providers: [Log, Resource, { provide: 'ALIAS', useExisting: Resource }],
  exports: [Log, Resource, 'ALIAS'],
})
class ResourceModule {}

@Module({
  imports: [ResourceModule],
  tools: [EchoTool, SharedTool],
  providers: [
    { provide: GREETING, useFactory: async () => Promise.resolve('hello') },
    { provide: 'PUNCTUATION', useValue: '!' },
    { provide: SYMBOL_TOKEN, useFactory: (r: Resource) => r.id * 42, inject: ['ALIAS'] },
  ],
})
class AppModule {}

describe('modules and the app', () => {
  it('builds tools with every provider kind and token kind', async () => {
    const app = await ToolApp.create(AppModule);
    const [echo] = await app.results([app.job('echo', { text: 'world' })]);
    const resource = await app.get(Resource);
    expect(echo?.result?.output).toBe(`hello world! ${resource.id * 42} #${resource.id}`);
    expect(app.definitions().map((d) => d.name)).toEqual(['echo', 'shared']);
    await app.close();
  });

  it('warns once when it starts of the tools without a description, and starts', async () => {
    @Tool({ name: 'quiet' })
    class Quiet {
      execute(): string {
        return 'quiet';
      }
    }
    @Tool({ name: 'blank', description: '  ' })
    class Blank {
      execute(): string {
        return 'blank';
      }
    }
    @Module({ tools: [Quiet, Blank, SharedTool], providers: [Log, Resource] })
    class QuietModule {}
    const warnings: string[] = [];
    const app = await ToolApp.create(QuietModule, { onWarning: (w) => warnings.push(w) });
    await app.close();
    expect(warnings).toEqual([
      'ToolApp.create(QuietModule): tools "quiet", "blank" have no description; a model chooses its tools by their descriptions: say what each does and when to use it in @Tool({ description })',
    ]);
    // Without onWarning it is a process warning; an app whose tools all say what they do has none.
    const emitted = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      await (await ToolApp.create(QuietModule)).close();
      await (await ToolApp.create(AppModule)).close();
      expect(emitted.mock.calls).toEqual([
        [warnings[0], { type: 'AgentToolWarning', code: 'AGENTTOOL_NO_DESCRIPTION' }],
      ]);
    } finally {
      emitted.mockRestore();
    }
  });

  it('refuses a job for a tool it does not have at once, naming the tools it has', async () => {
    const app = await ToolApp.create(AppModule);
    try {
      expect(() => app.job('nope')).toThrow(
        expect.objectContaining({
          code: 'NO_TOOL',
          message: 'ToolApp.job: AppModule has no tool named "nope"; its tools: echo, shared',
        }),
      );
    } finally {
      await app.close();
    }
  });

  it('shares one provider between tools and closes it once, in reverse order of creation', async () => {
    const app = await ToolApp.create(AppModule);
    const log = await app.get(Log);
    const outcomes = await app.results([app.job('shared'), app.job('echo', { text: 'x' })]);
    const id = (await app.get(Resource)).id;
    expect(outcomes[0]?.result?.output).toBe(`resource ${id}`);
    await app.close();
    await app.close();
    expect(log.lines).toEqual(['close shared tool', `close resource ${id}`]);
  });

  it('keeps two apps apart', async () => {
    const first = await ToolApp.create(AppModule);
    const second = await ToolApp.create(AppModule);
    expect(await first.get(Resource)).not.toBe(await second.get(Resource));
    await Promise.all([first.close(), second.close()]);
  });

  it('joins close errors and still closes the rest', async () => {
    @Injectable()
    class Failing {
      close(): void {
        throw new Error('stuck');
      }
    }
    const closed: string[] = [];
    @Injectable()
    class Fine {
      constructor(private readonly _failing: Failing) {}
      dispose(): void {
        closed.push('fine');
      }
    }
    @Tool({ name: 't', description: 'd' })
    class T {
      constructor(private readonly _fine: Fine) {}
      execute(): string {
        return '';
      }
    }
    @Module({ tools: [T], providers: [Failing, Fine] })
    class M {}
    const app = await ToolApp.create(M);
    const error = await app.close().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(closed).toEqual(['fine']);
    expect(error).toBeInstanceOf(AggregateError);
    expect(String((error as AggregateError).errors[0])).toContain('closing Failing: stuck');
  });
});

describe('the facades act on the current call', () => {
  class Pgid {
    constructor(readonly pgid: number) {}
    recordNS(): string {
      return 'shell:process-group';
    }
  }

  @Tool({ name: 'ask_and_record', description: 'Asks, then records' })
  class AskAndRecord {
    constructor(
      private readonly recorder: CallRecorder,
      private readonly elicitor: CallElicitor,
    ) {}
    async execute(_args: object, ctx: ToolContext): Promise<string> {
      await this.recorder.write(new Pgid(4242));
      await this.recorder.write(recordable('demo:call', { id: ctx.call.id }));
      const answer = await this.elicitor.ask({ message: 'Go on?' });
      return answer.action;
    }
  }
  @Module({ tools: [AskAndRecord] })
  class FacadeModule {}

  it('reach the recorder and elicitor given at creation', async () => {
    const records: [string, ToolRecord][] = [];
    const app = await ToolApp.create(FacadeModule, {
      recorder: (record, ctx) => {
        records.push([ctx.call.id, record]);
      },
      elicitor: (question) => ({ action: question.message === 'Go on?' ? 'accept' : 'decline' }),
    });
    const [outcome] = await app.results([app.job('ask_and_record', {}, 'call_7')]);
    expect(outcome?.result?.output).toBe('accept');
    expect(records).toEqual([
      ['call_7', { ns: 'shell:process-group', data: '{"pgid":4242}' }],
      ['call_7', { ns: 'demo:call', data: '{"id":"call_7"}' }],
    ]);
    await app.close();
  });

  it('use the defaults without a recorder or elicitor, and per-batch ones win', async () => {
    const app = await ToolApp.create(FacadeModule, { elicitor: () => ({ action: 'decline' }) });
    const [plain] = await app.results([app.job('ask_and_record')]);
    expect(plain?.result?.output).toBe('decline');
    const [batch] = await app.results([app.job('ask_and_record')], {
      elicitor: () => ({ action: 'accept' }),
    });
    expect(batch?.result?.output).toBe('accept');
    const bare = await ToolApp.create(FacadeModule);
    const [none] = await bare.results([bare.job('ask_and_record')]);
    expect(none?.result?.output).toBe('cancel');
    await Promise.all([app.close(), bare.close()]);
  });

  it('outside a call, are harmless', async () => {
    await expect(new CallRecorder().write(new Pgid(1))).resolves.toBeUndefined();
    await expect(new CallElicitor().ask({ message: 'x' })).resolves.toEqual({ action: 'cancel' });
  });
});

describe('session scope', () => {
  class FakeSession implements Session {
    readonly listeners: (() => void | Promise<void>)[] = [];
    constructor(readonly id: string) {}
    onClose(listener: () => void | Promise<void>): void {
      this.listeners.push(listener);
    }
    async end(): Promise<void> {
      for (const l of this.listeners) await l();
    }
  }

  const events: string[] = [];
  let counter = 0;

  @Injectable({ scope: 'session' })
  class PerClientShell {
    readonly n = ++counter;
    constructor() {
      events.push(`open ${this.n}`);
    }
    close(): void {
      events.push(`close ${this.n}`);
    }
  }

  @Tool({ name: 'whoami', description: 'Which shell serves this session' })
  class WhoAmI {
    constructor(private readonly shell: PerClientShell) {}
    execute(): string {
      return `shell ${this.shell.n}`;
    }
  }

  @Module({ tools: [WhoAmI], providers: [PerClientShell] })
  class SessionModule {}

  it('gives two sessions two instances, made on first use and closed when each ends', async () => {
    const app = await ToolApp.create(SessionModule);
    expect(events).toEqual([]);
    const a = new FakeSession('a');
    const b = new FakeSession('b');
    const run = async (session: Session) =>
      (await app.results([app.job('whoami')], { session }))[0]?.result?.output;
    expect(await run(a)).toBe('shell 1');
    expect(await run(b)).toBe('shell 2');
    expect(await run(a)).toBe('shell 1');
    expect(events).toEqual(['open 1', 'open 2']);
    await a.end();
    expect(events).toEqual(['open 1', 'open 2', 'close 1']);
    await app.close();
    expect(events).toEqual(['open 1', 'open 2', 'close 1', 'close 2']);
  });

  describe('a close under way', () => {
    /** A session-scoped instance whose close waits until the test opens the gate. */
    const order: string[] = [];
    let openGate!: () => void;

    @Injectable({ scope: 'session' })
    class SlowToClose {
      async close(): Promise<void> {
        order.push('closing');
        await new Promise<void>((resolve) => (openGate = resolve));
        order.push('closed');
      }
    }

    @Tool({ name: 'use', description: 'Uses the slow instance' })
    class Use {
      constructor(private readonly _slow: SlowToClose) {}
      execute(): string {
        return 'used';
      }
    }

    @Module({ tools: [Use], providers: [SlowToClose] })
    class SlowModule {}

    /** Lets every promise callback already queued run (the closes here are promise chains). */
    const settle = () => new Promise((resolve) => setImmediate(resolve));

    beforeEach(() => order.splice(0));

    it('app.close() waits for the close a session end started', async () => {
      const app = await ToolApp.create(SlowModule);
      const session = new FakeSession('ending');
      await app.results([app.job('use')], { session });
      const ended = session.end();
      await settle();
      expect(order).toEqual(['closing']);
      const closed = app.close().then(() => order.push('app closed'));
      await settle();
      expect(order).toEqual(['closing']);
      openGate();
      await Promise.all([ended, closed]);
      expect(order).toEqual(['closing', 'closed', 'app closed']);
    });

    it('a session end during app.close() waits for the close under way', async () => {
      const app = await ToolApp.create(SlowModule);
      const session = new FakeSession('late');
      await app.results([app.job('use')], { session });
      const closed = app.close();
      await settle();
      expect(order).toEqual(['closing']);
      const ended = session.end().then(() => order.push('session ended'));
      await settle();
      expect(order).toEqual(['closing']);
      openGate();
      await Promise.all([ended, closed]);
      expect(order).toEqual(['closing', 'closed', 'session ended']);
    });
  });

  it('serves the session through the tool context as well', async () => {
    const app = await ToolApp.create(SessionModule);
    const session = new FakeSession('ctx');
    const tool = app.tools.lookup('whoami')!;
    const first = await tool.execute({ id: '1', args: '{}' }, createContext({ session }));
    const again = await tool.execute({ id: '2', args: '{}' }, createContext({ session }));
    expect(first.output).toBe(again.output);
    await app.close();
  });
});

describe('creation errors', () => {
  it('name the module, the class, the token and the position, all together', async () => {
    interface Config {
      root: string;
    }
    @Injectable()
    class Hidden {}
    @Module({ providers: [Hidden] })
    class PrivateModule {}

    @Tool({ name: 'needs', description: 'd' })
    class Needs {
      constructor(
        @Inject('CONFIG') private readonly _config: Config,
        private readonly _hidden: Hidden,
      ) {}
      execute(): string {
        return '';
      }
    }
    class NotATool {}
    @Module({ imports: [PrivateModule], tools: [Needs, NotATool] })
    class Broken {}

    const error = await ToolApp.create(Broken).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ModuleError);
    const messages = (error as ModuleError).problems.map((p) => p.message);
    expect(messages).toEqual([
      'Broken lists NotATool at tools[1], but it has no @Tool decorator; add @Tool({ name, description }) to the class',
      `Broken: Needs's constructor parameter #0 needs "CONFIG", but no provider of it is visible in Broken; add a provider of "CONFIG" to Broken's providers, or import a module that exports it`,
      "Broken: Needs's constructor parameter #1 needs Hidden, which PrivateModule provides but does not export; add Hidden to PrivateModule's exports",
    ]);
    expect((error as ModuleError).code).toBe('INVALID_MODULE');

    @Module({ imports: [PrivateModule], tools: [Needs] })
    class Unresolvable {}
    const second = (await ToolApp.create(Unresolvable).catch((e: unknown) => e)) as ModuleError;
    expect(second.problems.map((p) => [p.code, p.message])).toEqual([
      [
        'MISSING_PROVIDER',
        `Unresolvable: Needs's constructor parameter #0 needs "CONFIG", but no provider of it is visible in Unresolvable; add a provider of "CONFIG" to Unresolvable's providers, or import a module that exports it`,
      ],
      [
        'MISSING_PROVIDER',
        "Unresolvable: Needs's constructor parameter #1 needs Hidden, which PrivateModule provides but does not export; add Hidden to PrivateModule's exports",
      ],
    ]);
    expect(second.message).toMatch(/^ToolApp\.create\(Unresolvable\): 2 problems:\n {2}- /);
  });

  it('reports a parameter nothing names', async () => {
    interface Clock {
      now(): number;
    }
    @Tool({ name: 'clock', description: 'd' })
    class ClockTool {
      constructor(private readonly _clock: Clock) {}
      execute(): string {
        return '';
      }
    }
    @Module({ tools: [ClockTool] })
    class M {}
    await expect(ToolApp.create(M)).rejects.toThrow(
      "ToolApp.create(M): M: ClockTool's constructor parameter #0 has no injection token (its type is an interface, a union or a primitive); add @Inject(token) to the parameter",
    );
  });

  it('reports a cycle', async () => {
    @Module({
      providers: [
        { provide: 'A', useFactory: (b: unknown) => b, inject: ['B'] },
        { provide: 'B', useFactory: (a: unknown) => a, inject: ['A'] },
      ],
    })
    class Cyclic {}
    const error = (await ToolApp.create(Cyclic).catch((e: unknown) => e)) as ModuleError;
    expect(error.code).toBe('CIRCULAR_DEPENDENCY');
    expect(error.message).toContain(
      'circular dependency: the factory of "A" -> the factory of "B" -> the factory of "A" (in Cyclic)',
    );
  });

  it('reports an import that is not a module and a root that is not one', async () => {
    class Plain {}
    @Module({ imports: [Plain] })
    class M {}
    await expect(ToolApp.create(M)).rejects.toThrow(
      'M imports Plain at imports[0], which has no @Module decorator',
    );
    await expect(ToolApp.create(Plain)).rejects.toThrow('Plain has no @Module decorator');
  });

  it('reports a failing factory and closes what was already created', async () => {
    const closed: string[] = [];
    @Injectable()
    class First {
      close(): void {
        closed.push('first');
      }
    }
    @Module({
      providers: [
        First,
        {
          provide: 'BROKEN',
          useFactory: (_f: First) => Promise.reject(new Error('no socket')),
          inject: [First],
        },
      ],
    })
    class M {}
    await expect(ToolApp.create(M)).rejects.toThrow(
      'M: creating the factory of "BROKEN" failed: no socket',
    );
    expect(closed).toEqual(['first']);
  });

  it('reports duplicate tool names', async () => {
    @Tool({ name: 'same', description: 'd' })
    class A {
      execute(): string {
        return '';
      }
    }
    @Tool({ name: 'same', description: 'd' })
    class B {
      execute(): string {
        return '';
      }
    }
    @Module({ tools: [A, B] })
    class M {}
    await expect(ToolApp.create(M)).rejects.toThrow('tool "same": duplicate name');
  });
});
