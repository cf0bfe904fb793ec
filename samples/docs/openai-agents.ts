import { Agent, type Model, run } from '@openai/agents';
import { type ToolRecord } from 'agenttool';
import { ToolApp } from 'agenttool/di';
import { openAiAgentsTools } from 'agenttool/openai-agents';
import { WorkspaceModule } from 'agenttool/workspace';

/**
 * The workspace's tools as function tools of an OpenAI Agents SDK agent. A turn's calls
 * run as one batch by the executor's rules, as in the AI SDK; a failure reaches the
 * model as `Error: <message>`.
 */
export async function runWorkspaceAgent(model: Model | string, input: string) {
  const records: ToolRecord[] = [];
  const app = await ToolApp.create(WorkspaceModule);
  try {
    const agent = new Agent({
      name: 'workspace',
      instructions: 'You work in a workspace folder with a shell and file tools.',
      model,
      tools: openAiAgentsTools(app, { recorder: (record) => void records.push(record) }),
    });
    const result = await run(agent, input);
    return { output: result.finalOutput, items: result.newItems, records };
  } finally {
    await app.close(); // ends the shell
  }
}
