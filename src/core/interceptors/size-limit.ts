import { type ContentPart, type Output } from '../content';
import { AgentToolError } from '../errors';
import { goQuote } from '../quote';
import { type Result } from '../result';
import { type CallHandler, type Interceptor, type ToolExecutionContext } from './chain';
import { wholeNumber } from './options';

/** What {@link ResultSizeInterceptor} takes. */
export interface ResultSizeOptions {
  /** The most bytes a result's output may take (UTF-8 text, and every part's payload). */
  readonly maxBytes: number;
}

/**
 * A result larger than a {@link ResultSizeInterceptor} lets through: the call fails, and
 * the model reads `result of "<tool>" is <n> bytes, over the limit of <max> bytes`.
 */
export class ResultTooLargeError extends AgentToolError {
  /** The tool whose result was refused. */
  readonly tool: string;
  /** The result's size in bytes. */
  readonly bytes: number;
  /** The limit it is over. */
  readonly maxBytes: number;

  constructor(tool: string, bytes: number, maxBytes: number) {
    super(
      'RESULT_TOO_LARGE',
      `result of ${goQuote(tool)} is ${bytes} bytes, over the limit of ${maxBytes} bytes; ask for less (a narrower query, a page)`,
    );
    this.name = 'ResultTooLargeError';
    this.tool = tool;
    this.bytes = bytes;
    this.maxBytes = maxBytes;
  }
}

/**
 * Limits the size of a tool's results: an output over `maxBytes` fails the call with a
 * {@link ResultTooLargeError}, so that what reaches the model (and the wire) stays
 * bounded. Counted: the output's text in UTF-8, or for content parts every part's text,
 * image URL, file data and file URL, and a refusal's text. Details, which never reach
 * the model, are not counted; a structured result's JSON is its output's text.
 */
export class ResultSizeInterceptor implements Interceptor {
  readonly #maxBytes: number;

  constructor(options: ResultSizeOptions) {
    this.#maxBytes = wholeNumber('ResultSizeInterceptor', 'maxBytes', options?.maxBytes, 0);
  }

  /** The rest's result, or a {@link ResultTooLargeError} when it is over the limit. */
  async intercept(context: ToolExecutionContext, next: CallHandler): Promise<Result> {
    const result = await next.handle();
    const bytes = outputBytes(result.output);
    if (bytes > this.#maxBytes)
      throw new ResultTooLargeError(context.tool.name, bytes, this.#maxBytes);
    return result;
  }
}

/** The bytes of an output: its text, or its parts' payloads, in UTF-8. */
function outputBytes(output: Output): number {
  if (typeof output === 'string') return Buffer.byteLength(output, 'utf8');
  let bytes = 0;
  for (const part of output) bytes += partBytes(part);
  return bytes;
}

function partBytes(part: ContentPart): number {
  const texts: (string | undefined)[] = [];
  switch (part.type) {
    case 'input_image':
      texts.push(part.image_url);
      break;
    case 'input_file':
      texts.push(part.file_data, part.file_url, part.filename);
      break;
    case 'refusal':
      texts.push(part.refusal);
      break;
    default:
      texts.push(part.text);
  }
  let bytes = 0;
  for (const text of texts) if (typeof text === 'string') bytes += Buffer.byteLength(text, 'utf8');
  return bytes;
}
