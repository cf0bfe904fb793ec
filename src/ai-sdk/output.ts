import type { Tool as AiTool } from 'ai';
import { type ContentPart, isTextPart, mediaTypeOf, type Output } from 'agenttool';

/** What the SDK sends the model for a tool's result (its `ToolResultOutput`). */
export type ModelOutput = Awaited<ReturnType<NonNullable<AiTool['toModelOutput']>>>;

type ContentOutput = Extract<ModelOutput, { type: 'content' }>;
type ContentItem = ContentOutput['value'][number];

/**
 * A tool's output as the AI SDK sends it to the model: text as text, content parts as
 * the SDK's content (text, and files for images and inline files).
 */
export function modelOutput(output: Output): ModelOutput {
  if (typeof output === 'string') return { type: 'text', value: output };
  return { type: 'content', value: output.map(contentItem) };
}

function contentItem(part: ContentPart): ContentItem {
  if (isTextPart(part)) return { type: 'text', text: part.text };
  switch (part.type) {
    case 'input_image': {
      const data = dataUrl(part.image_url);
      if (data !== undefined) {
        return {
          type: 'file',
          data: { type: 'data', data: data.base64 },
          mediaType: data.mediaType,
        };
      }
      return {
        type: 'file',
        data: { type: 'url', url: new URL(part.image_url) },
        mediaType: 'image',
      };
    }
    case 'input_file': {
      const filename = part.filename === undefined ? {} : { filename: part.filename };
      const mediaType = mediaTypeOf(part.filename ?? '');
      if (part.file_data !== undefined) {
        return {
          type: 'file',
          data: { type: 'data', data: part.file_data },
          mediaType,
          ...filename,
        };
      }
      if (part.file_url !== undefined) {
        return {
          type: 'file',
          data: { type: 'url', url: new URL(part.file_url) },
          mediaType,
          ...filename,
        };
      }
      return { type: 'text', text: JSON.stringify(part) };
    }
    default:
      // A refusal, or a part of a kind the SDK has no content for: its JSON, as text.
      return { type: 'text', text: JSON.stringify(part) };
  }
}

function dataUrl(url: string): { mediaType: string; base64: string } | undefined {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return match === null ? undefined : { mediaType: match[1]!, base64: match[2]! };
}
