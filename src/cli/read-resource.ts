// node:fs's `promises`, read where a file is written (node:fs/promises, as it loads, costs
// every start of the command 1.3 ms).
import { promises as fsPromises } from 'node:fs';
import { errorMessage } from './public-api';
import { type CliIo } from './call';
import { CliError, ExitCode } from './exit-codes';
import { base64Bytes } from './get-prompt';
import { primitiveFailure } from './primitive-errors';
import { type OpenTarget, type Primitives } from './targets';
import { terminalContext } from './terminal-context';
import { forOutput, terminalSafe } from './terminal-text';

/** What `agenttool read-resource` takes besides the target. */
export interface ReadResourceOptions {
  readonly uri: string;
  /** Print the `resources/read` result as JSON. */
  readonly json: boolean;
  /** Write the contents (text or bytes) to this file instead of stdout. */
  readonly output?: string | undefined;
  /** Aborted to interrupt (Ctrl-C). */
  readonly signal?: AbortSignal | undefined;
}

type ReadResult = Awaited<ReturnType<Primitives['readResource']>>;
type Contents = ReadResult['contents'][number];

/**
 * Reads the resource at a URI (a listed resource, or a template's URI filled in) and
 * prints its contents: text as is, binary contents summarized (MIME type and size)
 * unless `output` names a file to write them to; with `json`, the result as the server
 * gave it. Throws a {@link CliError} for an unknown URI.
 */
export async function runReadResource(
  target: OpenTarget,
  options: ReadResourceOptions,
  io: CliIo,
): Promise<ExitCode> {
  const primitives = await target.primitives();
  if (primitives === undefined) {
    throw new CliError(ExitCode.BAD_ARGUMENTS, `agenttool: ${target.label} has no resources`);
  }
  const asking = terminalContext(io, options.signal);
  let result: ReadResult;
  try {
    result = await primitives.readResource(options.uri, {
      context: asking.context,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } catch (error) {
    if (options.signal?.aborted === true) {
      io.stderr.write(`agenttool: ${options.uri}: interrupted\n`);
      return ExitCode.INTERRUPTED;
    }
    throw primitiveFailure(
      error,
      '; `agenttool list` shows the resources and templates of the target',
    );
  } finally {
    asking.close();
  }
  if (options.output !== undefined) return writeContents(result, options.output, io);
  if (options.json) {
    io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return ExitCode.OK;
  }
  const several = result.contents.length > 1;
  for (const contents of result.contents) {
    const text = forOutput(
      'text' in contents
        ? `${several ? `${describe(contents)}\n` : ''}${contents.text}`
        : `${describe(contents)} (--output <file> writes it)`,
      io.stdout,
    );
    io.stdout.write(text.endsWith('\n') || text === '' ? text : `${text}\n`);
  }
  return ExitCode.OK;
}

/** `[<uri>, <mime type>]`, with the size of binary contents. */
function describe(contents: Contents): string {
  const blob = blobOf(contents);
  const mime = contents.mimeType ?? (blob === undefined ? 'text/plain' : 'binary');
  return blob === undefined
    ? `[${contents.uri}, ${mime}]`
    : `[${contents.uri}, ${mime}, ${base64Bytes(blob)} bytes]`;
}

function blobOf(contents: Contents): string | undefined {
  return 'blob' in contents ? contents.blob : undefined;
}

/** The one contents' text or bytes, written to `file`; what was written said on stderr. */
async function writeContents(result: ReadResult, file: string, io: CliIo): Promise<ExitCode> {
  const [contents, ...more] = result.contents;
  if (contents === undefined || more.length > 0) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: --output: the resource has ${result.contents.length} contents, not one; give --json to see them all`,
    );
  }
  const blob = blobOf(contents);
  const bytes =
    blob === undefined
      ? Buffer.from('text' in contents ? contents.text : '')
      : Buffer.from(blob, 'base64');
  try {
    await fsPromises.writeFile(file, bytes);
  } catch (error) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: --output ${file}: cannot write: ${errorMessage(error)}`,
      { cause: error },
    );
  }
  io.stderr.write(`agenttool: wrote ${terminalSafe(describe(contents))} to ${file}\n`);
  return ExitCode.OK;
}
