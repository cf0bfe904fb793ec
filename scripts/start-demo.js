// `npm run demo`: builds as needed, then runs the end-to-end demo (samples/demo): the
// workspace app as a separate MCP server over stdio, one batch through the executor,
// records appended to a JSON-lines file, and the batch's timeline.
// Usage: node scripts/start-demo.js [records-file]
'use strict';
const path = require('node:path');
const { ensureBuilt, ROOT } = require('./start-build');

async function main() {
  ensureBuilt();
  const { runDemo } = require(path.join(ROOT, 'dist/samples/demo/demo.js'));
  const recordsFile = process.argv[2];
  const run = await runDemo({
    cli: path.join(ROOT, 'dist/pkg/agenttool.js'),
    moduleFile: path.join(ROOT, 'dist/src/workspace/workspace.module.js'),
    out: process.stdout,
    cwd: ROOT,
    ...(recordsFile === undefined ? {} : { recordsFile: path.resolve(recordsFile) }),
  });
  return run.outcomes.every((outcome) => outcome.error === undefined) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(
      `npm run demo: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  },
);
