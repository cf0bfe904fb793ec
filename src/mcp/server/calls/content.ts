import { type ContentBlock } from '@modelcontextprotocol/server';
import {
  type ContentPart,
  type FilePart,
  type ImagePart,
  mediaTypeOf,
  type Output,
} from '../../../core';

/**
 * MCP content for a tool's output (the Go binding's `ContentOf`):
 * - text output: one text block, even when empty;
 * - `text`, `input_text`, `output_text` parts: text blocks;
 * - `input_image` with a base64 data URL: an image block (no media type reads
 *   `application/octet-stream`); any other image URL: a resource link named `image`;
 * - `input_file` with `file_data`: an audio block when the file name has an audio
 *   extension (`.wav`, `.mp3`, …), else an embedded resource whose URI is the
 *   `file_url` or `file:///<filename>` with a media type guessed from the name (bad
 *   base64 reads as text); the Go binding serves `{uri, blob}` alone, but MCP's own
 *   conformance suite refuses an embedded resource without `mimeType`; with only a
 *   `file_url`: a resource link; with only a name: the name as text;
 * - any other part: its JSON as text.
 *
 * Base64 may be wrapped across lines, as Go's decoder takes it; it is served without
 * the line breaks. A missing string field reads as "", as Go's typed parts have it
 * (an `input_image` without `image_url` is a resource link to "").
 */
export function contentOf(output: Output): ContentBlock[] {
  if (typeof output === 'string') return [{ type: 'text', text: output }];
  return output.map(blockOf);
}

function blockOf(part: ContentPart): ContentBlock {
  switch (part.type) {
    case 'text':
    case 'input_text':
    case 'output_text':
      return { type: 'text', text: stringOf(part.text) };
    case 'input_image':
      return imageBlock(part);
    case 'input_file':
      return fileBlock(part);
    default:
      return { type: 'text', text: JSON.stringify(part) };
  }
}

function imageBlock(part: ImagePart): ContentBlock {
  const url = stringOf(part.image_url);
  const parsed = parseDataUrl(url);
  if (parsed === undefined) return { type: 'resource_link', uri: url, name: 'image' };
  return { type: 'image', data: parsed.data, mimeType: parsed.mediaType };
}

function fileBlock(part: FilePart): ContentBlock {
  const filename = stringOf(part.filename);
  const fileUrl = stringOf(part.file_url);
  const fileData = stringOf(part.file_data);
  if (fileData !== '') {
    const data = base64Of(fileData);
    if (data === undefined) return { type: 'text', text: fileData };
    const mimeType = mediaTypeOf(filename);
    if (mimeType.startsWith('audio/')) return { type: 'audio', data, mimeType };
    const uri = fileUrl !== '' ? fileUrl : `file:///${filename.replace(/^\/+/, '')}`;
    return {
      type: 'resource',
      resource: { uri, mimeType: mediaTypeOf(filename || uri), blob: data },
    };
  }
  if (fileUrl !== '') return { type: 'resource_link', uri: fileUrl, name: filename };
  return { type: 'text', text: filename };
}

/**
 * A part's string field as the Go binding's typed parts read it: a missing one is "",
 * so that the content stays valid MCP. A value that is not a string (a part built
 * without its type) reads as its JSON, not lost.
 */
function stringOf(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined || value === null ? '' : JSON.stringify(value);
}

/** A parsed `data:<media type>;base64,<data>` URL. */
export interface DataUrl {
  readonly mediaType: string;
  readonly data: string;
}

/**
 * Parses a base64 data URL; undefined for anything else (not a data URL, not base64,
 * or data that is not valid base64). Line breaks in the data are skipped, as Go's
 * decoder skips them, and left out of `data`. The media type is what the URL says before
 * `;base64`, parameters included; an empty one reads `application/octet-stream`.
 */
export function parseDataUrl(url: string): DataUrl | undefined {
  const match = /^data:([^,]*?);base64,(.*)$/s.exec(url);
  if (match === null) return undefined;
  const data = base64Of(match[2] ?? '');
  if (data === undefined) return undefined;
  // As written, parameters included (`image/svg+xml;charset=utf-8`), as the Go server
  // serves it (mcpserver/mcp.go parseDataURL).
  const mediaType = match[1] ?? '';
  return { mediaType: mediaType === '' ? 'application/octet-stream' : mediaType, data };
}

/**
 * Standard base64 with padding, as Go's `base64.StdEncoding` accepts it: line breaks
 * (`\r`, `\n`) anywhere are skipped, so data wrapped at 76 characters (MIME, `base64`(1))
 * reads as what it encodes. The data without them, or undefined when it is not base64.
 */
function base64Of(text: string): string | undefined {
  const data = /[\r\n]/.test(text) ? text.replace(/[\r\n]+/g, '') : text;
  return data.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(data) ? data : undefined;
}
