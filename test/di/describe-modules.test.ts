/**
 * `describeModules(root)` and `describeApp(root)`: the checked modules of an app as
 * another container needs them (agenttool/nest builds NestJS modules from it), and its
 * scope report.
 */
import 'reflect-metadata';
import { Tool } from 'agenttool';
import {
  CallSession,
  type CanActivate,
  describeApp,
  describeModules,
  Inject,
  Injectable,
  Module,
  ModuleError,
  type ProviderDescription,
} from 'agenttool/di';

describe('describeModules', () => {
  it('gives each module, the root first, with its providers then its other tools, and what each injects', () => {
    @Injectable()
    class Clock {}
    class Base {
      constructor(@Inject('ZONE') readonly zone: string) {}
    }
    @Tool({ name: 'time', description: 'd' })
    class TimeTool extends Base {
      execute(): string {
        return this.zone;
      }
    }
    @Tool({ name: 'tick', description: 'd' })
    class TickTool {
      constructor(readonly clock: Clock) {}
      execute(): string {
        return '';
      }
    }
    @Module({
      providers: [Clock, { provide: 'ZONE', useValue: 'UTC' }, TickTool],
      tools: [TimeTool, TickTool],
      exports: [Clock],
    })
    class CoreModule {}
    @Module({ imports: [CoreModule, CoreModule] })
    class AppModule {
      constructor(readonly clock: Clock) {}
    }
    const [app, core] = describeModules(AppModule);
    expect(app).toMatchObject({
      module: AppModule,
      imports: [CoreModule],
      providers: [],
      inject: [{ token: Clock, optional: false, through: [CoreModule] }],
    });
    // Each injection names the provider it resolves to.
    expect(app?.inject[0]?.provider).toBe(core?.providers[0]);
    const summary = (p: ProviderDescription) => [
      p.label,
      p.kind,
      p.scope,
      p.tool,
      p.inject.map(({ token, optional }) => ({ token, optional })),
    ];
    expect(core?.providers.map(summary)).toEqual([
      ['Clock', 'class', 'app', false, []],
      ['the value of "ZONE"', 'value', 'app', false, []],
      ['TickTool', 'class', 'app', true, [{ token: Clock, optional: false }]],
      ['TimeTool', 'class', 'app', true, [{ token: 'ZONE', optional: false }]],
    ]);
    expect(core?.exports).toEqual([Clock]);
    const time = core?.providers.find((p) => p.token === TimeTool);
    const made = time?.make('CET');
    expect(made).toBeInstanceOf(TimeTool);
    expect((made as TimeTool).zone).toBe('CET');
  });

  it('reports every problem as ToolApp.create does', () => {
    @Tool({ name: 'tick', description: 'd' })
    class TickTool {
      constructor(@Inject('CLOCK') readonly clock: object) {}
      execute(): string {
        return '';
      }
    }
    @Module({ tools: [TickTool] })
    class AppModule {}
    expect(() => describeModules(AppModule)).toThrow(ModuleError);
    expect(() => describeModules(AppModule)).toThrow(
      /TickTool's constructor parameter #0 needs "CLOCK"/,
    );
  });
});

describe('describeApp', () => {
  @Injectable({ scope: 'session' })
  class Shell {}
  @Injectable()
  class Runner {
    constructor(readonly shell: Shell) {}
  }
  @Injectable()
  class Clock {}
  @Injectable()
  class Gate implements CanActivate {
    constructor(readonly clock: Clock) {}
    canActivate(): boolean {
      return true;
    }
  }
  const open = (): boolean => true;
  @Tool({ name: 'run', description: 'd' })
  class RunTool {
    constructor(readonly runner: Runner) {}
    execute(): string {
      return '';
    }
  }
  @Module({ providers: [Clock, Shell, Runner], tools: [RunTool], guards: [Gate] })
  class SessionModule {}
  @Module({ imports: [SessionModule], guards: [open] })
  class AppModule {}

  it('says where each provider lives, with the scope report ToolApp gives', () => {
    const { modules, scopeReport } = describeApp(AppModule);
    const session = modules.find((m) => m.module === SessionModule)!;
    expect(session.providers.map((p) => [p.label, p.scope, p.home, p.guard])).toEqual([
      ['guard Gate', 'app', 'app', true],
      ['Clock', 'app', 'app', false],
      ['Shell', 'session', 'session', false],
      ['Runner', 'app', 'session', false],
      ['RunTool', 'app', 'session', false],
    ]);
    expect(scopeReport.map((change) => [change.provider, change.chain])).toEqual([
      ['Runner', ['Runner', 'Shell']],
      ['RunTool', ['RunTool', 'Runner', 'Shell']],
    ]);
  });

  it("gives each module's tool guards, the importing module's first, and where its hooks come", () => {
    const [app, session] = describeApp(AppModule).modules;
    expect(session!.toolGuards).toEqual([
      { guard: open, module: AppModule },
      { guard: Gate, module: SessionModule },
    ]);
    expect(app!.toolGuards).toEqual([{ guard: open, module: AppModule }]);
    // The deeper module starts first; inside it, a provider after what it needs.
    expect(session!.moduleRank).toBeLessThan(app!.moduleRank);
    const place = (label: string) => session!.providers.find((p) => p.label === label)!.hookPlace;
    expect(place('Clock').level).toBe(1);
    expect(place('guard Gate').level).toBe(2);
    expect(place('RunTool').level).toBe(3);
    expect(place('guard Gate').position).toBeLessThan(place('Clock').position);
    expect(place('Clock').moduleRank).toBe(session!.moduleRank);
  });

  it("gives a provider's handle and a module's liveTools, for an adapter to carry or warn of", () => {
    class Pad {}
    const handle = { argument: 'pad_id', holds: 'scratchpad' };
    @Module({
      providers: [
        { provide: Pad, useClass: Pad, scope: 'session', handle },
        { provide: 'LIVE', useValue: {} },
      ],
      liveTools: ['LIVE'],
    })
    class PadModule {}
    const [pad] = describeApp(PadModule).modules;
    expect(pad!.providers.map((p) => [p.label, p.handle])).toEqual([
      ['Pad', handle],
      ['the value of "LIVE"', undefined],
    ]);
    expect(pad!.liveTools).toEqual(['LIVE']);
    expect(describeApp(AppModule).modules.map((m) => m.liveTools)).toEqual([[], []]);
  });
});

describe("describeApp's injections", () => {
  it('name the provider each resolves to and the modules it comes through, re-exports included', () => {
    @Injectable()
    class Clock {}
    @Module({ providers: [Clock], exports: [Clock] })
    class CoreModule {}
    @Module({ imports: [CoreModule], exports: [Clock] })
    class ByName {}
    @Module({ imports: [ByName], exports: [ByName] })
    class ByModule {}
    @Injectable()
    class Reader {
      constructor(
        readonly clock: Clock,
        readonly session: CallSession,
      ) {}
    }
    @Module({ imports: [ByModule], providers: [Reader] })
    class AppModule {}
    const { modules } = describeApp(AppModule);
    const reader = modules[0]!.providers[0]!;
    const clock = modules.find((m) => m.module === CoreModule)!.providers[0]!;
    expect(reader.inject).toEqual([
      { token: Clock, optional: false, provider: clock, through: [ByModule, ByName, CoreModule] },
      // A built-in facade has no provider of a module.
      { token: CallSession, optional: false, provider: undefined, through: [] },
    ]);
  });
});
