/**
 * The Go peer and our binding on both ends of the wire, in both protocol eras: the Go
 * host (mcpclient's mapping) and our `connectMcp` each run one script against our
 * server and against the Go server (mcpserver's mapping). Both consumers must read each
 * server alike, and each consumer must read both servers alike but for the differences
 * the README documents, each named and asserted here. See docs/go-interop.md for what
 * the peer is built from.
 */
import {
  definitionHash,
  definitionOf,
  errorResult,
  Executor,
  recordOf,
  type Tool,
} from 'agenttool';
import { type HttpListener, McpToolServer } from 'agenttool/mcp';
import {
  goStdioCommand,
  type GoServer,
  type HostCall,
  requirePeer,
  runGoHost,
  runPeer,
  startGoServer,
} from './go-peer';
import { FINAL_RECORD, ourFixtures, type OurFixtures, START_RECORD } from './ts-fixtures';
import { type CallView, goHostView, type HostView, ourClientView } from './views';

const EVERYTHING_ARGS = {
  str: 's',
  int: 1,
  uint: 2,
  float: 1.5,
  bool: true,
  level: 'low',
  when: '2026-01-02T03:04:05Z',
  list: [{ name: 'n', Tags: ['a'] }],
  nested: { name: 'm', Tags: [] },
};

const CALLS: HostCall[] = [
  { tool: 'upper', args: { text: 'abc' } },
  { tool: 'upper', args: {} },
  { tool: 'fails' },
  { tool: 'progress', progress: true },
  { tool: 'records' },
  { tool: 'asks', answer: { action: 'accept', content: { confirm: true } } },
  { tool: 'asks', answer: { action: 'decline' } },
  { tool: 'picture' },
  { tool: 'annotated' },
  { tool: 'everything', args: EVERYTHING_ARGS },
  { tool: 'everything', args: { ...EVERYTHING_ARGS, int: 'one' } },
  { tool: 'everything', args: { ...EVERYTHING_ARGS, level: 'mid' } },
];
const at = (tool: string, nth = 0): number =>
  CALLS.map((c, i) => [c.tool, i] as const).filter(([t]) => t === tool)[nth]![1];

const ERAS = [
  { protocol: '2025-11-25', mode: 'legacy' },
  { protocol: '2026-07-28', mode: 'modern' },
] as const;

type Side = 'ours' | 'go';
type Consumer = 'goHost' | 'ourClient';
const views = new Map<string, HostView>();
const rawOf = new Map<string, unknown[]>();
const key = (consumer: Consumer, server: Side, protocol: string): string =>
  `${consumer} ${server} ${protocol}`;
const view = (consumer: Consumer, server: Side, protocol: string): HostView => {
  const found = views.get(key(consumer, server, protocol));
  if (found === undefined) throw new Error(`no view ${key(consumer, server, protocol)}`);
  return found;
};

let fixtures: OurFixtures;
let ours: McpToolServer;
let listener: HttpListener;
let go: GoServer;
let goDefinitions: { name: string; hash: string; definition: unknown }[];

beforeAll(async () => {
  requirePeer();
  fixtures = ourFixtures();
  ours = new McpToolServer(fixtures.tools, {
    name: 'agenttool-ts',
    version: '0',
    recorder: fixtures.recorder,
  });
  listener = await ours.listenHttp();
  go = await startGoServer();
  goDefinitions = (await runPeer(['definitions', '--fixtures', goStdioCommand().args[2]!])).map(
    (l) => ({ name: String(l['name']), hash: String(l['hash']), definition: l['definition'] }),
  );
  for (const { protocol, mode } of ERAS) {
    for (const [side, url] of [
      ['ours', listener.url],
      ['go', go.url],
    ] as const) {
      views.set(
        key('goHost', side, protocol),
        goHostView(await runGoHost([url], protocol, CALLS), CALLS.length),
      );
      const mine = await ourClientView({ url }, mode, CALLS);
      views.set(key('ourClient', side, protocol), mine);
      rawOf.set(key('ourClient', side, protocol), mine.rawResults);
    }
  }
}, 180_000);

afterAll(async () => {
  await go?.stop();
  await ours?.close();
});

/** Our tool by name. */
function local(name: string): Tool {
  const tool = fixtures.tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no fixture ${name}`);
  return tool;
}

describe.each(ERAS)('protocol $protocol', ({ protocol, mode }) => {
  test('each side speaks the era it was asked for', () => {
    for (const side of ['ours', 'go'] as const) {
      expect(view('goHost', side, protocol).protocol).toBe(protocol);
      expect(view('ourClient', side, protocol).protocol).toBe(mode);
    }
  });

  test('the Go host lists every tool of ours with our definition and our hash', () => {
    const listed = view('goHost', 'ours', protocol).tools;
    expect(listed.map((t) => t.name)).toEqual(fixtures.tools.map((t) => t.name));
    for (const t of listed) {
      expect(t.definition).toEqual(JSON.parse(JSON.stringify(definitionOf(local(t.name)))));
      expect(t.hash).toBe(definitionHash(local(t.name)));
    }
  });

  test("our client lists the Go server's tools with the hashes the Go side computes", () => {
    const listed = view('ourClient', 'go', protocol).tools;
    // Difference "tools/list order": the Go SDK lists a server's tools sorted by name;
    // ours lists them in the order they were given (the Go host sees ours so, above).
    const byName = goDefinitions.map((t) => t.name).sort();
    expect(listed.map((t) => t.name)).toEqual(byName);
    expect(byName).not.toEqual(goDefinitions.map((t) => t.name));
    for (const t of listed) {
      const theirs = goDefinitions.find((d) => d.name === t.name)!;
      expect(t.hash).toBe(theirs.hash);
      expect(t.definition).toEqual(theirs.definition);
    }
    // The Go host reads the Go server's list the same way.
    expect(view('goHost', 'go', protocol).tools).toEqual(listed);
  });

  test("a decorated class and Go's reflected golden schema are one definition", () => {
    const goTools = view('goHost', 'go', protocol).tools;
    for (const name of ['everything', 'noop']) {
      expect(goTools.find((t) => t.name === name)?.hash).toBe(definitionHash(local(name)));
    }
  });

  test.each(['ours', 'go'] as const)(
    'both consumers read the %s server alike, call by call',
    (side) => {
      expect(view('ourClient', side, protocol).calls).toEqual(view('goHost', side, protocol).calls);
    },
  );

  test.each(['goHost', 'ourClient'] as const)(
    '%s reads both servers alike but for the documented differences',
    (consumer) => {
      const mine = view(consumer, 'ours', protocol).calls;
      const theirs = view(consumer, 'go', protocol).calls;
      const audio = 3; // the picture's fourth part, audio.wav
      const picture = at('picture');
      // Deviation "Audio files": we serve audio.wav as an audio block, which a client
      // names audio.wav; Go serves it as an embedded blob named by its URI.
      const ourParts = mine[picture]?.output as Record<string, unknown>[];
      const goParts = theirs[picture]?.output as Record<string, unknown>[];
      expect(ourParts[audio]).toEqual({
        type: 'input_file',
        filename: 'audio.wav',
        file_data: 'UklGRg==',
      });
      expect(goParts[audio]).toEqual({
        type: 'input_file',
        filename: 'file:///audio.wav',
        file_data: 'UklGRg==',
      });
      // The records differ by fixture (Go's holds an int64 past 2^53): checked below.
      const records = at('records');
      const without = (calls: CallView[]): CallView[] =>
        calls.map((c, i) => {
          if (i === records) {
            const { record: _, ...rest } = c;
            return rest;
          }
          if (i !== picture) return c;
          const parts = [...(c.output as unknown[])];
          parts.splice(audio, 1);
          return { ...c, output: parts };
        });
      expect(without(mine)).toEqual(without(theirs));
    },
  );

  test('a failure reads "Error: " once, validation in jsonschema-go\'s words', () => {
    for (const side of ['ours', 'go'] as const) {
      const calls = view('goHost', side, protocol).calls;
      expect(calls[at('fails')]?.error).toBe('Error: disk on fire');
      for (const i of [at('upper', 1), at('everything', 1), at('everything', 2)]) {
        const error = calls[i]?.error ?? '';
        expect(error).toMatch(/^Error: invalid arguments: validating root: /);
        expect(error.split('Error:')).toHaveLength(2);
      }
    }
  });

  test('records cross byte for byte, and the ones written during a call stay home', () => {
    const i = at('records');
    const ourRecord = recordOf(FINAL_RECORD);
    expect(view('goHost', 'ours', protocol).calls[i]?.record).toEqual({
      ns: ourRecord?.ns,
      data: ourRecord?.data,
    });
    // Go's json.Marshal bytes, escapes and an integer past 2^53 included, unchanged.
    const goRecord = view('ourClient', 'go', protocol).calls[i]?.record;
    expect(goRecord?.data).toBe(
      '{"z":2,"a":9007199254740993,"note":"\\u003cb\\u003e\\u0026","at":"end"}',
    );
    expect(view('goHost', 'go', protocol).calls[i]?.record).toEqual(goRecord);
    expect(fixtures.recorded).toContainEqual(recordOf(START_RECORD));
    expect(go.records().map((r) => r['data'])).toContain(
      '{"z":1,"a":9007199254740993,"note":"\\u003cb\\u003e\\u0026","at":"start"}',
    );
  });

  test('progress arrives in order with its numbers, from either server', () => {
    const expected = [
      { progress: 1, total: 0, message: 'one' },
      { progress: 1, total: 2, message: 'half way' },
      { progress: 2, total: 0, message: 'nearly' },
    ];
    for (const side of ['ours', 'go'] as const) {
      expect(view('goHost', side, protocol).calls[at('progress')]?.progress).toEqual(expected);
    }
  });

  test('a question is put to the host and its answer reaches the tool', () => {
    for (const side of ['ours', 'go'] as const) {
      const calls = view('goHost', side, protocol).calls;
      const accepted = calls[at('asks')];
      expect(accepted?.asked).toEqual([
        {
          message: 'deploy to production?',
          schema: {
            type: 'object',
            properties: { confirm: { type: 'boolean' } },
            required: ['confirm'],
          },
        },
      ]);
      expect(accepted?.output).toBe('accept {"confirm":true}');
      expect(calls[at('asks', 1)]?.output).toBe('decline ');
    }
  });

  test('deviation "Embedded files keep a media type": only ours carries mimeType', () => {
    const picture = at('picture');
    const block = (side: Side, i: number): Record<string, unknown> => {
      const raw = rawOf.get(key('ourClient', side, protocol))?.[picture] as {
        content: Record<string, unknown>[];
      };
      return raw.content[i]!;
    };
    expect(block('ours', 2)).toEqual({
      type: 'resource',
      resource: { uri: 'file:///notes.bin', blob: 'CQ==', mimeType: 'application/octet-stream' },
    });
    expect(block('go', 2)).toEqual({
      type: 'resource',
      resource: { uri: 'file:///notes.bin', blob: 'CQ==' },
    });
  });

  test('a programming fault in our tool reaches the Go host as the panic text, once', async () => {
    const lines = await runGoHost([listener.url], protocol, [{ tool: 'panics' }]);
    const [fault] = (
      await new Executor().results([{ tool: local('panics'), call: { id: 'c', args: '{}' } }])
    ).map((o) => o.error);
    expect(fault?.message).toMatch(/^tool "panics" panicked: /);
    expect(goHostView(lines, 1).calls[0]?.error).toBe(errorResult(fault).output);
  });
});

test('our client reads the Go server over stdio as over HTTP', async () => {
  const { command, args } = goStdioCommand();
  const overStdio = await ourClientView({ command, args, stderr: 'ignore' }, 'auto', CALLS);
  const overHttp = view(
    'ourClient',
    'go',
    overStdio.protocol === 'modern' ? '2026-07-28' : '2025-11-25',
  );
  expect(overStdio.tools).toEqual(overHttp.tools);
  expect(overStdio.calls).toEqual(overHttp.calls);
}, 60_000);
