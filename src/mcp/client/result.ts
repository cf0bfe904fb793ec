import {
  AgentToolError,
  type ContentPart,
  depthExceeded,
  isJsonObject,
  type JsonObject,
  jsonEqual,
  MAX_JSON_DEPTH,
  type Result,
} from '../../core';
import { RemoteToolError } from './errors';
import { jsonExcerpt } from './excerpts';
import { detailsOf } from './record';

const AUDIO_EXTENSIONS: Readonly<Record<string, string>> = {
  'audio/wav': '.wav',
  'audio/x-wav': '.wav',
  'audio/wave': '.wav',
  'audio/mpeg': '.mp3',
  'audio/mp3': '.mp3',
  'audio/mp4': '.m4a',
  'audio/aac': '.aac',
  'audio/ogg': '.ogg',
  'audio/opus': '.opus',
  'audio/flac': '.flac',
  'audio/webm': '.webm',
};

/**
 * The file name an audio block becomes: `audio` plus the extension of its media type
 * (lower-cased, parameters after `;` ignored); `audio` for an unknown or missing type.
 */
export function audioName(mimeType: string | undefined): string {
  const type = (mimeType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  // Own keys only: a server's media type must not reach Object.prototype members.
  return `audio${Object.hasOwn(AUDIO_EXTENSIONS, type) ? AUDIO_EXTENSIONS[type] : ''}`;
}

type Mapped =
  { kind: 'text'; text: string } | { kind: 'part'; part: ContentPart } | { kind: 'none' };

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function mapBlock(block: unknown): Mapped {
  if (!isJsonObject(block)) return { kind: 'text', text: JSON.stringify(block) ?? 'null' };
  switch (block['type']) {
    case 'text':
      if (typeof block['text'] === 'string') return { kind: 'text', text: block['text'] };
      break;
    case 'image':
      if (typeof block['data'] === 'string') {
        const mime = str(block['mimeType']) || 'application/octet-stream';
        return {
          kind: 'part',
          part: { type: 'input_image', image_url: `data:${mime};base64,${block['data']}` },
        };
      }
      break;
    case 'audio':
      if (typeof block['data'] === 'string') {
        const filename = audioName(str(block['mimeType']));
        return { kind: 'part', part: { type: 'input_file', filename, file_data: block['data'] } };
      }
      break;
    case 'resource': {
      // As the Go binding reads one: no resource is nothing; an empty blob is no blob;
      // a resource without a blob is its text, "" when it has none.
      const resource = block['resource'];
      if (resource === undefined || resource === null) return { kind: 'none' };
      if (isJsonObject(resource)) {
        const blob = resource['blob'];
        if (typeof blob === 'string' && blob !== '') {
          return {
            kind: 'part',
            part: { type: 'input_file', filename: str(resource['uri']), file_data: blob },
          };
        }
        const text = resource['text'];
        if (text === undefined || text === null) return { kind: 'text', text: '' };
        if (typeof text === 'string') return { kind: 'text', text };
      }
      break;
    }
    case 'resource_link':
      if (typeof block['uri'] === 'string')
        return { kind: 'text', text: `resource: ${block['uri']}` };
      break;
  }
  return { kind: 'text', text: JSON.stringify(block) };
}

/**
 * A raw MCP `tools/call` result as a `Result` (agenttool's), per the contract's ResultOf:
 * text blocks become text; images `input_image` data URLs; audio and embedded blobs
 * `input_file` parts; embedded text becomes text; resource links the text
 * `resource: <uri>`; any other block its JSON as text. A text-only result is the texts
 * joined with "\n"; otherwise parts, with text as `{"type":"text"}` parts. Details are
 * the raw result, or its {@link RemoteRecord}.
 *
 * `structuredContent` that is a JSON object is the result's `structured` value. It is
 * also appended to the output as JSON text, as the Go binding does, unless a text block
 * already holds the same JSON value (MCP asks a server to send it as text too, and the
 * model should not read it twice).
 *
 * Throws {@link RemoteToolError} for `isError` (the joined text, `tool call failed` when
 * empty; details kept), `mcp: empty result` for a missing result, and a `PROTOCOL` error
 * for `content` that is not a list (a string, an object): its text would be lost; and
 * for a result nested more than `MAX_JSON_DEPTH` (1000) deep, which JSON.stringify
 * cannot write some thousands deep (the call would fail as the tool's crash).
 */
export function resultOf(raw: unknown): Result {
  if (!isJsonObject(raw)) throw new AgentToolError('PROTOCOL', 'mcp: empty result');
  if (depthExceeded(raw) !== undefined) {
    throw new AgentToolError(
      'PROTOCOL',
      `mcp: the result nests objects and arrays more than ${MAX_JSON_DEPTH} deep`,
    );
  }
  const given = raw['content'];
  // Absent, a result is its structured content alone; anything but a list is no result.
  if (given !== undefined && given !== null && !Array.isArray(given)) {
    throw new AgentToolError(
      'PROTOCOL',
      `mcp: the result's content is not a list of blocks: ${jsonExcerpt(given)}`,
    );
  }
  const content = Array.isArray(given) ? (given as unknown[]) : [];
  const mapped = content.map(mapBlock).filter((m) => m.kind !== 'none');
  const structuredContent = raw['structuredContent'];
  // null is no structured content, as the Go binding reads a nil one.
  if (
    structuredContent !== undefined &&
    structuredContent !== null &&
    !shownAsText(mapped, structuredContent)
  ) {
    mapped.push({ kind: 'text', text: JSON.stringify(structuredContent) });
  }
  const texts = mapped.flatMap((m) => (m.kind === 'text' ? [m.text] : []));
  const details = detailsOf(raw);
  if (raw['isError'] === true) {
    const message = texts.join('\n');
    throw new RemoteToolError(message === '' ? 'tool call failed' : message, details);
  }
  const structured: { structured?: JsonObject } = isJsonObject(structuredContent)
    ? { structured: structuredContent }
    : {};
  if (texts.length === mapped.length) return { output: texts.join('\n'), details, ...structured };
  const parts = mapped.map((m): ContentPart =>
    m.kind === 'text' ? { type: 'text', text: m.text } : m.part,
  );
  return { output: parts, details, ...structured };
}

/** True when a text block is the JSON of `value` (same value; spacing and key order aside). */
function shownAsText(mapped: readonly Mapped[], value: unknown): boolean {
  return mapped.some((m) => {
    if (m.kind !== 'text') return false;
    const text = m.text.trim();
    if (!text.startsWith('{') && !text.startsWith('[')) return false;
    try {
      return jsonEqual(JSON.parse(text), value);
    } catch {
      return false;
    }
  });
}
