import { mkdtemp, readFile, rm } from 'node:fs/promises';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { type AddressInfo } from 'node:net';
import * as path from 'node:path';
import { createContext, recordOf, toolFromInstance } from 'agenttool';
import { ToolApp } from 'agenttool/di';
import { connectMcp, serveTools } from 'agenttool/mcp';
import { serveNotes } from '../../samples/readme/auth';
import { runBatch } from '../../samples/readme/batch';
import { importAsHost } from '../../samples/readme/context';
import { GreetModule, serveGreeter } from '../../samples/readme/greet';
import { mountTools } from '../../samples/readme/mount';
import { greetRemotely } from '../../samples/readme/remote';
import { readWeather } from '../../samples/readme/output';
import { Chart, CountWords, ExportCsv, Finish } from '../../samples/readme/results';
import { DEFAULT_WORKSPACE_FOLDER } from 'agenttool/workspace';
import { startJwtAuthorizationServer } from '../fixtures/oauth/jwt-authorization-server';

const ROOT = path.join(__dirname, '../..');

// Every code block in the README that is preceded by `<!-- file: <path> -->` must be
// that file, byte for byte; the files are compiled by the build and run below.
describe('the README', () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/<!-- file: (\S+) -->\n+```ts\n([\s\S]*?)```/g)];

  it('shows the example files', () => {
    expect(blocks.map((b) => b[1])).toEqual(
      expect.arrayContaining([
        'samples/readme/greet.ts',
        'samples/readme/batch.ts',
        'samples/readme/remote.ts',
        'samples/readme/context.ts',
        'samples/readme/results.ts',
        'samples/readme/output.ts',
        'samples/readme/auth.ts',
        'samples/readme/mount-express.ts',
        'samples/readme/mount-fastify.ts',
        'samples/readme/mount-hono.ts',
        'samples/readme/nest.ts',
        'samples/readme/ai-sdk.ts',
        'samples/readme/openai-agents.ts',
      ]),
    );
  });

  it.each(blocks.map((b) => [b[1]!, b[2]!]))('shows %s as it is', async (file, shown) => {
    expect(shown).toBe(await readFile(path.join(ROOT, file), 'utf8'));
  });

  it('lists every member of the call context in the Writing a tool table', () => {
    const table = /\| member of `ctx: ToolContext` [^\n]*\n((?:\|[^\n]*\n)+)/.exec(readme)?.[1];
    const listed = (table ?? '')
      .split('\n')
      .slice(1)
      .flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`(\w+)/g)].map((m) => m[1]!));
    const context = createContext();
    const members = [
      ...Object.keys(context),
      ...Object.getOwnPropertyNames(Object.getPrototypeOf(context)),
    ].filter((name) => name !== 'constructor');
    expect(listed.sort()).toEqual(members.sort());
  });
});

describe('the default workspace root', () => {
  it('is told by the README and the workspace guide as the code has it', () => {
    // The module's own default, and the one `npm start` sets when WORKSPACE_ROOT is unset.
    expect(DEFAULT_WORKSPACE_FOLDER).toBe('workspace');
    const start = fs.readFileSync(path.join(ROOT, 'scripts/start.js'), 'utf8');
    expect(start).toContain("process.env.WORKSPACE_ROOT = path.join(ROOT, '.tmp', 'workspace')");
    const text = (file: string) =>
      fs.readFileSync(path.join(ROOT, file), 'utf8').replace(/\s+/g, ' ');
    expect(text('docs/workspace.md')).toContain(
      'Unset, the root is `./workspace` under the working directory',
    );
    expect(text('README.md')).toMatch(/`npm start` .* on the folder `\.tmp\/workspace`/);
  });
});

describe('the README examples run', () => {
  let root: string;
  const saved = process.env.WORKSPACE_ROOT;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'agenttool-readme-'));
    process.env.WORKSPACE_ROOT = root;
  });

  afterAll(async () => {
    if (saved === undefined) delete process.env.WORKSPACE_ROOT;
    else process.env.WORKSPACE_ROOT = saved;
    await rm(root, { recursive: true, force: true });
  });

  it('serves the greeter over HTTP and greets through the client', async () => {
    const greeter = await serveGreeter();
    try {
      expect(await greetRemotely(greeter.url, 'Ada')).toBe('Hello, Ada!');
    } finally {
      await greeter.stop();
    }
  });

  it('mounts the greeter beside a route of its own, for clients of both eras', async () => {
    const app = await ToolApp.create(GreetModule);
    const tools = serveTools(app, { name: 'greeter' });
    const server = await mountTools(tools);
    try {
      const { port } = server.address() as AddressInfo;
      expect(await (await fetch(`http://127.0.0.1:${port}/health`)).text()).toBe('ok');
      for (const protocol of ['modern', 'legacy'] as const) {
        const remote = await connectMcp({
          transport: { url: `http://127.0.0.1:${port}/api/mcp` },
          protocol,
        });
        try {
          const call = { id: 'call_1', args: '{"name":"Ada"}' };
          const greet = remote.tools()[0]!;
          expect(remote.era).toBe(protocol);
          expect((await greet.execute(call, createContext({ call }))).output).toBe('Hello, Ada!');
        } finally {
          await remote.close();
        }
      }
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await tools.close();
      await app.close();
    }
  });

  it('runs the batch: the chained commands in order, the write alongside', async () => {
    const { outputs, records } = await runBatch();
    expect(outputs[0]).toContain('hello.txt');
    expect(outputs[2]).toContain(path.join(root, 'logs'));
    expect(await readFile(path.join(root, 'hello.txt'), 'utf8')).toBe('hello\n');
    expect(records.filter((r) => r.ns === 'shell:process-group')).toHaveLength(2);
  });
});

describe('the Authorization example runs', () => {
  it('lists and calls, for each caller, what its token and the guards allow', async () => {
    const issuer = await startJwtAuthorizationServer({});
    const notes = await serveNotes(issuer.issuer, issuer.jwksUrl);
    const as = async (sub: string, scope: string, claims: Record<string, unknown> = {}) => {
      const token = issuer.mint({ sub, scope, aud: notes.url, ...claims });
      return connectMcp({
        transport: { url: notes.url, headers: { Authorization: `Bearer ${token}` } },
      });
    };
    try {
      const ada = await as('ada', 'notes:read notes:write', { email_verified: true });
      const bob = await as('bob', 'notes:read notes:write');
      const eve = await as('eve', 'notes:read notes:write', { email_verified: true });
      try {
        expect(ada.tools().map((t) => t.name)).toEqual(['read_notes', 'add_note']);
        expect(bob.tools().map((t) => t.name)).toEqual(['read_notes']);
        expect(eve.tools().map((t) => t.name)).toEqual([]);
        const call = { id: 'call_1', args: '{"text":"buy milk"}' };
        const add = ada.tools()[1]!;
        expect((await add.execute(call, createContext({ call }))).output).toBe(
          'noted for ada: buy milk',
        );
        const read = bob.tools()[0]!;
        expect((await read.execute(call, createContext({ call }))).output).toBe('the notes of bob');
      } finally {
        await Promise.all([ada.close(), bob.close(), eve.close()]);
      }
    } finally {
      await notes.stop();
      await issuer.close();
    }
  });
});

describe('the Writing a tool examples run', () => {
  it('imports with every member of the context in use, asking first for a large import', async () => {
    const run = await importAsHost(120, true);
    expect(run.questions).toEqual(['Import 120 rows?']);
    expect(run.output).toBe('Imported 120 rows');
    expect(run.progress).toEqual([
      'Checking the table',
      '0 of 120 rows',
      '50 of 120 rows',
      '100 of 120 rows',
      'All rows written; indexing',
    ]);
    expect(run.records).toEqual([{ ns: 'import:rows', data: '{"rows":120,"session":""}' }]);
    // The batches log through currentContext(), reaching the host's sink like the tool's own.
    expect(run.log).toEqual([
      'info: call_1: 120 rows',
      'debug: batch of 50',
      'debug: batch of 50',
      'debug: batch of 20',
    ]);
  });

  it('does not ask for a small import, and imports nothing when the user says no', async () => {
    const small = await importAsHost(20, false);
    expect(small.questions).toEqual([]);
    expect(small.output).toBe('Imported 20 rows');
    const refused = await importAsHost(500, false);
    expect(refused.output).toBe('Not imported: the user said no');
    expect(refused.progress).toEqual([]);
    expect(refused.records).toEqual([]);
  });

  it('returns each kind of output', async () => {
    const run = (instance: object, args = '') =>
      toolFromInstance(instance).execute({ id: 'call_1', args }, createContext());
    expect(await run(new CountWords(), '{"text":"one two  three"}')).toEqual({
      output: '{"words":3}',
    });
    const chart = await run(new Chart(), '{"title":"Sales"}');
    expect(chart.output).toEqual([
      { type: 'input_text', text: 'Chart "Sales"' },
      { type: 'input_image', image_url: expect.stringMatching(/^data:image\/png;base64,iVBOR/) },
    ]);
    expect(recordOf(chart.details)).toEqual({
      ns: 'chart:drawn',
      data: '{"title":"Sales","points":1}',
    });
    expect((await run(new ExportCsv())).output).toEqual([
      { type: 'input_text', text: 'Exported 1 table' },
      {
        type: 'input_file',
        filename: 'tables.csv',
        file_data: Buffer.from('name,rows\norders,2\n').toString('base64'),
      },
    ]);
    expect(await run(new Finish())).toEqual({ output: 'Done', terminate: true });
  });
});

describe('the Output example runs', () => {
  it('serves the output schema and hands the structured results to the host', async () => {
    const schema = {
      type: 'object',
      properties: {
        celsius: { type: 'number', description: 'Degrees Celsius' },
        city: { type: 'string', description: 'The city it was read in' },
        sky: { type: 'string', description: 'The sky', enum: ['clear', 'cloudy', 'rain'] },
      },
      required: ['celsius', 'city', 'sky'],
    };
    expect(await readWeather('Oslo')).toEqual([
      {
        tool: 'weather',
        outputSchema: schema,
        // The output is the JSON itself: the client does not append it a second time.
        output: '{"celsius":21,"city":"Oslo","sky":"clear"}',
        structured: { celsius: 21, city: 'Oslo', sky: 'clear' },
      },
      {
        tool: 'forecast',
        outputSchema: schema,
        output: 'Rain in Oslo at 18 °C\n{"celsius":18,"city":"Oslo","sky":"rain"}',
        structured: { celsius: 18, city: 'Oslo', sky: 'rain' },
      },
    ]);
  });
});
