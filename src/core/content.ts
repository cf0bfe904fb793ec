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

/** The extension of a file name or path, lower-cased, without its dot; "" for none. */
function extensionOf(name: string): string {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '' : base.slice(dot + 1).toLowerCase();
}

/** Media types by file extension: common documents, images and audio. */
const MEDIA_TYPES: ReadonlyMap<string, string> = new Map([
  ['txt', 'text/plain'],
  ['md', 'text/markdown'],
  ['csv', 'text/csv'],
  ['html', 'text/html'],
  ['json', 'application/json'],
  ['xml', 'application/xml'],
  ['pdf', 'application/pdf'],
  ['zip', 'application/zip'],
  ['png', 'image/png'],
  ['jpg', 'image/jpeg'],
  ['jpeg', 'image/jpeg'],
  ['gif', 'image/gif'],
  ['webp', 'image/webp'],
  ['svg', 'image/svg+xml'],
  ['wav', 'audio/wav'],
  ['mp3', 'audio/mpeg'],
  ['m4a', 'audio/mp4'],
  ['aac', 'audio/aac'],
  ['ogg', 'audio/ogg'],
  ['opus', 'audio/opus'],
  ['flac', 'audio/flac'],
  ['webm', 'audio/webm'],
]);

/**
 * The media type a file part's name (or URL) suggests by its extension, as adapters that
 * must state one give it; `application/octet-stream` when the name says none.
 */
export function mediaTypeOf(name: string): string {
  return MEDIA_TYPES.get(extensionOf(name)) ?? 'application/octet-stream';
}
