/**
 * docs/tasks.md's example, as it stands there: the server in this process, the task
 * started by one `node` process and polled to its result by another.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { type McpToolServer } from 'agenttool/mcp';
import { reportServer } from '../../samples/tasks/report-server';
import { ensureBuilt } from '../cli/helpers';

const ROOT = path.join(__dirname, '../..');
const run = promisify(execFile);

describe('docs/tasks.md', () => {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/tasks.md'), 'utf8');
  const blocks = [...doc.matchAll(/<!-- file: (\S+) -->\n+```ts\n([\s\S]*?)```/g)];

  it('shows the example files as they are', () => {
    expect(blocks.map((b) => b[1])).toEqual([
      'samples/docs/task-support.ts',
      'samples/tasks/report-server.ts',
      'samples/tasks/start-task.ts',
      'samples/tasks/poll-task.ts',
    ]);
    for (const [, file, code] of blocks) {
      expect(code).toBe(fs.readFileSync(path.join(ROOT, file!), 'utf8'));
    }
  });

  let server: McpToolServer | undefined;
  afterAll(() => server?.close());

  it('runs: one process starts the task, another polls it to its result', async () => {
    ensureBuilt();
    server = reportServer();
    const { url } = await server.listenHttp();
    const dist = path.join(ROOT, 'dist/samples/tasks');
    const started = await run(process.execPath, [path.join(dist, 'start-task.js'), url, '3']);
    const taskId = started.stdout.trim();
    expect(taskId).toMatch(/^[0-9a-f-]{36}$/);
    const polled = await run(process.execPath, [path.join(dist, 'poll-task.js'), url, taskId]);
    const lines = polled.stdout.trim().split('\n');
    expect(lines[lines.length - 1]).toBe('result: a report of 3 sections');
    expect(lines.some((line) => /^writing section [123]$/.test(line))).toBe(true);
  }, 60_000);
});
