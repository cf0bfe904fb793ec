/**
 * The MCP Inspector CLI (@modelcontextprotocol/inspector-cli 1.0.3, 2025 era, over
 * Streamable HTTP) against a NestJS app serving its @Tool providers through
 * agenttool/nest (test/fixtures/frameworks/nest-app.ts), on Express and on Fastify.
 * The Inspector is run from a subfolder because it reads `../package.json`.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  buildFrameworkFixtures,
  killFixtures,
  ROOT,
  type RunningFixture,
  startFixture,
} from '../support/frameworks';

const run = promisify(execFile);
const inspector = join(ROOT, 'node_modules/@modelcontextprotocol/inspector-cli/build/index.js');

interface CallResult {
  content: { type: string; text?: string }[];
  isError?: boolean;
}

beforeAll(() => buildFrameworkFixtures(), 300_000);
afterAll(() => killFixtures());

describe.each(['express', 'fastify'])('the Inspector CLI against a NestJS app on %s', (adapter) => {
  let app: RunningFixture;
  let url: string;

  const inspect = async (...args: string[]): Promise<unknown> => {
    const { stdout } = await run(process.execPath, [inspector, url, ...args], {
      cwd: join(ROOT, 'test'),
    });
    return JSON.parse(stdout) as unknown;
  };
  const call = (tool: string, ...rest: string[]) =>
    inspect('--method', 'tools/call', '--tool-name', tool, ...rest) as Promise<CallResult>;

  beforeAll(async () => {
    app = startFixture('nest-app', [adapter], process.execPath);
    url = (await app.waitForStdout(/LISTENING (\S+)\n/))[1]!;
  }, 60_000);

  afterAll(() => {
    app.process.kill('SIGKILL');
  });

  it('lists the tools with their schemas', async () => {
    const listed = (await inspect('--method', 'tools/list')) as {
      tools: { name: string; description: string; inputSchema: unknown }[];
    };
    expect(listed.tools.map((t) => t.name)).toEqual([
      'greet',
      'whoami',
      'count',
      'secret',
      'shout',
      'clock',
    ]);
    expect(listed.tools[0]).toMatchObject({
      description: 'Greet someone by name',
      inputSchema: {
        type: 'object',
        properties: { name: { type: 'string', description: 'Who to greet' } },
        required: ['name'],
      },
    });
  }, 60_000);

  it('calls a tool, and one behind a guard with and without the header it wants', async () => {
    expect(await call('greet', '--tool-arg', 'name=Ada')).toEqual({
      content: [{ type: 'text', text: 'Hello, Ada!' }],
    });
    expect(await call('secret')).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Forbidden resource' }],
    });
    expect(await call('secret', '--header', 'x-api-key: open-sesame')).toEqual({
      content: [{ type: 'text', text: 'the secret is 42' }],
    });
  }, 90_000);

  it('reports a missing argument as invalid arguments', async () => {
    expect(await call('greet')).toEqual({
      isError: true,
      content: [
        {
          type: 'text',
          text: 'invalid arguments: validating root: required: missing properties: ["name"]',
        },
      ],
    });
  }, 60_000);
});
