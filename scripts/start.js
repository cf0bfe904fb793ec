// `npm start`: builds as needed, then serves the workspace app (samples/workspace) over
// Streamable HTTP on 127.0.0.1 (port from PORT, default 3333) and prints a one-line MCP
// Inspector command to call one of its tools from a second terminal. Ctrl-C stops it.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { Writable } = require('node:stream');
const { ensureBuilt, ROOT } = require('./start-build');

/** `text` as one word for a POSIX shell: as it is when it is plain, else single-quoted. */
function shellWord(text) {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

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
  const { runCli } = require(path.join(ROOT, 'dist/src/cli/program.js'));
  const moduleFile = path.join(ROOT, 'dist/samples/workspace/workspace.module.js');
  let hinted = false;
  // Passes the server's text through and, once it says where it listens, adds the hint.
  const stderr = new Writable({
    write(chunk, _encoding, done) {
      const text = chunk.toString();
      process.stderr.write(text);
      const url = /over Streamable HTTP at (\S+)/.exec(text)?.[1];
      if (!hinted && url !== undefined) {
        hinted = true;
        process.stderr.write(
          `  workspace root: ${process.env.WORKSPACE_ROOT}\n\n` +
            `Call a tool from another terminal with the MCP Inspector CLI:\n  ${inspectorCommand(url)}\n\n` +
            'Ctrl-C stops the server.\n',
        );
      }
      done();
    },
  });
  return runCli(['serve', moduleFile, '--http', `127.0.0.1:${port}`], {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr,
  });
}

main().then((code) => process.exit(code));
