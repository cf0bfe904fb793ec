/**
 * Classes written for tsyringe, with its own decorators and none of ours, used as
 * providers and tool dependencies of an app.
 */
import 'reflect-metadata';
import { Tool } from 'agenttool';
import { Module, ToolApp } from 'agenttool/di';
import { inject, injectable, Lifecycle, scoped, singleton } from 'tsyringe';
import { testSession } from '../support/session';

@injectable()
class Settings {
  constructor(@inject('REGION') readonly region: string) {}
}

@singleton()
class Metrics {
  readonly counts = new Map<string, number>();
}

@scoped(Lifecycle.ContainerScoped)
class Workspace {
  static opened = 0;
  readonly n = ++Workspace.opened;
}

@injectable()
class Report {
  constructor(
    readonly settings: Settings,
    readonly metrics: Metrics,
    @inject('MISSING', { isOptional: true }) readonly missing: string | undefined,
  ) {}
}

@Tool({ name: 'report', description: 'Reports where and how often' })
@injectable()
class ReportTool {
  constructor(
    private readonly report: Report,
    private readonly workspace: Workspace,
    @inject('REGION') private readonly region: string,
  ) {}
  execute(): string {
    const { metrics, settings } = this.report;
    metrics.counts.set('report', (metrics.counts.get('report') ?? 0) + 1);
    const where = settings.region === this.region ? this.region : 'mismatch';
    return `${where} #${metrics.counts.get('report')} ws${this.workspace.n} ${String(this.report.missing)}`;
  }
}

@Module({
  tools: [ReportTool],
  providers: [Settings, Metrics, Workspace, Report, { provide: 'REGION', useValue: 'eu' }],
})
class ReportModule {}

describe('tsyringe classes', () => {
  it('work as providers and tools with their own decorators only', async () => {
    const app = await ToolApp.create(ReportModule);
    const a = testSession('a');
    const b = testSession('b');
    const run = async (session: typeof a) =>
      (await app.results([app.job('report')], { session }))[0]?.result?.output;
    // @inject(token) is honoured; @inject(token, { isOptional: true }) gives undefined
    // when nothing provides the token; @singleton() is one per app; a class
    // @scoped(Lifecycle.ContainerScoped) is one per session.
    expect(await run(a)).toBe('eu #1 ws1 undefined');
    expect(await run(b)).toBe('eu #2 ws2 undefined');
    expect(await run(a)).toBe('eu #3 ws1 undefined');
    expect(app.container.resolve(Metrics)).toBe(await app.get(Metrics));
    await app.close();
  });
});
