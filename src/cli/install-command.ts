import { Argument, type Command, Option } from 'commander';
import { type CliIo } from './call';
import { CliError, EXIT_CODES_HELP, ExitCode } from './exit-codes';
import { install } from './install';
import { CLIENTS, type ClientName, type Scope } from './install-clients';

interface InstallFlags {
  name?: string;
  configFile?: string;
  scope?: Scope;
  projectDir?: string;
  dryRun?: boolean;
}

/**
 * Adds `agenttool install` to the program. Its options come before what to serve:
 * everything after `serve` or `workspace` is that command's (positional options).
 */
export function registerInstall(
  program: Command,
  io: CliIo,
  setCode: (code: ExitCode) => void,
): void {
  // The program has positional options on (see program.ts): what follows `serve` here is
  // serve's.
  program
    .command('install')
    .usage('<client> [options] serve <module-file> [serve options] | workspace [dir] [options]')
    .description(
      "Write a server into an MCP client's configuration (Claude Desktop, Cursor, VS Code, Claude Code): the command that serves a module file or a workspace, with absolute paths, so that the client starts it from any folder.",
    )
    .addArgument(new Argument('<client>', 'the MCP client').choices(CLIENTS))
    .argument('<serve-arguments...>', 'serve <module-file> [options], or workspace [dir] [options]')
    .option(
      '--name <name>',
      'the server\'s name in the configuration (default: the module file\'s name, or "workspace")',
    )
    .option('--config-file <file>', "write this file instead of the client's own")
    .addOption(
      new Option(
        '--scope <scope>',
        "which configuration: user (the default for Claude Desktop, Cursor, VS Code), project (.cursor/mcp.json, .vscode/mcp.json, Claude Code's .mcp.json, its default) or local (Claude Code's entry for the project in ~/.claude.json)",
      ).choices(['user', 'project', 'local']),
    )
    .option(
      '--project-dir <dir>',
      'the project of --scope project or local (default: the working directory)',
    )
    .option('--dry-run', 'print what would be written, and write nothing')
    .passThroughOptions()
    .addHelpText(
      'after',
      `
Examples:
  agenttool install claude-desktop serve dist/app.module.js
  agenttool install cursor --scope project --name greeter serve dist/greet.js
  agenttool install vscode workspace ~/projects/site --allow-network registry.npmjs.org
  agenttool install claude-code --dry-run serve dist/app.module.js --record records.jsonl
${EXIT_CODES_HELP}`,
    )
    .action((client: ClientName, words: string[], options: InstallFlags) => {
      // Options given after the client (and before what to serve) pass through too.
      const [own, rest] = leadingOptions(words);
      install({ client, words: rest, ...options, ...own, out: io.stdout });
      setCode(ExitCode.OK);
    });
}

const VALUED: Readonly<Record<string, keyof InstallFlags>> = {
  '--name': 'name',
  '--config-file': 'configFile',
  '--scope': 'scope',
  '--project-dir': 'projectDir',
};

/** Install's own options at the start of `words`, and the words after them. */
function leadingOptions(words: readonly string[]): [InstallFlags, string[]] {
  const flags: Record<string, string | boolean> = {};
  let i = 0;
  for (; i < words.length; i++) {
    const [flag = '', inline] = words[i]!.split(/=(.*)/s, 2);
    if (flag === '--dry-run') {
      flags['dryRun'] = true;
      continue;
    }
    const key = VALUED[flag];
    if (key === undefined) break;
    const value = inline ?? words[++i];
    if (value === undefined || (inline === undefined && value.startsWith('-'))) {
      throw new CliError(ExitCode.BAD_ARGUMENTS, `agenttool: install: ${flag} needs a value`);
    }
    if (key === 'scope' && !['user', 'project', 'local'].includes(value)) {
      throw new CliError(
        ExitCode.BAD_ARGUMENTS,
        `agenttool: install: --scope ${JSON.stringify(value)}: give user, project or local`,
      );
    }
    flags[key] = value;
  }
  return [flags, words.slice(i)];
}
