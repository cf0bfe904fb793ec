import { generateText, isStepCount, type LanguageModel } from 'ai';
import { type ToolRecord } from 'agenttool';
import { aiSdkTools } from 'agenttool/ai-sdk';
import { ToolApp } from 'agenttool/di';
import { WorkspaceModule } from 'agenttool/workspace';

/**
 * The workspace's tools (a persistent shell, file tools) in the AI SDK's own loop. When
 * the model asks for several calls in one step, they run as one batch by the
 * executor's rules: the shell commands (resource `shell:session`) in the model's order,
 * the rest alongside; the records the shell writes reach the recorder.
 */
export async function askWorkspace(model: LanguageModel, prompt: string) {
  const records: ToolRecord[] = [];
  const app = await ToolApp.create(WorkspaceModule);
  try {
    const result = await generateText({
      model,
      prompt,
      tools: aiSdkTools(app, { recorder: (record) => void records.push(record) }),
      stopWhen: isStepCount(10),
    });
    return { text: result.text, steps: result.steps, records };
  } finally {
    await app.close(); // ends the shell
  }
}
