import { mkdtemp, readFile, rm } from 'node:fs/promises';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { type AddressInfo } from 'node:net';
import * as path from 'node:path';
import { createContext, toolFromInstance } from 'agenttool';
import { ToolApp } from 'agenttool/di';
import { connectMcp, serveTools } from 'agenttool/mcp';
import { PROTOCOL_ERAS, testClient } from 'agenttool/testing';
import { serveNotes } from '../../samples/docs/auth';
import { runBatch } from '../../samples/docs/batch';
import { ImportRows, importAsHost } from '../../samples/docs/context';
import { GreetModule } from '../../samples/readme/greet';
import { serveGreeter } from '../../samples/docs/serve-greeter';
import { mountTools } from '../../samples/docs/mount';
import { greetRemotely } from '../../samples/docs/remote';
import { readWeather } from '../../samples/docs/output';
import { Chart, CountWords, ExportCsv, Finish } from '../../samples/docs/results';
import { DEFAULT_WORKSPACE_FOLDER } from 'agenttool/workspace';
import { startJwtAuthorizationServer } from '../fixtures/oauth/jwt-authorization-server';

const ROOT = path.join(__dirname, '../..');

// The README's own code (its greeter) is checked with every page's by
// test/docs/samples.test.ts; the examples of the guides run below.
describe('the Writing a tool guide (docs/tools.md)', () => {
  const guide = fs.readFileSync(path.join(ROOT, 'docs/tools.md'), 'utf8');

  it('lists every member of the call context in its table', () => {
    const table = /\| member of `ctx: ToolContext` [^\n]*\n((?:\|[^\n]*\n)+)/.exec(guide)?.[1];
    expect(table).toBeDefined();
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

describe('the examples of the README and the guides run', () => {
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

  it('returns each kind of output to a host that calls the tool itself', async () => {
    // MCP carries no `terminate`: a host that runs the tool in process reads it.
    const call = { id: 'call_1', args: '' };
    expect(await toolFromInstance(new Finish()).execute(call, createContext())).toEqual({
      output: 'Done',
      terminate: true,
    });
  });
});

describe.each(PROTOCOL_ERAS)(
  'the Writing a tool examples, through agenttool/testing, %s era',
  (protocol) => {
    it('returns each kind of output, as parts and records over MCP', async () => {
      const client = await testClient(
        [new CountWords(), new Chart(), new ExportCsv(), new Finish()],
        {
          protocol,
        },
      );
      try {
        expect((await client.call('count_words', { text: 'one two  three' })).text).toBe(
          '{"words":3}',
        );
        const chart = await client.call('chart', { title: 'Sales' });
        expect(chart.parts).toEqual([
          { type: 'text', text: 'Chart "Sales"' },
          {
            type: 'input_image',
            image_url: expect.stringMatching(/^data:image\/png;base64,iVBOR/),
          },
        ]);
        // The details' record crosses under the record _meta key.
        expect(chart.records).toEqual([
          { ns: 'chart:drawn', data: '{"title":"Sales","points":1}' },
        ]);
        expect((await client.call('export_csv')).parts).toEqual([
          { type: 'text', text: 'Exported 1 table' },
          {
            type: 'input_file',
            filename: 'file:///tables.csv',
            file_data: Buffer.from('name,rows\norders,2\n').toString('base64'),
          },
        ]);
        expect((await client.call('finish')).text).toBe('Done');
      } finally {
        await client.close();
      }
    });

    it('does not ask for a small import, and imports nothing when the user says no', async () => {
      const client = await testClient(ImportRows, { protocol });
      try {
        const small = await client.call('import_rows', { rows: 20 });
        expect(small.questions).toEqual([]);
        expect(small.text).toBe('Imported 20 rows');
        const refused = await client.ask('import_rows', { rows: 500 }, [
          {
            question: 'Import 500 rows?',
            answer: { action: 'accept', content: { confirm: false } },
          },
        ]);
        expect(refused.text).toBe('Not imported: the user said no');
        expect(refused.progress).toEqual([]);
        expect(refused.records).toEqual([]);
      } finally {
        await client.close();
      }
    });

    it('reports progress, logs and records a confirmed import', async () => {
      const client = await testClient(ImportRows, { protocol });
      try {
        const done = await client.ask('import_rows', { rows: 120 }, [
          { action: 'accept', content: { confirm: true } },
        ]);
        expect(done.text).toBe('Imported 120 rows');
        expect(done.progress).toEqual([
          'Checking the table',
          '0 of 120 rows',
          '50 of 120 rows',
          '100 of 120 rows',
          'All rows written; indexing',
        ]);
        expect(done.records).toEqual([
          { ns: 'import:rows', data: expect.stringMatching(/^\{"rows":120,"session":"\w*"\}$/) },
        ]);
        expect(done.logs.map((line) => `${line.level}: ${String(line.data)}`)).toEqual([
          expect.stringMatching(/^info: \w+: 120 rows$/),
          'debug: batch of 50',
          'debug: batch of 50',
          'debug: batch of 20',
        ]);
      } finally {
        await client.close();
      }
    });

    it('stops a large import when the host interrupts it', async () => {
      const client = await testClient(ImportRows, { protocol });
      try {
        const running = client.start(
          'import_rows',
          { rows: 10_000_000 },
          { answers: [{ action: 'accept', content: { confirm: true } }] },
        );
        await running.started;
        running.cancel();
        expect((await running.outcome).cancelled).toBe(true);
        // The tool met the interrupt between two batches and threw it.
        const settled = await running.settled;
        expect(settled.sawAbort).toBe(true);
        expect(settled.output).toBeUndefined();
      } finally {
        await client.close();
      }
    });
  },
);

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
