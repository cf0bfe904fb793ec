/**
 * One app's lifecycle under ToolApp, under a real NestJS 12.5 application context built
 * from the same provider and tool classes, and under NestJS through agenttool/nest's
 * asNestModule from the very same agenttool modules (test/fixtures/frameworks/
 * nest-lifecycle.ts, run by the Node that runs Jest: NestJS 12 is an ES module, which
 * Node loads from our CommonJS and Jest does not). Every hook call is compared, in
 * order; closing is compared where NestJS has none of its own.
 */
import { buildFrameworkFixtures, killFixtures, startFixture } from '../support/frameworks';

interface Run {
  readonly start: string[];
  readonly calls: string[];
  readonly close: string[];
}

interface Report {
  readonly toolApp: Run;
  readonly nest: Run;
  readonly adapted: Run;
}

let report: Report;

beforeAll(async () => {
  buildFrameworkFixtures();
  const ran = await startFixture('nest-lifecycle', [], process.execPath).done;
  if (ran.code !== 0) throw new Error(`nest-lifecycle exited ${ran.code}:\n${ran.stderr}`);
  report = JSON.parse(ran.stdout) as Report;
}, 300_000);
afterAll(() => killFixtures());

const hooksOf = (events: readonly string[]): string[] =>
  events.filter((event) => !event.startsWith('close '));
const closesOf = (events: readonly string[]): string[] =>
  events.filter((event) => event.startsWith('close '));

/** The module order, deepest first, each module's class after its levels. */
const START = [
  'the clock name',
  'Clock',
  'ClockTool',
  'CoreModule',
  'Counter',
  'Counter',
  'Store',
  'Settings',
  'StoreTool',
  'DataModule',
  'Greeter',
  'GreetTool',
  'AppModule',
];
const CLOSE = [
  ...['GreetTool', 'Greeter', 'AppModule'],
  ...['StoreTool', 'Store', 'Settings', 'Counter', 'Counter', 'DataModule'],
  ...['ClockTool', 'Clock', 'the clock name', 'CoreModule'],
];
const each = (hook: string, names: readonly string[], suffix = ''): string[] =>
  names.map((name) => `${hook} ${name}${suffix}`);

describe('the lifecycle of one app', () => {
  it('runs in a real NestJS application context in the order this test states', () => {
    expect(report.nest.start).toEqual([
      'construct AppModule with Greeter',
      ...each('onModuleInit', START),
      ...each('onApplicationBootstrap', START),
    ]);
    expect(report.nest.close).toEqual([
      ...each('onModuleDestroy', CLOSE),
      ...each('beforeApplicationShutdown', CLOSE, ' SIGTERM'),
      ...each('onApplicationShutdown', CLOSE, ' SIGTERM'),
    ]);
  });

  it('makes every hook call NestJS makes, in the same order, under ToolApp', () => {
    expect(hooksOf(report.toolApp.start)).toEqual(report.nest.start);
    expect(hooksOf(report.toolApp.close)).toEqual(report.nest.close);
  });

  it('makes the same hook calls under NestJS through asNestModule, from the same agenttool modules', () => {
    expect(hooksOf(report.adapted.start)).toEqual(hooksOf(report.toolApp.start));
    expect(hooksOf(report.adapted.close)).toEqual(hooksOf(report.toolApp.close));
  });

  it('closes what the app built once, between beforeApplicationShutdown and onApplicationShutdown, under both', () => {
    const built = [
      'close Clock',
      'close Counter',
      'close Counter',
      'close GreetTool',
      'close Settings',
      'close Store',
    ];
    for (const run of [report.toolApp, report.adapted]) {
      expect(closesOf(run.close).sort()).toEqual(built);
      const firstClose = run.close.findIndex((event) => event.startsWith('close '));
      const lastClose = run.close.findLastIndex((event) => event.startsWith('close '));
      expect(run.close[firstClose - 1]).toBe('beforeApplicationShutdown CoreModule SIGTERM');
      expect(run.close[lastClose + 1]).toBe('onApplicationShutdown GreetTool SIGTERM');
      expect(run.start.filter((event) => event.startsWith('close '))).toEqual([]);
    }
    // A newer instance is closed before what it was built with.
    for (const run of [report.toolApp, report.adapted]) {
      const order = closesOf(run.close);
      expect(order.indexOf('close Store')).toBeLessThan(order.indexOf('close Clock'));
      expect(order.indexOf('close GreetTool')).toBeLessThan(order.indexOf('close Store'));
    }
  });

  it('builds a transient tool for each call, unhooked, and closes it when the call ends, under both', () => {
    const calls = ['call Scratch #1', 'close Scratch', 'call Scratch #2', 'close Scratch'];
    expect(report.toolApp.calls).toEqual(calls);
    expect(report.adapted.calls).toEqual(calls);
    for (const run of [report.toolApp, report.nest, report.adapted]) {
      expect([...run.start, ...run.close].filter((event) => event.includes('Scratch'))).toEqual([]);
    }
  });
});

describe('ToolApp.enableShutdownHooks', () => {
  it('closes the app on the signal, with its name, and lets the signal end the process', async () => {
    const app = startFixture('nest-lifecycle', ['signal'], process.execPath);
    await app.waitForStdout(/READY\n/);
    app.process.kill('SIGTERM');
    const ran = await app.done;
    expect(app.process.signalCode).toBe('SIGTERM');
    expect(ran.code).toBeNull();
    const lines = ran.stdout.split('\n').filter((line) => line !== '');
    const closing = lines.slice(lines.indexOf('READY') + 1);
    expect(hooksOf(closing)).toEqual(report.toolApp.close.filter((e) => !e.startsWith('close ')));
    expect(closesOf(closing).sort()).toEqual(closesOf(report.toolApp.close).sort());
  });
});
