import type { ToolOutputFileContent, ToolOutputImage, ToolOutputText } from '@openai/agents';
import { type ContentPart, isTextPart, mediaTypeOf, type Output } from 'agenttool';

/** One item of a function tool's structured output, as the OpenAI Agents SDK takes it. */
export type AgentsOutputItem = ToolOutputText | ToolOutputImage | ToolOutputFileContent;

/**
 * A tool's output as the Agents SDK sends it to the model: text as a string, content
 * parts as its structured items (text, images, files).
 */
export function agentsOutput(output: Output): string | AgentsOutputItem[] {
  if (typeof output === 'string') return output;
  return output.map(outputItem);
}

function outputItem(part: ContentPart): AgentsOutputItem {
  if (isTextPart(part)) return { type: 'text', text: part.text };
  switch (part.type) {
    case 'input_image':
      // A data URL or any other URL: the SDK takes either as the image.
      return {
        type: 'image',
        image: part.image_url,
        ...(part.detail ? { detail: part.detail } : {}),
      };
    case 'input_file': {
      const filename = part.filename ?? 'file';
      if (part.file_data !== undefined) {
        return {
          type: 'file',
          file: { data: part.file_data, mediaType: mediaTypeOf(filename), filename },
        };
      }
      if (part.file_url !== undefined)
        return { type: 'file', file: { url: part.file_url, filename } };
      return { type: 'text', text: JSON.stringify(part) };
    }
    default:
      // A refusal, or a part of a kind the SDK has no item for: its JSON, as text.
      return { type: 'text', text: JSON.stringify(part) };
  }
}
