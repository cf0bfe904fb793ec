/**
 * The MCP Inspector CLI (@modelcontextprotocol/inspector-cli 1.0.3) driving the sample
 * app (test/fixtures/mcp-server/sample-app.ts) served over stdio from dist/. The
 * Inspector is run from a subfolder because it reads `../package.json`.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = join(__dirname, '..', '..');
const inspector = join(
  root,
  'node_modules',
  '@modelcontextprotocol',
  'inspector-cli',
  'build',
  'index.js',
);
const server = join(root, 'dist', 'test', 'fixtures', 'mcp-server', 'serve-stdio.js');

interface CallResult {
  content: { type: string; text?: string; data?: string; mimeType?: string }[];
  isError?: boolean;
}

async function inspect(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [inspector, process.execPath, server, ...args], {
    cwd: join(root, 'test'),
  });
  return stdout;
}

async function call(tool: string, ...pairs: string[]): Promise<CallResult> {
  const args = ['--method', 'tools/call', '--tool-name', tool];
  if (pairs.length > 0) args.push('--tool-arg', ...pairs);
  return JSON.parse(await inspect(...args)) as CallResult;
}

beforeAll(async () => {
  await run(process.execPath, [join(root, 'scripts', 'conformance-fixtures.js'), 'build'], {
    cwd: root,
  });
}, 300_000);

test('tools/list shows the tools with their schemas and descriptions', async () => {
  const listed = JSON.parse(await inspect('--method', 'tools/list'));
  expect(listed.tools.map((t: { name: string }) => t.name)).toEqual(['upper', 'add', 'tiny_image']);
  const add = listed.tools[1];
  expect(add.description).toBe('Adds two integers');
  expect(add.inputSchema).toEqual({
    type: 'object',
    properties: {
      a: { type: 'integer', description: 'First addend' },
      b: { type: 'integer', description: 'Second addend' },
    },
    required: ['a', 'b'],
    additionalProperties: false,
  });
  expect(listed.tools[2].inputSchema).toEqual({ type: 'object', properties: {}, required: [] });
}, 60_000);

test('calls return the expected content', async () => {
  expect(await call('upper', 'text=abc')).toEqual({ content: [{ type: 'text', text: 'ABC' }] });
  expect(await call('add', 'a=2', 'b=3')).toEqual({
    content: [{ type: 'text', text: '{"sum":5}' }],
  });
  const image = await call('tiny_image');
  expect(image.content).toHaveLength(1);
  expect(image.content[0]).toMatchObject({ type: 'image', mimeType: 'image/png' });
  expect(image.content[0]?.data?.length).toBeGreaterThan(0);
}, 90_000);

test('a call missing a required argument is isError with invalid arguments and the property', async () => {
  const result = await call('add', 'a=1');
  expect(result).toEqual({
    isError: true,
    // mcpserver/interop_test.go wants "invalid arguments" and "required"; the whole text is
    // jsonschema-go's (mcpserver/mcp.go validates with it).
    content: [
      {
        type: 'text',
        text: 'invalid arguments: validating root: required: missing properties: ["b"]',
      },
    ],
  });
}, 60_000);
