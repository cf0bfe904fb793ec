// Process two: polls a task by its id until it is done, showing its status as it goes.
import { rpc } from './rpc';

export async function pollReport(
  url: string,
  taskId: string,
  onStatus: (message: string) => void,
): Promise<string> {
  let last = '';
  for (;;) {
    const task = await rpc(url, 'tasks/get', { taskId });
    const status = String(task.statusMessage ?? task.status);
    if (status !== last) onStatus((last = status));
    if (task.status === 'completed') {
      const result = task.result as { content: { text: string }[]; isError?: boolean };
      return `${result.isError === true ? 'failed: ' : ''}${result.content[0]?.text ?? ''}`;
    }
    if (task.status === 'failed' || task.status === 'cancelled') {
      throw new Error(`the task ended ${task.status}: ${String(task.statusMessage)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, Number(task.pollIntervalMs ?? 1000)));
  }
}

// `node poll-task.js <url> <task id>` prints each status, then the result.
if (require.main === module) {
  void pollReport(process.argv[2]!, process.argv[3]!, (status) => console.log(status)).then(
    (result) => console.log(`result: ${result}`),
  );
}
