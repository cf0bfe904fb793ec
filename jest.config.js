// Three projects, told apart by where a test file lives (see the README's
// Development section):
// - unit: no processes, no network (in-memory MCP transports included);
// - integration: child processes, HTTP on loopback, shells, the packed package;
// - interop: real MCP peers (the conformance suite, the Inspector, server-everything,
//   ext-tasks).
// `npm test` runs all three; `npm run test:unit` the first.
//
// Tests run on ts-jest's transpile-only mode (tsconfig.jest.json sets isolatedModules):
// `npm run check` type-checks everything once with tsc, and
// scripts/check-decorator-metadata.js holds the decorator metadata that mode emits to
// what tsc emits for the whole program.

/** Unit test files: whole folders, and the files of other folders that start nothing. */
const UNIT = [
  '/test/(core|decorators|di|executor|testing)/.*\\.test\\.ts$',
  '/test/cli/(parts|init|install-parts)\\.test\\.ts$',
  '/test/shell/(protected-paths|stateless-command)\\.test\\.ts$',
  '/test/workspace/file-tools\\.test\\.ts$',
  '/test/mcp/client/(result|refresh|elicitation|log|log-routing|round-trips|lost-session|options|exact-integers|primitives|param-headers|resource-listens-line)\\.test\\.ts$',
  '/test/mcp/server/(app-records|argument-check|client-address|client-reports|content|decoded-call|go-format|lazy-loading|lazy-jose|record-key|stdio|output|swap)\\.test\\.ts$',
  '/test/mcp/quoting\\.test\\.ts$',
  '/test/mcp/compose/config\\.test\\.ts$',
  '/test/house/api-reports\\.test\\.ts$',
];
const INTEROP = ['/test/interop/.*\\.test\\.ts$'];

/** What every project shares: the transform and the public entries mapped to src/. */
const shared = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: {
    '^.+\\.ts$': [
      'ts-jest',
      { tsconfig: '<rootDir>/tsconfig.jest.json', diagnostics: { ignoreCodes: [151002] } },
    ],
    // jose, the sandbox runtime and ext-tasks ship ES modules only, which Node requires
    // natively (22.12+) and Jest's module system does not before Node 24.9: compiled to
    // CommonJS for the tests.
    '/node_modules/(jose|@anthropic-ai/sandbox-runtime|@modelcontextprotocol/ext-tasks)/.+\\.js$':
      '<rootDir>/scripts/jest-esm-transform.js',
    // The OTLP exporters' transport loads `http` with a dynamic `import()`, which Jest's
    // module system refuses without --experimental-vm-modules: the same transform turns
    // it into a `require` (the package sits nested under an exporter, too).
    '/node_modules/@opentelemetry/otlp-exporter-base/.+\\.js$':
      '<rootDir>/scripts/jest-esm-transform.js',
  },
  // A file is left as it is when the innermost `node_modules/` it sits in is not one of those.
  transformIgnorePatterns: [
    '/node_modules/(?!jose/|@anthropic-ai/sandbox-runtime/|@modelcontextprotocol/ext-tasks/|@opentelemetry/otlp-exporter-base/)(?!.*/node_modules/)',
  ],
  moduleNameMapper: {
    '^agenttool$': '<rootDir>/src/index.ts',
    '^agenttool/(.*)$': '<rootDir>/src/$1/index.ts',
    // ext-tasks exports its entries for `import` only, which Jest's `require` does not
    // match: each entry is its file, compiled to CommonJS by the transform above.
    '^@modelcontextprotocol/ext-tasks/(client|receiver|core|core/v1|core/v2)$':
      '<rootDir>/node_modules/@modelcontextprotocol/ext-tasks/dist/$1/index.js',
  },
};

const { availableParallelism } = require('node:os');

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 30000,
  // Jest's default leaves one core to itself, which on a 2-core machine runs every file in
  // band. Most integration files wait on child processes, sockets and timers, so three
  // overlap well on two cores: `npm test` took 251 s with three workers where it took
  // 312 s with two (2026-12-07, the same 3,069 tests); no test asserts a time.
  maxWorkers: Math.max(3, availableParallelism() - 1),
  projects: [
    { ...shared, displayName: 'unit', testRegex: UNIT },
    {
      ...shared,
      displayName: 'integration',
      testRegex: ['\\.test\\.ts$'],
      testPathIgnorePatterns: [...UNIT, ...INTEROP],
    },
    { ...shared, displayName: 'interop', testRegex: INTEROP },
  ],
};
