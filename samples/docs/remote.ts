import { Executor, outputText } from 'agenttool';
import { connectMcp } from 'agenttool/mcp';

/** Calls the greeter of any MCP server at `url` through our client and the executor. */
export async function greetRemotely(url: string, name: string): Promise<string> {
  const remote = await connectMcp({ transport: { url }, prefix: 'greeter' });
  try {
    const tool = remote.tools().find((t) => t.name === 'greeter__greet');
    const [outcome] = await new Executor().results([
      { tool, call: { id: 'call_1', args: JSON.stringify({ name }) } },
    ]);
    if (outcome?.error) throw outcome.error;
    return outputText(outcome?.result.output ?? '');
  } finally {
    await remote.close();
  }
}
