/**
 * `describeModules(root)`: the checked modules of an app as another container needs
 * them (agenttool/nest builds NestJS modules from it).
 */
import 'reflect-metadata';
import { Tool } from 'agenttool';
import {
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
      inject: [{ token: Clock, optional: false }],
    });
    const summary = (p: ProviderDescription) => [p.label, p.kind, p.scope, p.tool, p.inject];
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
