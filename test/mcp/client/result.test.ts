import { AgentToolError, recordOf } from 'agenttool';
import { audioName, RemoteRecord, RemoteToolError, resultOf } from 'agenttool/mcp';
import { RECORD_META_KEY } from '../../../src/mcp/client/record';

const text = (t: string): unknown => ({ type: 'text', text: t });

describe('resultOf', () => {
  it('joins text-only results with newlines, structured content appended as JSON', () => {
    expect(resultOf({ content: [text('a'), text('b')] }).output).toBe('a\nb');
    expect(resultOf({ content: [text('summary')], structuredContent: { n: 1 } }).output).toBe(
      'summary\n{"n":1}',
    );
    expect(resultOf({ content: [] }).output).toBe('');
    expect(resultOf({}).output).toBe('');
  });

  it('reads null structured content as none', () => {
    const result = resultOf({ content: [text('hi')], structuredContent: null });
    expect(result.output).toBe('hi');
    expect('structured' in result).toBe(false);
  });

  it('reads embedded resources as the Go binding does: an empty blob is no blob, no resource is nothing', () => {
    const result = resultOf({
      content: [
        text('a'),
        { type: 'resource', resource: { uri: 'file:///empty.bin', blob: '' } },
        { type: 'resource', resource: { uri: 'file:///both', blob: '', text: 'shown' } },
        { type: 'resource', resource: { uri: 'file:///neither' } },
        { type: 'resource' },
        { type: 'resource', resource: null },
        text('b'),
      ],
    });
    expect(result.output).toBe('a\n\nshown\n\nb');
  });

  it('makes object structured content the structured result, its JSON shown once', () => {
    const served = resultOf({
      content: [text('{ "b": 2, "a": [1] }')],
      structuredContent: { a: [1], b: 2 },
    });
    expect(served.structured).toEqual({ a: [1], b: 2 });
    expect(served.output).toBe('{ "b": 2, "a": [1] }');
    const alone = resultOf({ content: [], structuredContent: { n: 1 } });
    expect(alone).toMatchObject({ output: '{"n":1}', structured: { n: 1 } });
    // A value that is not an object (the 2026-07-28 era allows one) is only text.
    const listed = resultOf({ content: [text('two')], structuredContent: [1, 2] });
    expect(listed.output).toBe('two\n[1,2]');
    expect('structured' in listed).toBe(false);
  });

  it('maps images, audio, blobs, embedded text, links and unknown blocks to parts', () => {
    const out = resultOf({
      content: [
        text('caption'),
        { type: 'image', data: 'AQID', mimeType: 'image/png' },
        { type: 'image', data: 'AQID' },
        { type: 'audio', data: 'UklG', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///notes.bin', blob: 'CQ==' } },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'inline' } },
        { type: 'resource_link', uri: 'file:///x', name: 'x' },
        { type: 'mystery', value: 1 },
      ],
    }).output;
    expect(out).toEqual([
      { type: 'text', text: 'caption' },
      { type: 'input_image', image_url: 'data:image/png;base64,AQID' },
      { type: 'input_image', image_url: 'data:application/octet-stream;base64,AQID' },
      { type: 'input_file', filename: 'audio.wav', file_data: 'UklG' },
      { type: 'input_file', filename: 'file:///notes.bin', file_data: 'CQ==' },
      { type: 'text', text: 'inline' },
      { type: 'text', text: 'resource: file:///x' },
      { type: 'text', text: '{"type":"mystery","value":1}' },
    ]);
  });

  it.each([
    ['', 'audio'],
    [undefined, 'audio'],
    ['audio/x-no-such-type', 'audio'],
    ['audio/wav', 'audio.wav'],
    ['audio/x-wav', 'audio.wav'],
    ['Audio/MPEG; codecs=x', 'audio.mp3'],
    ['audio/mp4', 'audio.m4a'],
    ['audio/ogg', 'audio.ogg'],
    ['audio/flac', 'audio.flac'],
    ['constructor', 'audio'],
    ['__proto__', 'audio'],
    ['toString', 'audio'],
  ])('names audio of type %p as %p', (mime, name) => {
    expect(audioName(mime)).toBe(name);
  });

  it('keeps the raw result as details', () => {
    const raw = { content: [text('x')], _meta: { other: 1 } };
    expect(resultOf(raw).details).toBe(raw);
  });

  it('throws the joined text for isError, "tool call failed" when empty, details kept', () => {
    const raw = { content: [text('disk'), text('on fire')], isError: true };
    let thrown: unknown;
    try {
      resultOf(raw);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RemoteToolError);
    // One error family: a host that handles AgentToolError by code handles this too.
    expect(thrown).toBeInstanceOf(AgentToolError);
    expect((thrown as RemoteToolError).code).toBe('TOOL_FAILED');
    expect((thrown as RemoteToolError).message).toBe('disk\non fire');
    expect((thrown as RemoteToolError).details).toBe(raw);
    expect(() => resultOf({ content: [], isError: true })).toThrow(
      new RemoteToolError('tool call failed', undefined),
    );
  });

  it('fails clearly on a missing result', () => {
    expect(() => resultOf(undefined)).toThrow(new AgentToolError('PROTOCOL', 'mcp: empty result'));
  });

  it('refuses a result nested too deep to write, as a protocol error rather than a crash', () => {
    // JSON.parse reads 200,000 levels; JSON.stringify overflows the stack some
    // thousands deep, and the call failed as the remote tool's crash (PANIC).
    const deep = (levels: number): unknown => JSON.parse('['.repeat(levels) + ']'.repeat(levels));
    const refusal = new AgentToolError(
      'PROTOCOL',
      'mcp: the result nests objects and arrays more than 1000 deep',
    );
    expect(() => resultOf({ content: [{ type: 'weird', a: deep(20_000) }] })).toThrow(refusal);
    expect(() => resultOf({ content: [], structuredContent: { a: deep(20_000) } })).toThrow(
      refusal,
    );
    expect(resultOf({ content: [], structuredContent: { a: deep(900) } }).structured).toBeDefined();
  });
});

describe('records under the agenttool _meta key', () => {
  const data = '{"z":1,"a":9007199254740993}';
  const withRecord = (
    entry: unknown,
    extra: Record<string, unknown> = {},
  ): Record<string, unknown> => ({
    content: [text('ok')],
    _meta: { [RECORD_META_KEY]: entry },
    ...extra,
  });

  it('uses the same key as the Go binding', () => {
    expect(RECORD_META_KEY).toBe('io.github.christopherdavenport.agenttool/record');
  });

  it('becomes a RemoteRecord whose data is kept byte for byte', () => {
    const raw = withRecord({ ns: 'shell:process-group', data });
    const details = resultOf(raw).details;
    expect(details).toBeInstanceOf(RemoteRecord);
    const record = details as RemoteRecord;
    expect(record.recordNS()).toBe('shell:process-group');
    expect(record.data).toBe(data);
    expect(record.rawJson()).toBe(data);
    expect(record.result).toBe(raw);
    // Core recordOf re-serialises through toJSON: the same namespace and meaning, keys in
    // order (an integer beyond 2^53 is rounded there; rawJson() is the byte-exact form).
    const viaCore = recordOf(record);
    expect(viaCore?.ns).toBe('shell:process-group');
    expect(viaCore?.data).toMatch(/^\{"z":1,"a":90071992547409\d\d\}$/);
  });

  it('is kept on an error result', () => {
    let thrown: unknown;
    try {
      resultOf(withRecord({ ns: 'x:y', data: '{"k":true}' }, { isError: true }));
    } catch (error) {
      thrown = error;
    }
    expect((thrown as RemoteToolError).details).toBeInstanceOf(RemoteRecord);
    expect(((thrown as RemoteToolError).details as RemoteRecord).data).toBe('{"k":true}');
  });

  it.each([
    ['not an object', 'nope'],
    ['no ns', { data: '{}' }],
    ['empty ns', { ns: '', data: '{}' }],
    ['data not a string', { ns: 'a:b', data: { k: 1 } }],
    ['data not JSON', { ns: 'a:b', data: '{' }],
    ['an error entry', { error: 'record a:b: bad' }],
  ])('leaves the raw result as details when the entry is malformed (%s)', (_, entry) => {
    const raw = withRecord(entry);
    expect(resultOf(raw).details).toBe(raw);
  });
});
