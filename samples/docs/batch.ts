import { outputText, type ToolRecord } from 'agenttool';
import { ToolApp } from 'agenttool/di';
import { WorkspaceModule } from 'agenttool/workspace';

/**
 * One model turn's calls, run by the contract's rules: both shell commands name the
 * resource `shell:session`, so they run in the model's order; the write runs alongside.
 */
export async function runBatch(): Promise<{ outputs: string[]; records: ToolRecord[] }> {
  const records: ToolRecord[] = [];
  const app = await ToolApp.create(WorkspaceModule, {
    recorder: (record) => void records.push(record),
  });
  try {
    const outcomes = await app.results([
      app.job('write_file', { path: 'hello.txt', content: 'hello\n' }),
      app.job('bash', { command: 'mkdir -p logs && cd logs' }),
      app.job('bash', { command: 'pwd' }),
    ]);
    const outputs = outcomes.map((o) =>
      o.error ? `Error: ${o.error.message}` : outputText(o.result.output),
    );
    return { outputs, records };
  } finally {
    await app.close(); // ends the shell
  }
}
