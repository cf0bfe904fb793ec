/**
 * agenttool's interceptors against NestJS's own, with one recording interceptor class
 * used by both (test/fixtures/frameworks/nest-interceptors.ts, run on the Node that runs
 * Jest: NestJS 12 is an ES module, which Node loads from our CommonJS and Jest does not):
 * a NestJS controller route with guards and interceptors at its three levels (global, the
 * controller's, the method's), and a ToolApp with them at the levels that stand for those
 * (the app's and the root module's, the feature module's, the tool's), served over MCP,
 * answer one call in the same order; served by NestJS through asNestModule, NestJS's own
 * guards and interceptors come around agenttool's, guards first.
 */
import {
  buildFrameworkFixtures,
  killFixtures,
  type Ran,
  startFixture,
} from '../support/frameworks';

beforeAll(() => buildFrameworkFixtures(), 300_000);
afterAll(() => killFixtures());

interface Report {
  readonly controller: string[];
  readonly toolApp: string[];
  readonly adapted: string[];
}

let report: Report;
beforeAll(async () => {
  const ran: Ran = await startFixture('nest-interceptors', [], process.execPath).done;
  if (ran.code !== 0) throw new Error(`nest-interceptors exited ${ran.code}:\n${ran.stderr}`);
  report = JSON.parse(ran.stdout) as Report;
}, 120_000);

const around = (levels: readonly string[]): string[] => [
  ...levels.map((level) => `${level} before`),
  'handler',
  ...[...levels].reverse().map((level) => `${level} after`),
];

test('a NestJS route runs its guards, then its interceptors outermost first, results back in reverse', () => {
  expect(report.controller).toEqual([
    'guard global',
    'guard class',
    'guard method',
    ...around(['global', 'class', 'method']),
  ]);
});

test('a ToolApp runs the same interceptor class at its levels in the order NestJS does', () => {
  expect(report.toolApp).toEqual(report.controller);
});

test("served through asNestModule, NestJS's guards and interceptors come around agenttool's, every guard first", () => {
  expect(report.adapted).toEqual([
    // agenttool's guards, asked by the MCP server before the call, then NestJS's.
    'guard global',
    'guard class',
    'guard method',
    'guard nest global',
    ...around(['nest global', 'nest class', 'class', 'method']),
  ]);
});
