// The commands that open a target (a module file, a `--stdio` command or an `--http`
// server) and use it once: list, call, get-prompt and read-resource, with the options
// that name the target.
import { type Command, Option } from 'commander';
import { openRecordFile, runCall, type CliIo } from './call';
import { CliError, EXIT_CODES_HELP, ExitCode } from './exit-codes';
import { runGetPrompt } from './get-prompt';
import { listTools, toolTable } from './list';
import { LIST_KINDS, type ListKind, listPrimitives, primitiveTables } from './list-primitives';
import type { OpenResources } from './process-guard';
import { runReadResource } from './read-resource';
import { type ConfigFlags, configOptions, onStopSignals } from './serve-flags';
import { closeFailures, type OpenTarget, openTarget, type TargetSpec } from './targets';
import { terminalSafe, terminalSafeLines } from './terminal-text';

interface TargetOptions {
  stdio?: string;
  http?: string;
  header?: string[];
  protocol?: 'auto' | 'modern' | 'legacy';
  token?: string;
  oauth?: boolean;
  tokenStore?: string;
  oauthPort?: number;
}

/** Adds `list`, `call`, `get-prompt` and `read-resource` to `program`. */
export function registerTargetCommands(
  program: Command,
  io: CliIo,
  resources: OpenResources,
  setCode: (code: ExitCode) => void,
): void {
  const list = program
    .command('list')
    .description(
      'List what a module file or an MCP server offers: its tools (definition hash and properties), prompts, resources and resource templates.',
    )
    .argument('[module-file]', 'a compiled module file (or give --stdio or --http)')
    .option(
      '--json',
      'print JSON: the tools (definitions, hashes and properties), or with --only the kind asked for',
    )
    .addOption(
      new Option('--only <kind>', 'list one kind: tools, prompts, resources or templates').choices(
        LIST_KINDS,
      ),
    );
  configOptions(targetOptions(list))
    .addHelpText('after', EXIT_CODES_HELP)
    .action(
      async (
        moduleFile: string | undefined,
        options: TargetOptions & ConfigFlags & { json?: boolean; only?: ListKind },
      ) => {
        const spec = { ...targetSpec(moduleFile, options, io), ...configSpec(options) };
        setCode(
          await withTarget(spec, resources, io, async (target) => {
            // `--json` alone prints the tools, as it always has; `--only` picks a kind.
            const only = options.only ?? (options.json === true ? 'tools' : undefined);
            const kinds = only === undefined ? LIST_KINDS : [only];
            const listed = await listPrimitives(target, kinds);
            let text: string;
            if (options.json === true) {
              const json =
                only === 'prompts'
                  ? listed.prompts
                  : only === 'resources'
                    ? listed.resources
                    : only === 'templates'
                      ? listed.templates
                      : listTools(target.tools);
              text = JSON.stringify(json, null, 2);
            } else {
              const tables = [
                ...(kinds.includes('tools') ? [toolTable(target.tools)] : []),
                ...primitiveTables(listed),
              ];
              text = tables.join('\n\n');
            }
            io.stdout.write(text === '' ? '' : `${text}\n`);
            // A one-shot listing does not wait for a server to come up: it says which are
            // missing, and that the list is not whole.
            const missing = target.unavailable ?? [];
            if (missing.length === 0) return ExitCode.OK;
            io.stderr.write(
              `agenttool: list: the list lacks the tools of ${missing.length === 1 ? 'a server that is' : 'servers that are'} not up:\n${missing.map((line) => `  ${line}\n`).join('')}`,
            );
            return ExitCode.CONNECTION;
          }),
        );
      },
    );

  const call = program
    .command('call')
    .usage('<module-file | --stdio "cmd args" | --http URL> <tool> [json-args] [options]')
    .description('Call one tool through the executor, with live progress and questions put to you.')
    .argument('<words...>', '[module-file] <tool> [json-args]')
    .option('--record <file>', "append the call's records to this file, as JSON lines");
  targetOptions(call)
    .addHelpText('after', EXIT_CODES_HELP)
    .action(async (words: string[], options: TargetOptions & { record?: string }) => {
      const [moduleFile, tool, args] = targetAndWords('call', words, options, {
        first: 'tool',
        example: 'agenttool call app.module.js read_file \'{"path": "a.txt"}\'',
        rest: 'arguments',
      });
      // A file that cannot be opened is refused before anything starts.
      const records =
        options.record === undefined ? undefined : await openRecordFile(options.record);
      try {
        setCode(
          await withTarget(targetSpec(moduleFile, options, io), resources, io, (target, signal) =>
            runCall(target, { tool, args, records, signal }, io),
          ),
        );
      } finally {
        await records?.close();
      }
    });

  const getPrompt = program
    .command('get-prompt')
    .alias('prompt')
    .usage('<module-file | --stdio "cmd args" | --http URL> <prompt> [json-args] [options]')
    .description(
      'Get one prompt filled with its arguments (MCP prompts/get) and print its messages: text as is, images, audio and binary resources by MIME type and size.',
    )
    .argument('<words...>', '[module-file] <prompt> [json-args: a JSON object of strings]')
    .option('--json', 'print the prompts/get result as JSON, as the server gave it');
  targetOptions(getPrompt)
    .addHelpText(
      'after',
      `
Examples:
  agenttool get-prompt dist/app.module.js review '{"code": "x = 1"}'
  agenttool get-prompt --http http://127.0.0.1:3333/mcp summarize --json
  (agenttool list <target> --only prompts shows the prompts and their arguments)
${EXIT_CODES_HELP}`,
    )
    .action(async (words: string[], options: TargetOptions & { json?: boolean }) => {
      const [moduleFile, name, args] = targetAndWords('get-prompt', words, options, {
        first: 'prompt',
        example: 'agenttool get-prompt app.module.js review \'{"code": "x = 1"}\'',
        rest: 'arguments',
      });
      setCode(
        await withTarget(targetSpec(moduleFile, options, io), resources, io, (target, signal) =>
          runGetPrompt(target, { name, args, json: options.json === true, signal }, io),
        ),
      );
    });

  const readResource = program
    .command('read-resource')
    .alias('read')
    .usage('<module-file | --stdio "cmd args" | --http URL> <uri> [options]')
    .description(
      "Read the resource at a URI (MCP resources/read): a listed resource, or a template's URI filled in. Text is printed as is; binary contents are summarized unless --output names a file.",
    )
    .argument('<words...>', '[module-file] <uri>')
    .addOption(
      new Option('--json', 'print the resources/read result as JSON, as the server gave it'),
    )
    .addOption(
      new Option(
        '--output <file>',
        'write the contents (text, or the bytes of binary contents) to this file',
      ).conflicts('json'),
    );
  targetOptions(readResource)
    .addHelpText(
      'after',
      `
Examples:
  agenttool read-resource dist/app.module.js docs://readme
  agenttool read-resource dist/app.module.js 'users://ada/profile' --json
  agenttool read-resource --stdio "node server.js" file:///logo.png --output logo.png
  (agenttool list <target> shows the resources and the templates)
${EXIT_CODES_HELP}`,
    )
    .action(
      async (words: string[], options: TargetOptions & { json?: boolean; output?: string }) => {
        const [moduleFile, uri] = targetAndWords('read-resource', words, options, {
          first: 'uri',
          example: 'agenttool read-resource app.module.js docs://readme',
        });
        setCode(
          await withTarget(targetSpec(moduleFile, options, io), resources, io, (target, signal) =>
            runReadResource(
              target,
              { uri, json: options.json === true, output: options.output, signal },
              io,
            ),
          ),
        );
      },
    );
}

function configSpec(options: ConfigFlags): Pick<TargetSpec, 'config' | 'expandEnv'> {
  return { config: options.config, expandEnv: options.expandEnv };
}

/**
 * The words of `call`, `get-prompt` and `read-resource`: the module file (unless
 * `--stdio` or `--http` names the target), the name (or URI), and at most one more word
 * (the JSON arguments, where `rest` names them).
 */
function targetAndWords(
  command: string,
  words: readonly string[],
  options: TargetOptions,
  what: { first: string; example: string; rest?: string },
): [moduleFile: string | undefined, name: string, rest: string | undefined] {
  const remote = options.stdio !== undefined || options.http !== undefined;
  const [moduleFile, name, rest, ...extra] = remote ? [undefined, ...words] : words;
  if (name === undefined) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: ${command}: give the target and the ${what.first}, e.g. ${what.example}`,
    );
  }
  if (extra.length > 0 || (what.rest === undefined && rest !== undefined)) {
    const unexpected = what.rest === undefined ? rest : extra[0];
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      what.rest === undefined
        ? `agenttool: ${command}: unexpected ${JSON.stringify(unexpected)}; give the target and one ${what.first}`
        : `agenttool: ${command}: unexpected ${JSON.stringify(unexpected)}; give the ${what.rest} as one JSON object in single quotes`,
    );
  }
  return [moduleFile, name, rest];
}

function targetOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--stdio <command>', 'start this command and speak MCP over its stdio').conflicts(
        'http',
      ),
    )
    .option('--http <url>', "an MCP server's Streamable HTTP endpoint")
    .option('--header <header...>', 'with --http: headers to send, "Name: value"')
    .addOption(
      new Option(
        '--protocol <era>',
        'with --stdio or --http: the protocol to speak (auto: 2026-07-28 when the server serves it; over stdio that probes with a second, short-lived server process)',
      )
        .choices(['auto', 'modern', 'legacy'])
        .default('auto'),
    )
    .option('--token <token>', 'with --http: send this bearer token (Authorization: Bearer)')
    .addOption(
      new Option(
        '--oauth',
        'with --http: use the stored OAuth grant for the server, logging in first when there is none',
      ).conflicts('token'),
    )
    .option(
      '--token-store <file>',
      'with --oauth: where grants are kept (default: ~/.config/agenttool/tokens.json)',
    )
    .option(
      '--oauth-port <port>',
      'with --oauth: the loopback port the login redirects to (default 8976)',
      parsePort,
    );
}

function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1 || port > 65535) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: --oauth-port ${JSON.stringify(text)}: give a port, 1 to 65535`,
    );
  }
  return port;
}

function targetSpec(moduleFile: string | undefined, options: TargetOptions, io: CliIo): TargetSpec {
  return {
    moduleFile,
    stdio: options.stdio,
    http: options.http,
    headers: options.header,
    protocol: options.protocol,
    auth: {
      token: options.token,
      oauth: options.oauth,
      tokenStore: options.tokenStore,
      oauthPort: options.oauthPort,
    },
    log: io.stderr,
  };
}

/**
 * Opens the target and runs `use` with it, then closes it. Ctrl-C or SIGTERM, from
 * the start (a server still starting or connecting included), aborts the signal `use`
 * gets, or the opening: the target is closed (a `--stdio` server's process gone) and
 * the command ends with {@link ExitCode.INTERRUPTED}.
 */
async function withTarget(
  spec: TargetSpec,
  resources: OpenResources,
  io: CliIo,
  use: (target: OpenTarget, signal: AbortSignal) => Promise<ExitCode>,
): Promise<ExitCode> {
  // Aborts the opening too: a module file's loading, its app's start (ToolApp.create).
  const interrupt = new AbortController();
  const stop = (): void => interrupt.abort();
  const release = onStopSignals({ interrupt: stop, terminate: stop });
  try {
    let target: OpenTarget;
    try {
      target = await openTarget({ ...spec, signal: interrupt.signal });
    } catch (error) {
      if (!interrupt.signal.aborted) throw error;
      io.stderr.write('agenttool: interrupted\n');
      return ExitCode.INTERRUPTED;
    }
    const untrack = resources.track(() => target.close());
    try {
      if (interrupt.signal.aborted) {
        io.stderr.write('agenttool: interrupted\n');
        return ExitCode.INTERRUPTED;
      }
      return await use(target, interrupt.signal);
    } finally {
      // A provider whose close() throws is named, as a warning: the work was done (a
      // call's tool succeeded), and the exit code says how it went, not how closing did.
      await target.close().catch((error: unknown) => {
        for (const failure of closeFailures(error)) {
          io.stderr.write(
            `agenttool: warning: while closing ${terminalSafe(target.label)}: ${terminalSafeLines(failure)}\n`,
          );
        }
      });
      untrack();
    }
  } finally {
    release();
  }
}
