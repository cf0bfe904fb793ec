/**
 * docs/telemetry.md: its code as it stands there, and the batch it draws, run: the
 * chain's waits and the slot's wait are events of the jobs, as the page reads them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { draw, traceBatch } from '../../samples/telemetry/waterfall';

const ROOT = path.join(__dirname, '../..');

describe('docs/telemetry.md', () => {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/telemetry.md'), 'utf8');
  const blocks = [...doc.matchAll(/<!-- file: (\S+) -->\n+```ts\n([\s\S]*?)```/g)];

  it('shows the example files as they are, and has no other TypeScript block', () => {
    expect(blocks.map((b) => b[1])).toEqual(['samples/telemetry/register.ts']);
    for (const [, file, code] of blocks) {
      expect(code).toBe(fs.readFileSync(path.join(ROOT, file!), 'utf8'));
    }
    expect(doc.match(/```ts\n/g)).toHaveLength(blocks.length);
  });

  it('draws the batch it describes: chained jobs wait on the chain, the fourth on a slot', async () => {
    const spans = await traceBatch();
    const picture = draw(spans);
    const rows = picture.split('\n').filter((line) => !line.startsWith(' '));
    expect(rows.map((row) => row.split('|')[0]!.trim())).toEqual([
      'agenttool.batch',
      'call_1 execute_tool run_command',
      'call_2 execute_tool read_file',
      'call_3 execute_tool run_command',
      'call_4 execute_tool read_file',
      'call_5 execute_tool run_command',
    ]);
    const waits = (id: string) =>
      spans
        .find((s) => s.attributes['gen_ai.tool.call.id'] === id)
        ?.events.filter((e) => e.name === 'waiting')
        .map((e) => [
          e.attributes?.['agenttool.wait.on'],
          e.attributes?.['agenttool.wait.after_call_id'],
        ]);
    expect(waits('call_1')).toEqual([]);
    expect(waits('call_2')).toEqual([]);
    expect(waits('call_3')).toEqual([['chain', 'call_1']]);
    expect(waits('call_4')).toEqual([['slot', undefined]]);
    expect(waits('call_5')).toEqual([['chain', 'call_3']]);
    // The page's picture is one such run: the same rows and events.
    const shown = /```text\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
    const labels = (text: string) => text.split('\n').map((line) => line.split('|')[0]!.trim());
    expect(labels(shown.trimEnd())).toEqual(labels(picture));
  });
});
