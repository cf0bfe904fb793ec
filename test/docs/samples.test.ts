/**
 * The code on the pages: every `ts` block of README.md and of docs/*.md (docs/api is
 * TypeDoc's, generated from the TSDoc) is preceded by `<!-- file: samples/<path>.ts -->`
 * and is that file, byte for byte. The files are compiled by the build
 * (tsconfig.build.json includes samples/) and type-checked by `npm run check`; here, the
 * ones no other test runs are run. test/readme/readme.test.ts, test/frameworks and
 * test/readme/tasks-doc.test.ts run the others.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { createContext, newTool, taskSupportOf, text, toolFromInstance } from 'agenttool';
import { ToolApp } from 'agenttool/di';
import { connectMcp, type ConnectOptions, type McpToolServer, serveTools } from 'agenttool/mcp';
import { PROTOCOL_ERAS, testClient } from 'agenttool/testing';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { runNotesBatch } from '../../samples/docs/batch-events';
import { ScratchpadModule } from '../../samples/docs/handles';
import { lookUp } from '../../samples/docs/interceptors';
import { greetGuests, GuestbookModule } from '../../samples/docs/modules';
import { serveHandbook } from '../../samples/docs/prompts-and-resources';
import { ProjectShellModule } from '../../samples/docs/shell-module';
import { crawl, Migrate } from '../../samples/docs/task-support';
import { composedApp, readOnly, searchDocs } from '../../samples/docs/composition';
import { ensureBuilt, killChildren, startNode, stdioOpening, tempDir } from '../cli/helpers';

const ROOT = join(__dirname, '../..');
const run = promisify(execFile);

/** README.md and the guides, as paths from the root. */
function pages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs.sort()];
}

/** Each fenced block of a page: its language, code, and the comment just before it. */
function blocks(page: string): { language: string; code: string; marker?: string; line: number }[] {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const found: { language: string; code: string; marker?: string; line: number }[] = [];
  for (const match of text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)) {
    const before = text.slice(0, match.index).trimEnd();
    const marker = /<!-- file: (\S+) -->$/.exec(before)?.[1];
    found.push({
      language: match[1]!,
      code: match[2]!,
      ...(marker === undefined ? {} : { marker }),
      line: text.slice(0, match.index).split('\n').length,
    });
  }
  return found;
}

/** Every .ts file under a folder of samples/, as paths from the root. */
function sampleFiles(folder: string): string[] {
  const dir = join(ROOT, 'samples', folder);
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => relative(ROOT, join(dir, name)));
}

describe('the code on the pages', () => {
  const shown = pages().flatMap((page) =>
    blocks(page)
      .filter((block) => ['ts', 'typescript', 'js', 'javascript', 'tsx'].includes(block.language))
      .map((block) => ({ page, ...block })),
  );

  it('is in ts blocks, each preceded by the sample file it shows', () => {
    const unmarked = shown
      .filter((block) => block.language !== 'ts' || block.marker === undefined)
      .map((block) => `${block.page}:${block.line} (${block.language})`);
    expect(unmarked).toEqual([]);
    // The README's greeter and its test are shown there, and the guides show the rest.
    expect(shown.filter((b) => b.page === 'README.md').map((b) => b.marker)).toEqual([
      'samples/readme/greet.ts',
      'samples/readme/greet.test.ts',
    ]);
  });

  it.each(shown.map((block) => [`${block.page}:${block.line}`, block] as const))(
    '%s is its sample file, byte for byte',
    (_where, block) => {
      expect(block.marker).toMatch(/^samples\/[\w/.-]+\.ts$/);
      expect(block.code).toBe(readFileSync(join(ROOT, block.marker!), 'utf8'));
    },
  );

  it('leaves no sample of the pages unshown', () => {
    const markers = new Set(shown.map((block) => block.marker));
    // samples/tasks/rpc.ts is the helper that the task samples shown in docs/tasks.md import.
    const helpers = ['samples/tasks/rpc.ts'];
    const unshown = [...sampleFiles('readme'), ...sampleFiles('docs'), ...sampleFiles('tasks')]
      .filter((file) => !markers.has(file) && !helpers.includes(file))
      .sort();
    expect(unshown).toEqual([]);
  });

  it('is compiled by the build and type-checked with the tests', () => {
    const config = (file: string) =>
      JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as { include: string[] };
    expect(config('tsconfig.build.json').include).toContain('samples');
    expect(config('tsconfig.json').include).toContain('samples');
  });
});

describe('the samples no other test runs', () => {
  it('composition.md: a server over HTTP beside a local tool, and transforms in code', async () => {
    const remote = serveTools([
      newTool({ name: 'time', description: 'The time', execute: () => text('12:00') }),
    ]);
    const listener = await remote.listenHttp({ port: 0 });
    const app = await composedApp({ mcpServers: { clock: { url: listener.url } } });
    try {
      expect([...app.tools].map((t) => t.name)).toEqual(['note', 'clock__time']);
      const [noted, time] = await app.results([
        app.job('note', { text: 'hi' }),
        app.job('clock__time', {}),
      ]);
      expect(noted?.result?.output).toBe('noted "hi" (1 of 1 servers up)');
      expect(time?.result?.output).toBe('12:00');
    } finally {
      await app.close();
      await remote.close();
    }
    expect(searchDocs.parameters).toEqual({
      type: 'object',
      properties: { query: { type: 'string' } },
      required: ['query'],
    });
    const call = { id: 'c', args: '{"query":"tasks"}' };
    expect((await searchDocs.execute(call, createContext({ call }))).output).toBe(
      'searched {"index":"docs","query":"tasks"}',
    );
    expect(readOnly.map((t) => t.name)).toEqual(['search_docs']);
  });

  it('executor.md: the batch keeps its chain in order and reports each event', async () => {
    const { chains, events, notes } = await runNotesBatch();
    expect(chains).toEqual([[0, 2], [1]]);
    expect(notes).toEqual(['first', 'second']);
    // Each job's progress comes before its final event, and #2 after #0's final.
    const at = (event: string) => events.indexOf(event);
    expect(events).toEqual(
      expect.arrayContaining([
        'progress #0: adding "first"',
        'final #0: 1 lines',
        'final #1: chain: a word',
        'progress #2: adding "second"',
        'final #2: 2 lines',
      ]),
    );
    expect(events).toHaveLength(5);
    expect(at('progress #0: adding "first"')).toBeLessThan(at('final #0: 1 lines'));
    expect(at('final #0: 1 lines')).toBeLessThan(at('progress #2: adding "second"'));
    expect(at('progress #2: adding "second"')).toBeLessThan(at('final #2: 2 lines'));
  });

  it('modules-and-di.md: the guestbook app greets, records, and closes', async () => {
    const { outputs, records } = await greetGuests(['Ada', 'Bob']);
    expect(outputs).toEqual(['Hello, Ada! You are guest 1.', 'Hello, Bob! You are guest 2.']);
    expect(records.map((r) => [r.ns, r.data])).toEqual([
      ['guestbook:signed', '{"name":"Ada"}'],
      ['guestbook:signed', '{"name":"Bob"}'],
    ]);
  });

  it('interceptors.md: the cache answers a word again, the tool shapes its error, every call is logged', async () => {
    expect(await lookUp(['word', 'word', 'zzz'])).toEqual({
      outputs: ['word: a word', 'word: a word', 'no entry for zzz (after 2 calls)'],
      ran: 2,
      logged: ['define ok', 'define ok', 'define ok'],
    });
  });

  it('modules-and-di.md: a scratchpad kept by its pad_id where there is no session', async () => {
    const app = await ToolApp.create(ScratchpadModule);
    try {
      const note = app.tools.lookup('note');
      const call = async (args: object) => {
        const c = { id: 'c', args: JSON.stringify(args) };
        const session = { id: '', endsWithCall: true, onClose: () => undefined };
        return note!.execute(c, createContext({ call: c, session }));
      };
      const first = await call({ line: 'one' });
      const padId = first.structured?.['pad_id'];
      expect(typeof padId).toBe('string');
      expect((await call({ line: 'two', pad_id: padId })).output).toBe('one\ntwo');
      expect(note!.description).toContain('A scratchpad unused for 10 minutes is closed.');
    } finally {
      await app.close();
    }
  });

  it('sandbox.md: the shell module gives the bash and restart tools', async () => {
    const app = await ToolApp.create(ProjectShellModule);
    try {
      expect(app.tools.tools.map((tool) => tool.name).sort()).toEqual(['bash', 'restart']);
    } finally {
      await app.close();
    }
  });

  it("serving.md: an app that imports agenttool/code-cache first answers a call, agenttool's files compiled with the cache", async () => {
    ensureBuilt();
    const server = startNode([join(ROOT, 'dist/samples/docs/code-cache.js')], {
      env: { XDG_CACHE_HOME: tempDir(), NODE_DEBUG: 'agenttool' },
    });
    try {
      server.stdin.end(
        stdioOpening({
          jsonrpc: '2.0',
          id: 3,
          method: 'tools/call',
          params: { name: 'echo', arguments: { text: 'cached' } },
        }),
      );
      const ran = await server.done;
      const answers = ran.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as object);
      expect(answers).toContainEqual({
        jsonrpc: '2.0',
        id: 3,
        result: { content: [{ type: 'text', text: 'cached' }] },
      });
      // The first start in this cache folder: compiled here, without one, then made.
      expect(ran.stderr).toMatch(/agenttool: code cache none for \S+\/dist\/pkg\/mcp\.js\n/);
      expect(ran.stderr).toMatch(/agenttool: code cache written for /);
    } finally {
      killChildren();
    }
  }, 60_000);

  it('testing.md: the node --test file passes, in both eras', async () => {
    ensureBuilt();
    const ran = await run(
      process.execPath,
      ['--test', '--test-reporter=tap', join(ROOT, 'dist/samples/docs/testing.js')],
      { cwd: ROOT },
    ).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`node --test failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
    });
    expect(ran.stdout).toMatch(/^# pass 6$/m);
    expect(ran.stdout).toMatch(/^# fail 0$/m);
    // ensureBuilt builds first when src/ changed since the last build.
  }, 180_000);

  it('tasks.md: each tool declares how its calls run as tasks', async () => {
    const migrate = toolFromInstance(new Migrate());
    expect(taskSupportOf(migrate)).toEqual({ mode: 'required', questionsFirst: false });
    expect(taskSupportOf(crawl)).toEqual({ mode: 'optional', questionsFirst: false });
    const call = { id: 'call_1', args: '{"version":3}' };
    expect((await migrate.execute(call, createContext({ call }))).output).toBe(
      'migrated to version 3',
    );
  });
});

describe.each(PROTOCOL_ERAS)('modules-and-di.md, through agenttool/testing, %s era', (protocol) => {
  it("greets and records; another client's guestbook is its own", async () => {
    const app = await ToolApp.create(GuestbookModule);
    const ada = await testClient(app, { protocol });
    const bob = await testClient(app, { protocol });
    try {
      const first = await ada.call('greet', { name: 'Ada' });
      expect(first.text).toBe('Hello, Ada! You are guest 1.');
      expect(first.records).toEqual([{ ns: 'guestbook:signed', data: '{"name":"Ada"}' }]);
      expect((await ada.call('greet', { name: 'Eve' })).text).toBe('Hello, Eve! You are guest 2.');
      // A second client is another session: it sees none of the first one's guests.
      expect((await bob.call('greet', { name: 'Bob' })).text).toBe('Hello, Bob! You are guest 1.');
    } finally {
      await ada.close();
      await bob.close();
      await app.close();
    }
  });

  it('keeps a scratchpad per client, and says how to keep it where there is no session', async () => {
    const app = await ToolApp.create(ScratchpadModule);
    const first = await testClient(app, { protocol });
    const second = await testClient(app, { protocol });
    try {
      expect((await first.call('note', { line: 'one' })).text).toBe('one');
      expect((await first.call('note', { line: 'two' })).text).toBe('one\ntwo');
      expect((await second.call('note', { line: 'three' })).text).toBe('three');
      const [note] = await first.list();
      expect(note?.description).toContain('A scratchpad unused for 10 minutes is closed.');
      expect(Object.keys(note?.parameters['properties'] ?? {})).toEqual(['line', 'pad_id']);
    } finally {
      await first.close();
      await second.close();
      await app.close();
    }
  });
});

/** Our client on a handbook server in memory: 2025 over a transport pair, 2026-07-28 through its fetch face. */
async function connectHandbook(
  era: 'legacy' | 'modern',
  server: McpToolServer,
  options: Omit<ConnectOptions, 'transport' | 'protocol'> = {},
) {
  if (era === 'legacy') {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    return connectMcp({ ...options, transport: clientSide, protocol: 'legacy' });
  }
  const handler = server.handler();
  return connectMcp({
    ...options,
    transport: {
      url: 'http://localhost/mcp',
      fetch: (url, init) => handler.fetch(new Request(url, init)),
    },
    protocol: 'modern',
  });
}

/** What a request refused by the server carried: the SDK's ProtocolError, as the cause. */
async function refusal(promise: Promise<unknown>): Promise<{ code: unknown; data: unknown }> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(Error);
  const cause = (error as Error).cause as { code?: unknown; data?: unknown } | undefined;
  return { code: cause?.code, data: cause?.data };
}

describe.each(['legacy', 'modern'] as const)(
  'prompts-and-resources.md: the handbook served, %s era',
  (era) => {
    let handbook: Awaited<ReturnType<typeof serveHandbook>>;
    beforeEach(async () => {
      handbook = await serveHandbook();
    });
    afterEach(() => handbook.stop());

    it('lists its prompts, resources and template, the scoped pager left out', async () => {
      const remote = await connectHandbook(era, handbook.server);
      try {
        expect(await remote.listPrompts()).toEqual([
          {
            name: 'triage',
            title: 'Triage an incident',
            description: 'Triage an incident with its evidence and the runbook',
            arguments: [
              { name: 'incident', description: 'The incident id', required: true },
              { name: 'severity', description: 'How bad it is', required: false },
            ],
          },
          { name: 'handover', description: 'Write the on-call handover' },
        ]);
        expect((await remote.listResources()).map((r) => [r.uri, r.mimeType])).toEqual([
          ['handbook://runbook', 'text/markdown'],
          ['handbook://oncall.png', 'image/png'],
          ['incidents://inc-1', 'application/json'],
          ['incidents://inc-2', 'application/json'],
        ]);
        expect(await remote.listResourceTemplates()).toEqual([
          { uriTemplate: 'incidents://{id}', name: 'incident', mimeType: 'application/json' },
        ]);
      } finally {
        await remote.close();
      }
    });

    it('gets a prompt in every kind of message, and a string as one user message', async () => {
      const remote = await connectHandbook(era, handbook.server);
      try {
        const triage = await remote.getPrompt('triage', { incident: 'inc-1', severity: 'sev2' });
        expect(triage.messages.map((m) => [m.role, m.content.type])).toEqual([
          ['user', 'text'],
          ['user', 'image'],
          ['user', 'audio'],
          ['user', 'resource'],
          ['user', 'resource_link'],
          ['assistant', 'text'],
        ]);
        expect(triage.messages[0]!.content).toEqual({
          type: 'text',
          text: 'Triage inc-1 (sev2): Checkout returns 502',
        });
        expect(triage.messages[1]!.content).toEqual({
          type: 'image',
          data: 'iVBORw0KGgo=',
          mimeType: 'image/png',
        });
        expect(triage.messages[4]!.content).toEqual({
          type: 'resource_link',
          uri: 'incidents://inc-1',
          name: 'inc-1',
        });
        expect((await remote.getPrompt('handover')).messages).toEqual([
          { role: 'user', content: { type: 'text', text: 'Write the handover for inc-1, inc-2.' } },
        ]);
        // Arguments the class refuses, and a prompt nobody serves: invalid params.
        expect(
          await refusal(remote.getPrompt('triage', { incident: 'inc-1', severity: 'sev9' })),
        ).toMatchObject({ code: -32602 });
        expect(await refusal(remote.getPrompt('triage', {}))).toMatchObject({ code: -32602 });
        expect(await refusal(remote.getPrompt('triage', { incident: 'inc-9' }))).toMatchObject({
          code: -32602,
        });
        expect(await refusal(remote.getPrompt('nothing'))).toMatchObject({ code: -32602 });
      } finally {
        await remote.close();
      }
    });

    it('asks the user for what a prompt lacks', async () => {
      const remote = await connectHandbook(era, handbook.server, { elicitation: true });
      const questions: string[] = [];
      const context = createContext({
        elicitor: (question) => {
          questions.push(question.message);
          return { action: 'accept', content: { severity: 'sev1' } };
        },
      });
      try {
        const triage = await remote.getPrompt('triage', { incident: 'inc-2' }, { context });
        expect(questions).toEqual(['How bad is inc-2?']);
        expect(triage.messages[0]!.content).toEqual({
          type: 'text',
          text: 'Triage inc-2 (sev1): Search is slow',
        });
      } finally {
        await remote.close();
      }
    });

    it('reads text, bytes and a templated resource; an unknown URI is invalid params', async () => {
      const remote = await connectHandbook(era, handbook.server);
      try {
        expect((await remote.readResource('handbook://runbook')).contents).toEqual([
          {
            uri: 'handbook://runbook',
            mimeType: 'text/markdown',
            text: '# Runbook\n\n1. Page the owner.\n2. Roll back the last deploy.\n',
          },
        ]);
        expect((await remote.readResource('handbook://oncall.png')).contents).toEqual([
          { uri: 'handbook://oncall.png', mimeType: 'image/png', blob: 'iVBORw0KGgo=' },
        ]);
        expect((await remote.readResource('incidents://inc-2')).contents).toEqual([
          {
            uri: 'incidents://inc-2',
            mimeType: 'application/json',
            text: '{"id":"inc-2","title":"Search is slow"}',
          },
        ]);
        // SEP-2164 in both eras: -32602 with the URI in data.
        expect(await refusal(remote.readResource('handbook://nothing'))).toEqual({
          code: -32602,
          data: { uri: 'handbook://nothing' },
        });
        // Hidden from a caller without the oncall scope, as if it did not exist.
        expect(await refusal(remote.readResource('handbook://pager'))).toMatchObject({
          code: -32602,
        });
        // A template's read that throws a ValidationError: invalid params too.
        expect(await refusal(remote.readResource('incidents://inc-9'))).toMatchObject({
          code: -32602,
        });
      } finally {
        await remote.close();
      }
    });

    it('completes from a @Param list and from a @Complete method', async () => {
      const remote = await connectHandbook(era, handbook.server);
      try {
        const severity = await remote.complete(
          { type: 'ref/prompt', name: 'triage' },
          { name: 'severity', value: 'sev' },
        );
        expect(severity.completion.values).toEqual(['sev1', 'sev2', 'sev3']);
        const id = await remote.complete(
          { type: 'ref/resource', uri: 'incidents://{id}' },
          { name: 'id', value: 'inc-' },
        );
        expect(id.completion.values).toEqual(['inc-1', 'inc-2']);
      } finally {
        await remote.close();
      }
    });
  },
);

describe('prompts-and-resources.md: who may see, and subscriptions', () => {
  it('serves the scoped pager to a caller holding its scope', async () => {
    const handbook = await serveHandbook({
      localAuth: { subject: 'ada', clientId: 'cli', scopes: ['oncall'] },
    });
    const remote = await connectHandbook('legacy', handbook.server);
    try {
      expect((await remote.listResources()).map((r) => r.uri)).toContain('handbook://pager');
      expect((await remote.readResource('handbook://pager')).contents).toEqual([
        { uri: 'handbook://pager', mimeType: 'text/plain', text: 'ada is on call (asked by ada)' },
      ]);
    } finally {
      await remote.close();
      await handbook.stop();
    }
  });

  it('2025 era: tells a subscribed client that its incident changed', async () => {
    const handbook = await serveHandbook();
    const updated: string[] = [];
    const remote = await connectHandbook('legacy', handbook.server, {
      onResourceUpdated: (uri) => void updated.push(uri),
    });
    try {
      await remote.subscribeResource('incidents://inc-1');
      handbook.log.update('inc-2', 'Search is down'); // not subscribed
      handbook.log.update('inc-1', 'Checkout is back');
      await remote.listPrompts(); // a round trip: the notices sent before it have arrived
      expect(updated).toEqual(['incidents://inc-1']);
      expect((await remote.readResource('incidents://inc-1')).contents[0]).toMatchObject({
        text: '{"id":"inc-1","title":"Checkout is back"}',
      });
    } finally {
      await remote.close();
      await handbook.stop();
    }
  });
});
