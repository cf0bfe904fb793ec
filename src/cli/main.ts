#!/usr/bin/env node
import { ExitCode } from './exit-codes';
import { runCli } from './program';

// The `agenttool` command. Exits once the command is done, with its exit code.
let finished = false;
// Node exits when nothing is left to wait on, even with a call pending (a tool awaiting a
// promise nothing will settle): say so rather than end silently with 0.
process.once('beforeExit', () => {
  if (finished) return;
  process.stderr.write(
    'agenttool: internal error: the command stopped with nothing left to run (a tool awaited a promise nothing settles)\n',
  );
  process.exit(ExitCode.INTERNAL);
});
void runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
}).then((code) => {
  finished = true;
  process.exit(code);
});
