#!/usr/bin/env node
import { ExitCode } from './exit-codes';
import { exitOnFatalErrors, guardStdout, OpenResources } from './process-guard';
import { runCli } from './program';
import { stalledStart } from './start-stage';
import { terminalSafeLines } from './terminal-text';

// The `agenttool` command. Exits once the command is done, with its exit code.
let finished = false;
// Node exits when nothing is left to wait on, even with a call pending (a tool awaiting a
// promise nothing will settle): say so rather than end silently with 0. A start that
// never settles (a module file's top-level await, an app's factory) is named, with the
// exit code of a module that failed to load or an app that failed to start.
process.once('beforeExit', () => {
  if (finished) return;
  const stalled = stalledStart();
  process.stderr.write(
    stalled === undefined
      ? 'agenttool: internal error: the command stopped with nothing left to run (a tool awaited a promise nothing settles)\n'
      : `${terminalSafeLines(stalled.message)}\n`,
  );
  process.exit(stalled?.exitCode ?? ExitCode.INTERNAL);
});
const stdout = guardStdout();
const resources = new OpenResources();
const fatal = exitOnFatalErrors(resources, process.stderr);
void runCli(
  process.argv.slice(2),
  { stdin: process.stdin, stdout: stdout.results, stderr: process.stderr },
  resources,
).then(async (code) => {
  finished = true;
  // One more turn of the event loop: a rejection left unhandled in the last step is
  // reported (and exits 70) rather than lost to the exit.
  await new Promise((resolve) => setImmediate(resolve));
  await stdout.flush();
  if (!fatal.failing) process.exit(code);
});
