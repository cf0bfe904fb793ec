import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  RecordFile,
  canonicalDefinition,
  createContext,
  newTool,
  recordable,
  recordOf,
  text,
} from 'agenttool';

// Go: tool.go RecordOf writes json.Marshal(details); encoding/json escapes <, > and & as
// \u003c, \u003e, \u0026 and U+2028/U+2029 as \u2028/\u2029. The expected bytes are those
// of encoding/json encode_test.go TestHTMLEscape:
//   {"M":"<html>foo &\u2028 \u2029</html>"} → {"M":"\u003chtml\u003efoo \u0026\u2028 \u2029\u003c/html\u003e"}
const GO_ESCAPED = '{"M":"\\u003chtml\\u003efoo \\u0026\\u2028 \\u2029\\u003c/html\\u003e"}';

describe('record bytes are the bytes Go writes', () => {
  it('escapes <, >, & and U+2028/U+2029 as json.Marshal does', () => {
    const record = recordOf(recordable('demo:html', { M: '<html>foo &\u2028 \u2029</html>' }));
    expect(record).toEqual({ ns: 'demo:html', data: GO_ESCAPED });
    expect(JSON.parse(record!.data)).toEqual({ M: '<html>foo &\u2028 \u2029</html>' });
  });

  it('leaves everything else as JSON.stringify writes it, Go’s bytes too', () => {
    // json.Marshal writes "é" and "😀" raw, control characters as \n, \t, \u0001, and
    // neither escapes "/" nor DEL.
    const record = recordOf(recordable('demo:text', { s: 'é😀 a/b \x7f\n\t\x01' }));
    expect(record?.data).toBe('{"s":"é😀 a/b \x7f\\n\\t\\u0001"}');
  });

  it('writes a lone surrogate as U+FFFD, the character Go decodes it to', () => {
    // Go's decoder turns "\ud800" into U+FFFD (decode_test.go), which Marshal writes raw.
    const value = JSON.parse('{"s":"a\\ud800b","t":"\\\\ud800"}') as unknown;
    expect(recordOf(recordable('demo:lone', value))?.data).toBe('{"s":"a\ufffdb","t":"\\\\ud800"}');
  });

  it('compacts and escapes raw JSON text as Go marshals a MarshalJSON result', () => {
    // encode.go: a Marshaler's output goes through compact(..., escapeHTML): the spaces
    // between tokens go, <, > and & are escaped, key order and number spelling stay.
    const remote = {
      recordNS: () => 'remote:thing',
      rawJson: () => '{ "z" : 1.50,\n "a": [9007199254740993, "<b> & \\u003c"] }',
    };
    expect(recordOf(remote)?.data).toBe(
      '{"z":1.50,"a":[9007199254740993,"\\u003cb\\u003e \\u0026 \\u003c"]}',
    );
  });

  it('refuses raw text that is not JSON, as json.Marshal refuses such a MarshalJSON', () => {
    const broken = { recordNS: () => 'remote:bad', rawJson: () => '{"a":1' };
    expect(() => recordOf(broken)).toThrow(
      'agenttool: record remote:bad: json: error calling rawJson: unexpected end of JSON input',
    );
  });

  it('carries the same bytes to every consumer: a recorder and RecordFile', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'agenttool-record-bytes-'));
    try {
      const file = new RecordFile(path.join(dir, 'records.jsonl'));
      const seen: string[] = [];
      const ctx = createContext({
        call: { id: 'call_1', args: '{}' },
        recorder: async (record, c) => {
          seen.push(record.data);
          await file.recorder()(record, c);
        },
      });
      await ctx.record(recordable('demo:html', { M: '<html>foo &\u2028 \u2029</html>' }));
      await file.close();
      expect(seen).toEqual([GO_ESCAPED]);
      const line = (await readFile(path.join(dir, 'records.jsonl'), 'utf8')).trimEnd();
      expect(line.endsWith(`"data":${GO_ESCAPED}}`)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('leaves the definition hash alone: canonical JSON (RFC 8785) escapes none of them', () => {
    const tool = newTool({ name: 'h', description: '<a> & b\u2028', execute: () => text('') });
    expect(canonicalDefinition(tool)).toContain('"description":"<a> & b\u2028"');
  });
});
