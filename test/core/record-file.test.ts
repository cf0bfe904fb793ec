import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createContext, RecordFile, recordable, recordOf } from 'agenttool';

describe('RecordFile, the embedded default recorder', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'agenttool-records-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('appends one JSON line per record, in order, with the data kept as written', async () => {
    const file = path.join(dir, 'records.jsonl');
    const records = new RecordFile(file);
    const raw = { recordNS: () => 'remote:x', rawJson: () => '{"z":1,"a":9007199254740993}' };
    const ctx = createContext({
      call: { id: 'call_1', args: '{}' },
      recorder: records.recorder(() => 'bash'),
    });
    await Promise.all([
      ctx.record(recordable('shell:process-group', { pgid: 42 })),
      ctx.record(raw),
      records.write(recordOf(recordable('demo:end', [1]))!, { call: 'call_2', moment: 'end' }),
    ]);
    expect(records.count).toBe(3);
    await records.close();
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed.map((p) => [p.call, p.tool, p.moment, p.ns])).toEqual([
      ['call_1', 'bash', 'during', 'shell:process-group'],
      ['call_1', 'bash', 'during', 'remote:x'],
      ['call_2', undefined, 'end', 'demo:end'],
    ]);
    expect(parsed[0]?.data).toEqual({ pgid: 42 });
    expect(lines[1]).toContain('"data":{"z":1,"a":9007199254740993}}');
  });

  it('reports a file it cannot write to the tool that wrote', async () => {
    const records = new RecordFile(path.join(dir, 'missing-folder', 'records.jsonl'));
    const ctx = createContext({ recorder: records.recorder() });
    await expect(ctx.record(recordable('a:b', 1))).rejects.toThrow(/ENOENT/);
    await records.close();
  });
});
