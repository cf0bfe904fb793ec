import { type Readable, type Writable } from 'node:stream';
import {
  AgentToolError,
  CancelledError,
  compileSchema,
  type ContentPart,
  errorMessage,
  isTextPart,
  type Job,
  parseArguments,
  recordOf,
  type Result,
  schemaFromJson,
  type Tool,
  ValidationError,
  RecordFile,
} from './public-api';
import { closestNames } from './closest';
import { CliError, ExitCode } from './exit-codes';
import { ProgressDisplay } from './progress';
import { TerminalPrompter } from './prompts';
import { forOutput, terminalSafe, terminalSafeLines } from './terminal-text';
import { type OpenTarget } from './targets';

/** The streams a command speaks through. */
export interface CliIo {
  readonly stdin: Readable & { isTTY?: boolean };
  readonly stdout: Writable & { isTTY?: boolean };
  readonly stderr: Writable & { isTTY?: boolean; columns?: number };
}

/** What `agenttool call` takes besides the target. */
export interface CallOptions {
  readonly tool: string;
  /** The arguments as JSON text; absent means `{}`. */
  readonly args?: string | undefined;
  /** The open file to append the call's records to, as JSON lines (see {@link openRecordFile}). */
  readonly records?: RecordFile | undefined;
  /** Aborted to interrupt the call (Ctrl-C). */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Runs one call through the target's executor: progress shown live on stderr, questions
 * put to the person at the terminal, records appended to `--record`'s file, the output
 * printed on stdout. Resolves with the exit code; throws a {@link CliError} for an
 * unknown tool or arguments that are not a JSON object or do not fit the schema.
 */
export async function runCall(
  target: OpenTarget,
  options: CallOptions,
  io: CliIo,
): Promise<ExitCode> {
  const tool = findTool(target, options.tool);
  const args = checkArguments(tool, options.args ?? '{}');
  const display = new ProgressDisplay(io.stderr);
  const prompter = new TerminalPrompter(
    io.stdin,
    io.stderr,
    io.stdin.isTTY === true && io.stderr.isTTY === true,
  );
  const records = options.records;
  const job: Job = { tool, call: { id: 'call_1', args } };
  let outcome: { result: Result } | { error: Error } | undefined;
  try {
    const events = target.execute([job], {
      signal: options.signal,
      recorder: records?.recorder(() => tool.name),
      elicitor: (question, ctx) => {
        display.clear();
        return prompter.elicitor(question, ctx);
      },
    });
    for await (const event of events) {
      if (!event.final) display.update(tool.name, event.result);
      else outcome = event.error === undefined ? { result: event.result } : { error: event.error };
    }
    display.clear();
    if (outcome !== undefined && records !== undefined) {
      // The final record: the details of the result, or of the failure (what a remote
      // tool's result carries under the record key, success or error, arrives as them).
      const details =
        'result' in outcome
          ? outcome.result.details
          : (outcome.error as { details?: unknown }).details;
      await recordFinal(records, details, tool.name, io);
    }
  } finally {
    display.clear();
    prompter.close();
  }
  if (options.signal?.aborted === true) {
    io.stderr.write(`agenttool: ${terminalSafe(tool.name)}: interrupted\n`);
    return ExitCode.INTERRUPTED;
  }
  if (outcome === undefined) throw new Error('agenttool: the executor gave no final event');
  if ('result' in outcome) {
    const text = forOutput(printable(outcome.result.output), io.stdout);
    io.stdout.write(text.endsWith('\n') || text === '' ? text : `${text}\n`);
    return ExitCode.OK;
  }
  return reportFailure(tool.name, outcome.error, io);
}

/**
 * The `--record` file, opened (created) now: a path that cannot be written is refused
 * as a bad argument before the tools start, rather than failing every record later.
 */
export async function openRecordFile(path: string): Promise<RecordFile> {
  const records = new RecordFile(path);
  try {
    await records.open();
  } catch (error) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: --record ${path}: cannot open: ${errorMessage(error)}`,
      { cause: error },
    );
  }
  return records;
}

function findTool(target: OpenTarget, name: string): Tool {
  const tool = target.tools.find((t) => t.name === name);
  if (tool !== undefined) return tool;
  const names = target.tools.map((t) => terminalSafe(t.name));
  const near = closestNames(name, names);
  const hint =
    near.length > 0
      ? `did you mean ${near.join(', ')}?`
      : `its tools: ${names.length > 0 ? names.join(', ') : 'none'}`;
  throw new CliError(
    ExitCode.BAD_ARGUMENTS,
    `agenttool: no tool named ${JSON.stringify(name)} in ${target.label}; ${hint}`,
  );
}

/**
 * The arguments, checked before the call: JSON, an object, and (when the tool's schema
 * is one the contract's validator reads) valid for the tool.
 */
function checkArguments(tool: Tool, raw: string): string {
  let value: unknown;
  try {
    value = parseArguments(raw);
  } catch (error) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: the arguments for ${tool.name} are not JSON (${errorMessage(error).replace(/^invalid arguments: (?:not valid JSON: )?/, '')}); give one JSON object in single quotes, e.g. '{"path": "notes.txt"}'`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: the arguments for ${tool.name} must be a JSON object, got ${raw.trim()}`,
    );
  }
  // A schema outside the contract's subset is left to the tool (or its server) to check.
  const schema = tool.parameters === undefined ? undefined : schemaFromJson(tool.parameters);
  if (schema === undefined) return raw;
  const validate = compileSchema(schema);
  const error = validate(value);
  if (error !== undefined) {
    throw new CliError(ExitCode.BAD_ARGUMENTS, `agenttool: ${tool.name}: ${error.message}`);
  }
  return raw;
}

async function recordFinal(
  records: RecordFile,
  details: unknown,
  tool: string,
  io: CliIo,
): Promise<void> {
  try {
    const record = recordOf(details);
    if (record !== undefined) await records.write(record, { call: 'call_1', tool, moment: 'end' });
  } catch (error) {
    io.stderr.write(
      `agenttool: --record: the result's record was not written: ${errorMessage(error)}\n`,
    );
  }
}

/** Says why the call failed: what a server or tool said is shown safe (see terminal-text.ts). */
function reportFailure(name: string, error: Error, io: CliIo): ExitCode {
  const tool = terminalSafe(name);
  const message = terminalSafeLines(error.message);
  if (error instanceof ValidationError) {
    io.stderr.write(`agenttool: ${tool}: ${message}\n`);
    return ExitCode.BAD_ARGUMENTS;
  }
  if (error instanceof CancelledError) {
    io.stderr.write(`agenttool: ${tool}: ${message}\n`);
    return ExitCode.INTERRUPTED;
  }
  if (error instanceof AgentToolError && error.code === 'CONNECTION') {
    io.stderr.write(`agenttool: ${tool}: ${message}\n`);
    return ExitCode.CONNECTION;
  }
  io.stderr.write(`Error: ${message}\n`);
  return ExitCode.TOOL_ERROR;
}

/** The output as a person reads it: text as is, other parts named with their size. */
export function printable(output: string | readonly ContentPart[]): string {
  if (typeof output === 'string') return output;
  return output
    .map((part) => {
      if (isTextPart(part)) return part.text;
      switch (part.type) {
        case 'input_image':
          return `[image ${dataUrlSummary(part.image_url)}]`;
        case 'input_file':
          return `[file ${part.filename ?? part.file_url ?? ''}${part.file_data === undefined ? '' : `, ${Buffer.byteLength(part.file_data, 'base64')} bytes`}]`;
        case 'refusal':
          return `[refusal] ${part.refusal}`;
        default:
          return JSON.stringify(part);
      }
    })
    .join('\n');
}

function dataUrlSummary(url: string): string {
  const match = /^data:([^;,]+)?(;base64)?,(.*)$/s.exec(url);
  if (match === null) return url;
  const bytes = match[2] === undefined ? match[3]!.length : Buffer.byteLength(match[3]!, 'base64');
  return `${match[1] ?? 'application/octet-stream'}, ${bytes} bytes`;
}
