// The API report of each public entry (agenttool, agenttool/di, agenttool/mcp,
// agenttool/shell, agenttool/workspace, agenttool/testing, the framework adapters
// agenttool/nest, agenttool/ai-sdk, agenttool/openai-agents, and agenttool/code-cache),
// written by API Extractor from the declarations tsc emits (agenttool/code-cache's are
// written by hand, beside the script its entry is made of), and kept under version control in
// api/. `node scripts/api-report.js` fails when an entry's API differs from its report
// (part of `npm run check`); `--update` (`npm run api:update`) rewrites the reports.
'use strict';
const { spawnSync } = require('node:child_process');
const { readFileSync, rmSync } = require('node:fs');
const path = require('node:path');
const { Extractor, ExtractorConfig } = require('@microsoft/api-extractor');

const root = path.resolve(__dirname, '..');
const update = process.argv.includes('--update');

// The other entries use the root entry's types (Tool, ToolContext, ...) and their
// framework's without exporting them again: there an unexported type is the root's or the
// framework's, and named as such.
const ENTRIES = [
  { report: 'agenttool', declarations: 'dist/api/src/index.d.ts', ownsTypes: true },
  { report: 'agenttool-di', declarations: 'dist/api/src/di/index.d.ts', ownsTypes: false },
  { report: 'agenttool-mcp', declarations: 'dist/api/src/mcp/index.d.ts', ownsTypes: false },
  { report: 'agenttool-shell', declarations: 'dist/api/src/shell/index.d.ts', ownsTypes: false },
  {
    report: 'agenttool-workspace',
    declarations: 'dist/api/src/workspace/index.d.ts',
    ownsTypes: false,
  },
  {
    report: 'agenttool-testing',
    declarations: 'dist/api/src/testing/index.d.ts',
    ownsTypes: false,
  },
  { report: 'agenttool-nest', declarations: 'dist/api/src/nest/index.d.ts', ownsTypes: false },
  { report: 'agenttool-ai-sdk', declarations: 'dist/api/src/ai-sdk/index.d.ts', ownsTypes: false },
  {
    report: 'agenttool-openai-agents',
    declarations: 'dist/api/src/openai-agents/index.d.ts',
    ownsTypes: false,
  },
  {
    report: 'agenttool-code-cache',
    declarations: 'scripts/code-cache-entry.d.ts',
    ownsTypes: true,
  },
];

const tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
// Declarations of files since moved or deleted would otherwise stay and be analysed.
rmSync(path.join(root, 'dist/api/src'), { recursive: true, force: true });
const declarations = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.api.json'], {
  cwd: root,
  stdio: 'inherit',
});
if (declarations.status !== 0) process.exit(declarations.status ?? 1);

let failed = 0;
for (const entry of ENTRIES) {
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: root,
      mainEntryPointFilePath: `<projectFolder>/${entry.declarations}`,
      // The adapters import the other entries by name: analysed, those names resolve to
      // the emitted declarations (tsconfig.api-extractor.json), not to the sources.
      compiler: { tsconfigFilePath: '<projectFolder>/tsconfig.api-extractor.json' },
      apiReport: {
        enabled: true,
        reportFileName: `${entry.report}.api.md`,
        reportFolder: '<projectFolder>/api/',
        reportTempFolder: '<projectFolder>/dist/api/report/',
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: 'warning' } },
        extractorMessageReporting: {
          default: { logLevel: 'warning', addToApiReportFile: true },
          // Release tags (@public, @beta) are not used: every export is public.
          'ae-missing-release-tag': { logLevel: 'none', addToApiReportFile: false },
          // The report marks each undocumented member "(undocumented)" already.
          'ae-undocumented': { logLevel: 'none', addToApiReportFile: false },
          'ae-forgotten-export': entry.ownsTypes
            ? { logLevel: 'warning', addToApiReportFile: true }
            : { logLevel: 'none', addToApiReportFile: false },
        },
        // Comments are TSDoc for editors; no documentation site is generated from them, so
        // TSDoc's stricter syntax (a code span on one line, escaped braces) is not enforced.
        tsdocMessageReporting: { default: { logLevel: 'none', addToApiReportFile: false } },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: path.join(root, 'package.json'),
  });
  const result = Extractor.invoke(config, { localBuild: update, showVerboseMessages: false });
  // A problem API Extractor writes into the report (a type the entry uses but does not
  // export, a link to nothing) fails the check as a changed report would.
  const report = readFileSync(path.join(root, 'api', `${entry.report}.api.md`), 'utf8');
  const problems = report.split('\n').filter((line) => line.includes('// Warning: ('));
  if (problems.length > 0) {
    failed++;
    console.error(`api/${entry.report}.api.md:\n${problems.join('\n')}`);
  }
  if (!result.succeeded) {
    failed++;
    console.error(
      result.apiReportChanged
        ? `api/${entry.report}.api.md: the API of ${entry.declarations} changed; if that is meant, run npm run api:update and commit the report`
        : `api/${entry.report}.api.md: API Extractor reported ${result.errorCount} errors and ${result.warningCount} warnings`,
    );
  }
}
process.exit(failed === 0 ? 0 : 1);
