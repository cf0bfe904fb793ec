import { type ContentPart, newTool } from 'agenttool';
import { contentOf, parseDataUrl, serveTools } from 'agenttool/mcp';
import { overMemory } from './helpers';

describe('contentOf (the Go binding ContentOf table)', () => {
  test.each<[string, string | ContentPart[], unknown[]]>([
    ['text output', 'hello', [{ type: 'text', text: 'hello' }]],
    ['empty text is one empty text block', '', [{ type: 'text', text: '' }]],
    [
      'text parts of each textual type',
      [
        { type: 'text', text: 'a' },
        { type: 'input_text', text: 'b' },
        { type: 'output_text', text: 'c' },
      ],
      [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
        { type: 'text', text: 'c' },
      ],
    ],
    [
      'an image data URL without a media type',
      [{ type: 'input_image', image_url: 'data:;base64,AQID' }],
      [{ type: 'image', data: 'AQID', mimeType: 'application/octet-stream' }],
    ],
    [
      'an image URL that is not a base64 data URL is a resource link named image',
      [{ type: 'input_image', image_url: 'data:image/png,raw' }],
      [{ type: 'resource_link', uri: 'data:image/png,raw', name: 'image' }],
    ],
    [
      'a file with a file URL and data keeps the URL',
      [{ type: 'input_file', filename: 'a.json', file_url: 'test://a', file_data: 'e30=' }],
      [
        {
          type: 'resource',
          resource: { uri: 'test://a', mimeType: 'application/json', blob: 'e30=' },
        },
      ],
    ],
    [
      'a file path loses its leading slash under file:///',
      [{ type: 'input_file', filename: '/tmp/x.txt', file_data: 'eA==' }],
      [
        {
          type: 'resource',
          resource: { uri: 'file:///tmp/x.txt', mimeType: 'text/plain', blob: 'eA==' },
        },
      ],
    ],
    [
      'bad base64 reads as text',
      [{ type: 'input_file', filename: 'x.bin', file_data: 'not base64!' }],
      [{ type: 'text', text: 'not base64!' }],
    ],
    [
      'a file with only a name is its name as text',
      [{ type: 'input_file', filename: 'x.bin' }],
      [{ type: 'text', text: 'x.bin' }],
    ],
    [
      'audio files are audio blocks',
      [{ type: 'input_file', filename: 'Audio.MP3', file_data: 'AAAA' }],
      [{ type: 'audio', data: 'AAAA', mimeType: 'audio/mpeg' }],
    ],
    [
      'other parts are their JSON as text',
      [{ type: 'summary_text', text: 's' }],
      [{ type: 'text', text: '{"type":"summary_text","text":"s"}' }],
    ],
  ])('%s', (_name, output, expected) => {
    expect(contentOf(output)).toEqual(expected);
  });
});

test('an embedded file: uri and blob as the Go binding serves them, and a media type', () => {
  // The picture fixture of mcpserver/mcp_test.go (Filename "notes.bin", FileData "CQ==")
  // served by mcpserver/mcp.go fileContent is {"uri":"file:///notes.bin","blob":"CQ=="};
  // the mimeType is kept because modelcontextprotocol/conformance (scenario
  // tools-call-embedded-resource) fails a resource without one.
  const content = contentOf([{ type: 'input_file', filename: 'notes.bin', file_data: 'CQ==' }]);
  expect(JSON.stringify(content)).toBe(
    '[{"type":"resource","resource":{"uri":"file:///notes.bin","mimeType":"application/octet-stream","blob":"CQ=="}}]',
  );
});

test.each<[string, unknown]>([
  ['data:image/png;base64,AQID', { mediaType: 'image/png', data: 'AQID' }],
  // mcpserver/mcp.go parseDataURL keeps what precedes ";base64", parameters included.
  ['data:image/png;charset=x;base64,AQID', { mediaType: 'image/png;charset=x', data: 'AQID' }],
  ['data:;base64,', { mediaType: 'application/octet-stream', data: '' }],
  ['data:image/png;base64,AQI', undefined],
  ['https://example.com/a.png', undefined],
])('parseDataUrl(%s)', (url, expected) => {
  expect(parseDataUrl(url)).toEqual(expected);
});

describe("base64 wrapped across lines, which Go's base64.StdEncoding reads", () => {
  // As `base64`(1) or MIME write it: 76 characters a line.
  const bytes = Buffer.from('x'.repeat(120));
  const data = bytes.toString('base64');
  const wrapped = data.replace(/.{76}/g, '$&\n');
  const crlf = data.replace(/.{76}/g, '$&\r\n');

  test.each([
    ['\\n', wrapped],
    ['\\r\\n', crlf],
  ])('an image data URL wrapped with %s is an image block of the data', (_breaks, body) => {
    expect(
      contentOf([{ type: 'input_image', image_url: `data:image/png;base64,${body}` }]),
    ).toEqual([{ type: 'image', data, mimeType: 'image/png' }]);
    expect(parseDataUrl(`data:image/png;base64,${body}`)).toEqual({ mediaType: 'image/png', data });
  });

  test('a wrapped file is an embedded resource, an audio file an audio block', () => {
    expect(
      contentOf([
        { type: 'input_file', filename: 'a.pdf', file_data: wrapped },
        { type: 'input_file', filename: 'a.wav', file_data: crlf },
      ]),
    ).toEqual([
      {
        type: 'resource',
        resource: { uri: 'file:///a.pdf', mimeType: 'application/pdf', blob: data },
      },
      { type: 'audio', data, mimeType: 'audio/wav' },
    ]);
  });

  test('what is still not base64 once the breaks are gone stays text', () => {
    const broken = `${wrapped.slice(0, -1)}\n`;
    expect(contentOf([{ type: 'input_file', filename: 'a.pdf', file_data: broken }])).toEqual([
      { type: 'text', text: broken },
    ]);
  });
});

describe("a part missing a string field is served as Go's typed parts serve it: the field empty", () => {
  test.each<[string, unknown[], unknown[]]>([
    [
      'a text part without text is an empty text block',
      [{ type: 'input_text' }, { type: 'text' }, { type: 'output_text' }],
      [
        { type: 'text', text: '' },
        { type: 'text', text: '' },
        { type: 'text', text: '' },
      ],
    ],
    [
      'an image without image_url is a resource link to ""',
      [{ type: 'input_image', file_id: 'file_123' }],
      [{ type: 'resource_link', uri: '', name: 'image' }],
    ],
    [
      'a file with nothing is an empty text',
      [{ type: 'input_file' }],
      [{ type: 'text', text: '' }],
    ],
  ])('%s, and the client takes the result', async (_name, parts, expected) => {
    const server = serveTools([
      newTool({
        name: 'parts',
        description: 'answers with parts built without their types',
        execute: () => ({ output: parts as ContentPart[] }),
      }),
    ]);
    const connected = await overMemory(server);
    try {
      const result = await connected.client.callTool({ name: 'parts', arguments: {} });
      expect(result.isError).toBeUndefined();
      expect(result.content).toEqual(expected);
    } finally {
      await connected.close();
      await server.close();
    }
  });

  test('a field that is not a string reads as its JSON, not lost', () => {
    expect(contentOf([{ type: 'input_text', text: 5 } as unknown as ContentPart])).toEqual([
      { type: 'text', text: '5' },
    ]);
  });
});
