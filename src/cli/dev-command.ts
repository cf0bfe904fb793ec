import { type Command } from 'commander';
import { type CliIo } from './call';
import { developModule } from './dev';
import { DEFAULT_DEBOUNCE_MS } from './dev-watch';
import { CliError, EXIT_CODES_HELP, ExitCode } from './exit-codes';
import { type OpenResources } from './process-guard';
import { onStopSignals, type ServeFlags, serveOptions, serveOptionsFrom } from './serve-flags';

/** Adds `agenttool dev` to the program. */
export function registerDev(
  program: Command,
  io: CliIo,
  resources: OpenResources,
  setCode: (code: ExitCode) => void,
): void {
  const dev = program
    .command('dev')
    .description(
      'Serve a module file from its TypeScript source (compiled by SWC, no build step) over MCP, and reload the app on every edit of a file it imports: sessions stay connected and clients are told what changed.',
    )
    .argument('<module-file>', 'the module file, .ts or .js, optionally file.ts#Export')
    .option(
      '--debounce <ms>',
      `reload once the files have been quiet this long after an edit (default ${DEFAULT_DEBOUNCE_MS})`,
    );
  serveOptions(dev)
    .addHelpText(
      'after',
      `
Examples:
  agenttool dev src/app.module.ts
  agenttool dev src/app.module.ts --http 3333
${EXIT_CODES_HELP}`,
    )
    .action(async (moduleFile: string, options: ServeFlags & { debounce?: string }) => {
      const developing = await developModule({
        ...serveOptionsFrom(options, io),
        moduleFile,
        debounceMs: debounceOf(options.debounce),
      });
      const untrack = resources.track(() => developing.stop());
      const release = onStopSignals({
        interrupt: () => void developing.stop('SIGINT'),
        terminate: () => void developing.stop('SIGTERM'),
      });
      await developing.closed;
      release();
      untrack();
      io.stderr.write('agenttool: stopped\n');
      setCode(ExitCode.OK);
    });
}

function debounceOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isInteger(value) || value < 0 || value > 60_000) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: --debounce ${JSON.stringify(text)}: give a whole number of milliseconds up to 60000, e.g. --debounce 100`,
    );
  }
  return value;
}
