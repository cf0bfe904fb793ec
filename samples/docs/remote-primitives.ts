import { connectMcp, type HttpTarget } from 'agenttool/mcp';

/** What a host shows of a server besides its tools: prompts, resources, completions. */
export async function browseServer(target: HttpTarget): Promise<string[]> {
  const remote = await connectMcp({ transport: target });
  try {
    const lines: string[] = [];
    for (const prompt of await remote.listPrompts()) {
      const names = await remote.complete(
        { type: 'ref/prompt', name: prompt.name },
        { name: 'name', value: 'a' },
      );
      const filled = await remote.getPrompt(prompt.name, {
        name: names.completion.values[0] ?? '',
      });
      const [first] = filled.messages;
      lines.push(
        `prompt ${prompt.name}: ${first?.content.type === 'text' ? first.content.text : ''}`,
      );
    }
    for (const resource of await remote.listResources()) {
      const { contents } = await remote.readResource(resource.uri);
      for (const part of contents) {
        lines.push(
          'text' in part
            ? `${part.uri}: ${part.text}`
            : `${part.uri}: ${part.blob.length} base64 chars`,
        );
      }
    }
    for (const template of await remote.listResourceTemplates()) {
      lines.push(`template ${template.uriTemplate}`);
    }
    return lines;
  } finally {
    await remote.close();
  }
}
