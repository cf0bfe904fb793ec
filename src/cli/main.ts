#!/usr/bin/env node
import { runCli } from './program';

// The `agenttool` command. Exits once the command is done, with its exit code.
void runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
}).then((code) => process.exit(code));
