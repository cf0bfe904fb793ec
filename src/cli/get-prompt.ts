import { errorMessage, parseArguments } from './public-api';
import { type CliIo } from './call';
import { closestNames } from './closest';
import { CliError, ExitCode } from './exit-codes';
import { type ListedPrompt } from './list-primitives';
import { primitiveFailure } from './primitive-errors';
import { type OpenTarget, type Primitives } from './targets';
import { terminalContext } from './terminal-context';
import { forOutput } from './terminal-text';

/** What `agenttool get-prompt` takes besides the target. */
export interface GetPromptOptions {
  readonly name: string;
  /** The arguments as a JSON object of strings; absent means `{}`. */
  readonly args?: string | undefined;
  /** Print the `prompts/get` result as JSON. */
  readonly json: boolean;
  /** Aborted to interrupt (Ctrl-C). */
  readonly signal?: AbortSignal | undefined;
}

type PromptResult = Awaited<ReturnType<Primitives['getPrompt']>>;
type PromptContent = PromptResult['messages'][number]['content'];

/**
 * Gets one prompt filled with its arguments and prints its messages (or, with `json`,
 * the result as the server gave it). The name and the required arguments are checked
 * against the listing first; a question the prompt asks is put to the person at the
 * terminal. Throws a {@link CliError} for an unknown prompt or arguments that do not fit.
 */
export async function runGetPrompt(
  target: OpenTarget,
  options: GetPromptOptions,
  io: CliIo,
): Promise<ExitCode> {
  const primitives = await target.primitives();
  if (primitives === undefined) {
    throw new CliError(ExitCode.BAD_ARGUMENTS, `agenttool: ${target.label} has no prompts`);
  }
  const listed = await primitives.listPrompts().catch((error: unknown) => {
    throw primitiveFailure(error);
  });
  const prompt = findPrompt(target.label, listed, options.name);
  const args = promptArguments(prompt, options.args ?? '{}');
  const asking = terminalContext(io, options.signal);
  let result: PromptResult;
  try {
    result = await primitives.getPrompt(prompt.name, args, {
      context: asking.context,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } catch (error) {
    if (options.signal?.aborted === true) {
      io.stderr.write(`agenttool: ${prompt.name}: interrupted\n`);
      return ExitCode.INTERRUPTED;
    }
    throw primitiveFailure(error);
  } finally {
    asking.close();
  }
  const text = options.json
    ? JSON.stringify(result, null, 2)
    : forOutput(messagesText(result), io.stdout);
  io.stdout.write(text.endsWith('\n') || text === '' ? text : `${text}\n`);
  return ExitCode.OK;
}

function findPrompt(label: string, listed: readonly ListedPrompt[], name: string): ListedPrompt {
  const prompt = listed.find((p) => p.name === name);
  if (prompt !== undefined) return prompt;
  const names = listed.map((p) => p.name);
  const near = closestNames(name, names);
  const hint =
    near.length > 0
      ? `did you mean ${near.join(', ')}?`
      : `its prompts: ${names.length > 0 ? names.join(', ') : 'none'}`;
  throw new CliError(
    ExitCode.BAD_ARGUMENTS,
    `agenttool: no prompt named ${JSON.stringify(name)} in ${label}; ${hint}`,
  );
}

/**
 * The arguments: one JSON object of strings (MCP's prompt arguments are strings), with
 * every argument the prompt requires.
 */
function promptArguments(prompt: ListedPrompt, raw: string): Record<string, string> {
  let value: unknown;
  try {
    value = parseArguments(raw);
  } catch (error) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: the arguments for prompt ${prompt.name} are not JSON (${errorMessage(error).replace(/^invalid arguments: (?:not valid JSON: )?/, '')}); give one JSON object of strings in single quotes, e.g. '{"code": "x = 1"}'`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: the arguments for prompt ${prompt.name} must be a JSON object of strings, got ${raw.trim()}`,
    );
  }
  const args: Record<string, string> = {};
  for (const [name, given] of Object.entries(value)) {
    if (typeof given !== 'string') {
      throw new CliError(
        ExitCode.BAD_ARGUMENTS,
        `agenttool: prompt ${prompt.name}: argument ${JSON.stringify(name)} must be a string (prompt arguments are strings), got ${JSON.stringify(given)}`,
      );
    }
    args[name] = given;
  }
  const missing = (prompt.arguments ?? []).filter((a) => a.required === true && !(a.name in args));
  if (missing.length > 0) {
    const described = missing
      .map((a) => (a.description === undefined ? a.name : `${a.name} (${a.description})`))
      .join(', ');
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: prompt ${prompt.name} needs ${missing.length === 1 ? 'the argument' : 'the arguments'} ${described}; give the arguments as one JSON object, e.g. '${JSON.stringify(Object.fromEntries(missing.map((a) => [a.name, '...'])))}'`,
    );
  }
  return args;
}

/**
 * The messages as a person reads them: each under its role (`[user]`, `[assistant]`),
 * text as is; images, audio and binary resources named with their MIME type and size.
 */
export function messagesText(result: PromptResult): string {
  return result.messages
    .map((message) => `[${message.role}]\n${contentText(message.content)}`)
    .join('\n\n');
}

function contentText(content: PromptContent): string {
  switch (content.type) {
    case 'text':
      return content.text;
    case 'image':
    case 'audio':
      return `[${content.type} ${content.mimeType}, ${base64Bytes(content.data)} bytes]`;
    case 'resource': {
      const r = content.resource;
      if ('text' in r) return `[resource ${r.uri}, ${r.mimeType ?? 'text/plain'}]\n${r.text}`;
      return `[resource ${r.uri}, ${r.mimeType ?? 'binary'}, ${base64Bytes(r.blob)} bytes]`;
    }
    case 'resource_link':
      return `[resource link ${content.uri}${content.name === '' ? '' : ` (${content.name})`}]`;
    default:
      return JSON.stringify(content);
  }
}

/** How many bytes base64 text holds. */
export function base64Bytes(data: string): number {
  return Buffer.byteLength(data, 'base64');
}
