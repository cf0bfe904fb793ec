// `npm start`: builds as needed, then serves the workspace app (`agenttool workspace`) over
// Streamable HTTP on 127.0.0.1 (port from PORT, default 3333) and prints a one-line MCP
// Inspector command to call one of its tools from a second terminal. Ctrl-C stops it.
//
// package.json runs it as `exec node scripts/start.js`, so that this process is npm's
// own child: npm passes a SIGINT or SIGTERM it receives on to its child, and a shell
// between the two would keep it (SIGINT) or die alone (SIGTERM), leaving the server
// running. A Ctrl-C at a terminal then arrives twice, from the terminal and from npm: a
// repeat within a second of the first is the same interrupt; a later one stops at once.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { ensureBuilt, ROOT } = require('./start-build');

/** `text` as one word for a POSIX shell: as it is when it is plain, else single-quoted. */
function shellWord(text) {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/** A signal this long after the first is a second interrupt, not the first one again. */
const REPEAT_AFTER_MS = 1000;

function inspectorCommand(url) {
  // The Inspector CLI 1.0.3 reads its own package.json through `../package.json` from
  // the working directory, so it must run one level below a package: the subshell
  // enters samples/ for it and leaves the user's shell where it stands.
  const samples = path.join(ROOT, 'samples');
  return (
    `(cd ${shellWord(samples)} && npx mcp-inspector-cli --cli ${url} --transport http` +
    ` --method tools/call --tool-name bash --tool-arg 'command=echo hello from $(pwd)')`
  );
}

async function main() {
  try {
    ensureBuilt();
  } catch (error) {
    process.stderr.write(`npm start: ${error.message}\n`);
    return 1;
  }
  const port = process.env.PORT ?? '3333';
  // The workspace the tools work in: kept under .tmp/ (ignored by git) unless set.
  if ((process.env.WORKSPACE_ROOT ?? '').trim() === '') {
    process.env.WORKSPACE_ROOT = path.join(ROOT, '.tmp', 'workspace');
    fs.mkdirSync(process.env.WORKSPACE_ROOT, { recursive: true });
  }
  const { serveModule } = require(path.join(ROOT, 'dist/src/cli/serve.js'));
  const { workspaceApp } = require(path.join(ROOT, 'dist/src/cli/workspace.js'));
  let serving;
  try {
    // The same as `npx agenttool workspace <root> --http 127.0.0.1:<port>`.
    serving = await serveModule({
      module: workspaceApp(process.env.WORKSPACE_ROOT, {}),
      http: `127.0.0.1:${port}`,
      log: process.stderr,
    });
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
    return typeof error.exitCode === 'number' ? error.exitCode : 1;
  }
  process.stderr.write(
    `\nCall a tool from another terminal with the MCP Inspector CLI:\n  ${inspectorCommand(serving.url)}\n\n` +
      'Ctrl-C stops the server.\n',
  );
  let firstSignalAt;
  const onSignal = () => {
    if (firstSignalAt === undefined) {
      firstSignalAt = Date.now();
      process.stderr.write('agenttool: stopping: closing sessions and the app\n');
      void serving.stop();
    } else if (Date.now() - firstSignalAt >= REPEAT_AFTER_MS) {
      process.stderr.write('agenttool: stopping at once\n');
      process.exit(130);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  await serving.closed;
  process.stderr.write('agenttool: stopped\n');
  return 0;
}

main().then((code) => process.exit(code));
