// Process one: calls the tool and prints the id of the task the server answers with.
import { rpc } from './rpc';

export async function startReport(url: string, sections: number): Promise<string> {
  const created = await rpc(url, 'tools/call', {
    name: 'write_report',
    arguments: { sections },
  });
  if (created.resultType !== 'task') throw new Error('the server answered without a task');
  return String(created.taskId);
}

// `node start-task.js <url> <sections>` prints the task's id and exits.
if (require.main === module) {
  void startReport(process.argv[2]!, Number(process.argv[3] ?? 5)).then((id) => console.log(id));
}
