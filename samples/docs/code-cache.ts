import 'agenttool/code-cache'; // first: the rest of agenttool loads through it
import { newTool, text } from 'agenttool';
import { McpToolServer } from 'agenttool/mcp';

const echo = newTool({
  name: 'echo',
  description: 'Says the text back',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  execute: (call) => text((JSON.parse(call.args) as { text: string }).text),
});

void new McpToolServer([echo], { name: 'echo', version: '1.0.0' }).serveStdio();
