/**
 * Content parts of an Open Responses function-call output. A tool's output is either
 * text or a list of these parts.
 */
export type TextPartType =
  'input_text' | 'output_text' | 'text' | 'summary_text' | 'reasoning_text';

/** A part whose `text` is read as the output's text. */
export interface TextPart {
  type: TextPartType;
  text: string;
}

/** An image, as a URL: usually a `data:<mime>;base64,<data>` URL. */
export interface ImagePart {
  type: 'input_image';
  image_url: string;
  detail?: 'low' | 'high' | 'auto';
}

/** A file: inline base64 `file_data` with a `filename`, or a `file_url`. */
export interface FilePart {
  type: 'input_file';
  filename?: string;
  file_data?: string;
  file_url?: string;
}

/** A refusal from the model side; carried through, read as its JSON where text is needed. */
export interface RefusalPart {
  type: 'refusal';
  refusal: string;
}

/** One content part of an output. */
export type ContentPart = TextPart | ImagePart | FilePart | RefusalPart;

/** A function-call output: text, or content parts. Its JSON is the string or the array. */
export type Output = string | readonly ContentPart[];

const TEXT_PART_TYPES: ReadonlySet<string> = new Set<TextPartType>([
  'input_text',
  'output_text',
  'text',
  'summary_text',
  'reasoning_text',
]);

const PART_TYPES: ReadonlySet<string> = new Set([
  ...TEXT_PART_TYPES,
  'input_image',
  'input_file',
  'refusal',
]);

/** True for a part whose text counts as text of the output. */
export function isTextPart(part: ContentPart): part is TextPart {
  return TEXT_PART_TYPES.has(part.type);
}

/** True for a value shaped like a content part of a known type. */
export function isContentPart(value: unknown): value is ContentPart {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const type = (value as { type?: unknown }).type;
  return typeof type === 'string' && PART_TYPES.has(type);
}

/**
 * The text of an output: the string itself, or the concatenated text of its textual
 * parts (input_text, output_text, text, summary_text, reasoning_text).
 */
export function outputText(output: Output): string {
  if (typeof output === 'string') return output;
  let text = '';
  for (const part of output) if (isTextPart(part)) text += part.text;
  return text;
}

/** A text part (`input_text`). */
export function textPart(text: string): TextPart {
  return { type: 'input_text', text };
}

/** An image part from raw bytes and a media type, as a base64 data URL. */
export function imagePart(data: Uint8Array, mediaType: string): ImagePart {
  return {
    type: 'input_image',
    image_url: `data:${mediaType};base64,${Buffer.from(data).toString('base64')}`,
  };
}

/** A file part with inline bytes. */
export function filePart(filename: string, data: Uint8Array): FilePart {
  return { type: 'input_file', filename, file_data: Buffer.from(data).toString('base64') };
}
