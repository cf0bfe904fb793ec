import * as path from 'node:path';
import { createContext, type Result, type Tool } from 'agenttool';
import { connectMcp, type RemoteTools } from 'agenttool/mcp';

// The reference server, pinned in devDependencies and run offline over stdio.
const EVERYTHING = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);
const transport = {
  command: process.execPath,
  args: [EVERYTHING, 'stdio'],
  stderr: 'ignore' as const,
};

let remote: RemoteTools;

beforeAll(async () => {
  remote = await connectMcp({ transport, prefix: 'every', elicitation: true });
}, 60_000);

afterAll(async () => {
  await remote?.close();
});

function tool(name: string): Tool {
  const found = remote.tools().find((t) => t.name === name);
  if (found === undefined)
    throw new Error(
      `no ${name} among ${remote
        .tools()
        .map((t) => t.name)
        .join(', ')}`,
    );
  return found;
}

function call(
  name: string,
  args: unknown,
  init: Parameters<typeof createContext>[0] = {},
): Promise<Result> {
  const c = init.call ?? { id: 'call_1', args: JSON.stringify(args) };
  return Promise.resolve(tool(name).execute(c, createContext({ ...init, call: c })));
}

describe('interop: @modelcontextprotocol/server-everything over stdio', () => {
  it('lists the tools under the prefix, with their schemas', () => {
    const names = remote.tools().map((t) => t.name);
    for (const name of [
      'every__echo',
      'every__get-tiny-image',
      'every__get-structured-content',
      'every__trigger-long-running-operation',
      'every__get-sum',
      'every__trigger-elicitation-request',
    ]) {
      expect(names).toContain(name);
    }
    expect(JSON.stringify(tool('every__echo').parameters)).toContain('"message"');
    expect(remote.serverInfo.name).toBe('mcp-servers/everything');
    expect(remote.instructions).not.toBe('');
  });

  it('echo returns its message', async () => {
    const result = await call('every__echo', { message: 'hello' });
    expect(result.output).toEqual(expect.stringContaining('hello'));
  });

  it('the tiny image arrives as one image part with a PNG data URL', async () => {
    const { output } = await call('every__get-tiny-image', {});
    expect(Array.isArray(output)).toBe(true);
    const images = (output as { type: string; image_url?: string }[]).filter(
      (p) => p.type === 'input_image',
    );
    expect(images).toHaveLength(1);
    expect(images[0]?.image_url).toMatch(/^data:image\/png;base64,./);
  });

  it('structured content reaches the output', async () => {
    const { output } = await call('every__get-structured-content', { location: 'Chicago' });
    expect(output).toEqual(expect.stringContaining('temperature'));
  });

  it('a bad get-sum call is an error', async () => {
    await expect(call('every__get-sum', { a: 'x' })).rejects.toThrow();
  });

  it('the long-running operation reports its progress steps before the result', async () => {
    const events: string[] = [];
    const onUpdate = (update: Result): void => {
      events.push(`progress ${JSON.stringify(update.details)}`);
    };
    const result = await call('every__trigger-long-running-operation', null, {
      call: { id: 'call_1', args: '{"duration":0.3,"steps":3}', onUpdate },
    });
    events.push('result');
    expect(events).toEqual([
      'progress {"progress":1,"total":3,"message":""}',
      'progress {"progress":2,"total":3,"message":""}',
      'progress {"progress":3,"total":3,"message":""}',
      'result',
    ]);
    expect(result.output).toEqual(expect.stringContaining('completed'));
  });

  it('the elicitation tool asks the call elicitor and gets the answer through', async () => {
    const asked: string[] = [];
    const result = await call(
      'every__trigger-elicitation-request',
      {},
      {
        elicitor: (question) => {
          asked.push(question.message);
          expect(question.schema?.['type']).toBe('object');
          return { action: 'accept', content: { name: 'Ada Lovelace', check: true } };
        },
      },
    );
    expect(asked).toHaveLength(1);
    expect(result.output).toEqual(expect.stringContaining('Name: Ada Lovelace'));
  });

  it('offers no elicitation tool to a client without the capability', async () => {
    const plain = await connectMcp({ transport, prefix: 'every' });
    try {
      const names = plain.tools().map((t) => t.name);
      expect(names).toContain('every__echo');
      expect(names).not.toContain('every__trigger-elicitation-request');
    } finally {
      await plain.close();
    }
  }, 60_000);
});
