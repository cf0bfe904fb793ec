import {
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { NO_ARGS_SCHEMA, schemaToJson } from 'agenttool';
import { RECORD_META_KEY, serveTools } from 'agenttool/mcp';
import { type Connect, firstText, overHttp, overMemory } from './helpers';
import { mappingTools } from './tools';

describe.each<[string, Connect]>([
  ['in-memory', overMemory],
  ['Streamable HTTP', overHttp],
])('round trip through the SDK client over %s', (_name, connect) => {
  const reported: { message: string; error: unknown }[] = [];
  const server = serveTools(mappingTools(), {
    name: 'round-trip',
    version: '9.9.9',
    onError: (message, error) => reported.push({ message, error }),
  });
  afterAll(() => server.close());

  async function withClient<T>(
    fn: (client: Awaited<ReturnType<Connect>>['client']) => Promise<T>,
    options?: Parameters<Connect>[1],
  ): Promise<T> {
    const connected = await connect(server, options);
    try {
      return await fn(connected.client);
    } finally {
      await connected.close();
    }
  }

  test('tools/list serves each definition as generated', async () => {
    await withClient(async (client) => {
      expect(client.getServerVersion()).toEqual({ name: 'round-trip', version: '9.9.9' });
      expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(server.tools.map((t) => t.name));
      const upper = tools.find((t) => t.name === 'upper');
      expect(upper).toEqual({
        name: 'upper',
        title: 'Upper',
        description: 'Upper-cases text',
        inputSchema: server.tools[0]?.parameters,
        annotations: {
          title: 'Upper',
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: false,
          openWorldHint: false,
        },
      });
      const bare = tools.find((t) => t.name === 'bare');
      expect(bare).toEqual({
        name: 'bare',
        description: 'Takes nothing',
        inputSchema: schemaToJson(NO_ARGS_SCHEMA),
      });
      expect(JSON.stringify(bare?.inputSchema)).toBe(
        '{"type":"object","properties":{},"required":[]}',
      );
      expect(tools.find((t) => t.name === 'stats')?.outputSchema).toEqual({
        type: 'object',
        properties: { n: { type: 'integer' } },
        required: ['n'],
      });
    });
  });

  test('a call returns the tool text; the call id is mcp_<n> and args are the JSON sent', async () => {
    await withClient(async (client) => {
      const upper = await client.callTool({ name: 'upper', arguments: { text: 'abc' } });
      expect(upper).toEqual({ content: [{ type: 'text', text: 'ABC' }] });
      const bare = await client.callTool({ name: 'bare' });
      expect(firstText(bare)).toMatch(/^id=mcp_\d+ args=\{\}$/);
    });
  });

  test('failures are isError results with the message once and no Error: prefix', async () => {
    await withClient(async (client) => {
      const invalid = await client.callTool({ name: 'upper', arguments: { text: 1 } });
      expect(invalid).toEqual({
        isError: true,
        content: [
          {
            type: 'text',
            text: 'invalid arguments: validating root: validating /properties/text: type: 1 has type "integer", want "string"',
          },
        ],
      });
      const missing = await client.callTool({ name: 'upper', arguments: {} });
      expect(firstText(missing)).toBe(
        'invalid arguments: validating root: required: missing properties: ["text"]',
      );
      const unknown = await client.callTool({ name: 'nope', arguments: {} });
      expect(unknown).toEqual({
        isError: true,
        content: [{ type: 'text', text: 'unknown tool "nope"' }],
      });
      const fails = await client.callTool({ name: 'fails' });
      expect(fails).toEqual({ isError: true, content: [{ type: 'text', text: 'disk on fire' }] });
    });
  });

  test('a panic-equivalent is one line to the client; its stack goes to the reporter only', async () => {
    reported.length = 0;
    await withClient(async (client) => {
      const result = await client.callTool({ name: 'panics' });
      const text = firstText(result);
      expect(result.isError).toBe(true);
      expect(text).toMatch(
        /^tool "panics" panicked: TypeError: Cannot read properties of undefined/,
      );
      expect(text).not.toContain('\n');
      expect(text).not.toContain('    at ');
    });
    expect(reported).toHaveLength(1);
    expect((reported[0]?.error as Error).stack).toContain('    at ');
  });

  test('content parts map to text, image, embedded resource, audio and resource links', async () => {
    await withClient(async (client) => {
      const result = await client.callTool({ name: 'picture' });
      expect(result.content).toEqual([
        { type: 'text', text: 'caption' },
        { type: 'image', data: 'AQID', mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'file:///notes.bin',
            mimeType: 'application/octet-stream',
            blob: 'CQ==',
          },
        },
        { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
        { type: 'resource_link', uri: 'https://example.com/r.pdf', name: 'report.pdf' },
        { type: 'resource_link', uri: 'https://example.com/cat.png', name: 'image' },
        { type: 'text', text: '{"type":"refusal","refusal":"no"}' },
      ]);
    });
  });

  test('an object output of a tool that declares an output schema is structured content', async () => {
    await withClient(async (client) => {
      const result = await client.callTool({ name: 'stats' });
      expect(result.structuredContent).toEqual({ n: 3 });
      expect(result.content).toEqual([{ type: 'text', text: '{"n":3}' }]);
    });
  });

  test('records travel under the record _meta key on success and error results', async () => {
    await withClient(async (client) => {
      const ok = await client.callTool({ name: 'recorded' });
      expect(ok._meta).toEqual({
        [RECORD_META_KEY]: {
          ns: 'shell:process-group',
          data: '{"z":1,"a":"9007199254740993"}',
        },
      });
      const failed = await client.callTool({ name: 'fails_with_record' });
      expect(failed.isError).toBe(true);
      expect(failed._meta).toEqual({
        [RECORD_META_KEY]: { ns: 'test:failure', data: '{"why":"gone"}' },
      });
      const bad = await client.callTool({ name: 'bad_record' });
      expect(bad.isError).toBeUndefined();
      expect(bad._meta).toEqual({
        [RECORD_META_KEY]: { error: 'agenttool: record Object: empty namespace' },
      });
      const none = await client.callTool({ name: 'upper', arguments: { text: 'x' } });
      expect(none._meta).toBeUndefined();
    });
  });

  test('progress updates become notifications/progress when the request has a token', async () => {
    await withClient(async (client) => {
      const updates: Progress[] = [];
      const result = await client.callTool({ name: 'progress' }, undefined, {
        onprogress: (p) => updates.push(p),
      });
      expect(firstText(result)).toBe('done');
      expect(updates).toEqual([
        { progress: 1, message: 'one' },
        { progress: 1, total: 2, message: 'half way' },
        { progress: 2, message: 'nearly' },
      ]);
    });
  });

  test('with the elicitation capability, questions reach the client and answers come back', async () => {
    const asked: unknown[] = [];
    await withClient(
      async (client) => {
        client.setRequestHandler(ElicitRequestSchema, (request) => {
          asked.push(request.params);
          return request.params.mode === 'url'
            ? { action: 'decline' }
            : { action: 'accept', content: { confirm: true } };
        });
        const form = await client.callTool({ name: 'ask', arguments: {} });
        expect(JSON.parse(firstText(form))).toEqual({
          action: 'accept',
          content: { confirm: true },
        });
        const url = await client.callTool({
          name: 'ask',
          arguments: { url: 'https://example.com/login' },
        });
        expect(JSON.parse(firstText(url))).toEqual({ action: 'decline' });
      },
      { capabilities: { elicitation: { form: {}, url: {} } } },
    );
    expect(asked[0]).toEqual({
      mode: 'form',
      message: 'Confirm?',
      requestedSchema: {
        type: 'object',
        properties: { confirm: { type: 'boolean' } },
        required: ['confirm'],
      },
    });
    expect(asked[1]).toMatchObject({
      mode: 'url',
      message: 'Sign in',
      url: 'https://example.com/login',
      elicitationId: expect.any(String),
    });
  });

  test('an accepted form that does not match its schema fails the call with the reason', async () => {
    await withClient(
      async (client) => {
        client.setRequestHandler(ElicitRequestSchema, () => ({
          action: 'accept',
          content: { confirm: 'yes' },
        }));
        const result = await client.callTool({ name: 'ask', arguments: {} });
        expect(result.isError).toBe(true);
        expect(firstText(result)).toBe(
          'mcpserver: elicitation answer: validating root: validating /properties/confirm: type: yes has type "string", want "boolean"',
        );
      },
      { capabilities: { elicitation: {} } },
    );
  });

  test('without the elicitation capability, questions are answered cancel', async () => {
    await withClient(async (client) => {
      const result = await client.callTool({ name: 'ask', arguments: {} });
      expect(JSON.parse(firstText(result))).toEqual({ action: 'cancel' });
    });
  });

  test('a form-only client is not asked a URL question: cancel', async () => {
    await withClient(
      async (client) => {
        client.setRequestHandler(ElicitRequestSchema, () => {
          throw new Error('must not be asked');
        });
        const result = await client.callTool({
          name: 'ask',
          arguments: { url: 'https://example.com/login' },
        });
        expect(JSON.parse(firstText(result))).toEqual({ action: 'cancel' });
      },
      { capabilities: { elicitation: { form: {} } } },
    );
  });

  test('log lines reach the client at the level it set', async () => {
    await withClient(async (client) => {
      const lines: unknown[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        lines.push(n.params);
      });
      await client.callTool({ name: 'logs' });
      expect(lines).toEqual([
        { level: 'debug', data: 'a debug line' },
        { level: 'warning', data: { text: 'a warning' } },
      ]);
      lines.length = 0;
      await client.setLoggingLevel('info');
      await client.callTool({ name: 'logs' });
      expect(lines).toEqual([{ level: 'warning', data: { text: 'a warning' } }]);
    });
  });
});
