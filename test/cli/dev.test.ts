/**
 * `agenttool dev` on a TypeScript module, as a client sees it: one dev process, started
 * by an MCP client over stdio from the module's folder, serves the module from source;
 * each edit reloads the app behind the same connection. Every wait is for an event: the
 * list-changed notice, or a line on the process's stderr.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { CLI, ensureBuilt, killChildren, ROOT, tempDir } from './helpers';
import { until } from '../support/until';

/** The module as first written: `echo`, and `slow`, which answers once `release` exists. */
function appSource(extra = ''): string {
  return `import { existsSync, watch } from 'node:fs';
import { join } from 'node:path';
import { Param, Tool } from 'agenttool';
import { Module } from 'agenttool/di';
import { Journal } from './journal.js';

class EchoArgs {
  @Param('The text') text!: string;
}

@Tool({ name: 'echo', description: 'Echo the text.', args: EchoArgs })
export class Echo {
  constructor(private readonly journal: Journal) {}
  execute(args: EchoArgs): string {
    return args.text;
  }
}

@Tool({ name: 'slow', description: 'Answers once the release file exists.' })
export class Slow {
  constructor(private readonly journal: Journal) {}
  async execute(): Promise<string> {
    this.journal.write('slow started');
    process.stderr.write('slow started\\n');
    const file = join(__dirname, 'release');
    await new Promise<void>((resolve) => {
      const watcher = watch(__dirname, () => {
        if (existsSync(file)) {
          watcher.close();
          resolve();
        }
      });
      if (existsSync(file)) {
        watcher.close();
        resolve();
      }
    });
    return 'released';
  }
}
${extra}
@Module({ tools: [Echo, Slow${extra === '' ? '' : ', Shout'}], providers: [Journal] })
export class DevModule {}
`;
}

const SHOUT = `
class ShoutArgs {
  @Param('The text') text!: string;
}

@Tool({ name: 'shout', description: 'Shout the text.', args: ShoutArgs })
export class Shout {
  execute(args: ShoutArgs): string {
    return args.text.toUpperCase() + '!';
  }
}
`;

const JOURNAL = `import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

export class Journal {
  write(line: string): void {
    appendFileSync(join(__dirname, 'journal.txt'), line + '\\n');
  }
  onModuleInit(): void {
    this.write('init');
  }
  onModuleDestroy(): void {
    this.write('destroy');
  }
}
`;

let dir: string;
let client: Client;
let transport: StdioClientTransport;
let stderr = '';
/** Checks run on each chunk of stderr; each returns true once it is done. */
const waiters = new Set<() => boolean>();

/** Resolves with the first match of `pattern` in stderr after `from` characters. */
function stderrMatch(pattern: RegExp, from: number): Promise<RegExpMatchArray> {
  return new Promise((resolve) => {
    const check = (): boolean => {
      const match = pattern.exec(stderr.slice(from));
      if (match !== null) resolve(match);
      return match !== null;
    };
    if (!check()) waiters.add(check);
  });
}

function journal(): string[] {
  const file = join(dir, 'journal.txt');
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
}

function text(result: unknown): string {
  const content = (result as { content: { type: string; text?: string }[] }).content;
  return content.map((c) => c.text ?? '').join('');
}

beforeAll(async () => {
  ensureBuilt();
  dir = tempDir();
  // The module imports agenttool as a project that installed it does.
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules', 'agenttool'));
  writeFileSync(join(dir, 'app.module.ts'), appSource());
  writeFileSync(join(dir, 'journal.ts'), JOURNAL);
  transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'dev', 'app.module.ts'],
    cwd: dir,
    env: { PATH: process.env['PATH'] ?? '' },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const check of [...waiters]) if (check()) waiters.delete(check);
  });
  client = new Client({ name: 'dev-test', version: '1' });
  await client.connect(transport);
  await stderrMatch(/agenttool: dev: watching 2 files/, 0);
}, 300_000);

afterAll(async () => {
  await client?.close();
  killChildren();
});

test('serves the module from its TypeScript source', async () => {
  expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
  const listed = await client.listTools();
  expect(listed.tools.map((t) => t.name)).toEqual(['echo', 'slow']);
  expect(text(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('hi');
});

test('an edit that adds a tool reaches the connected client; the old app closes once its call is done', async () => {
  const noticed = new Promise<void>((resolve) =>
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
  );
  // A call of the first app runs across the reload.
  const slow = client.callTool({ name: 'slow', arguments: {} });
  const mark = stderr.length;
  await stderrMatch(/^slow started$/m, mark);
  writeFileSync(join(dir, 'app.module.ts'), appSource(SHOUT));
  await noticed;
  const reloaded = await stderrMatch(
    /agenttool: dev: reloaded after an edit of [^\n]*\n((?: {2}[^\n]*\n)+)/,
    mark,
  );
  expect(reloaded[1]).toBe('  + shout\n');
  expect(text(await client.callTool({ name: 'shout', arguments: { text: 'hi' } }))).toBe('HI!');
  // The first app is not closed while its call runs.
  expect(journal()).toEqual(['init', 'slow started', 'init']);
  writeFileSync(join(dir, 'release'), '');
  expect(text(await slow)).toBe('released');
  await stderrMatch(/the previous app is closed, its calls done/, mark);
  expect(journal()).toEqual(['init', 'slow started', 'init', 'destroy']);
});

test('an edit that does not compile is reported with its file and line; the last good tools keep serving', async () => {
  const mark = stderr.length;
  const broken = appSource(SHOUT).replace(
    "return args.text.toUpperCase() + '!';",
    "return args.text.toUpperCase( + '!';",
  );
  writeFileSync(join(dir, 'app.module.ts'), broken);
  const failed = await stderrMatch(
    /agenttool: dev: reload failed after an edit of app\.module\.ts: app\.module\.ts:(\d+):(\d+): ([^\n]*)\n {2}still serving the last good app: echo, slow, shout\n/,
    mark,
  );
  // SWC stops at the line after the unclosed call.
  const line = broken.split('\n').findIndex((l) => l.includes("toUpperCase( + '!'")) + 1;
  expect(Number(failed[1])).toBeGreaterThanOrEqual(line);
  expect(Number(failed[1])).toBeLessThanOrEqual(line + 1);
  expect(failed[3]).not.toBe('');
  expect(text(await client.callTool({ name: 'shout', arguments: { text: 'ok' } }))).toBe('OK!');

  // A provider that fails to start: its file and line, and still the last good app.
  const next = stderr.length;
  writeFileSync(
    join(dir, 'journal.ts'),
    JOURNAL.replace("this.write('init');", "throw new Error('no journal today');"),
  );
  writeFileSync(join(dir, 'app.module.ts'), appSource(SHOUT));
  const refused = await stderrMatch(
    /reload failed after an edit of [^\n]*: journal\.ts:(\d+):\d+: the app could not start: [^\n]*no journal today\n/,
    next,
  );
  expect(Number(refused[1])).toBe(
    JOURNAL.split('\n').findIndex((l) => l.includes("this.write('init');")) + 1,
  );
  expect(text(await client.callTool({ name: 'echo', arguments: { text: 'still' } }))).toBe('still');
  expect(journal()).toEqual(['init', 'slow started', 'init', 'destroy']);
});

test('when the client leaves, the last app closes once and the process ends', async () => {
  const mark = stderr.length;
  writeFileSync(join(dir, 'journal.ts'), JOURNAL);
  await stderrMatch(/agenttool: dev: reloaded after an edit of/, mark);
  await stderrMatch(/the previous app is closed, its calls done/, mark);
  const exited = new Promise<void>((resolve) => (transport.onclose = resolve));
  await client.close();
  await exited;
  await stderrMatch(/agenttool: stopped\n/, mark);
  expect(journal()).toEqual([
    'init',
    'slow started',
    'init',
    'destroy',
    'init',
    'destroy',
    'destroy',
  ]);
});

describe('an ES module .js module file', () => {
  /** The module file as tsc would leave it in a `"type": "module"` project, decorators applied by call. */
  const esmSource = (answer: string): string => `import { Param, Tool } from 'agenttool';
import { Module } from 'agenttool/di';

class PingArgs {}
Param('Who pings', { type: 'string' })(PingArgs.prototype, 'who');

export class Ping {
  execute(args) {
    return '${answer} ' + args.who;
  }
}
Tool({ name: 'ping', description: 'Answer a ping with ${answer}.', args: PingArgs })(Ping);

export class PingModule {}
Module({ tools: [Ping] })(PingModule);
`;
  let esmDir: string;
  let esmClient: Client;
  let esmStderr = '';

  beforeAll(async () => {
    esmDir = tempDir();
    mkdirSync(join(esmDir, 'node_modules'));
    symlinkSync(ROOT, join(esmDir, 'node_modules', 'agenttool'));
    writeFileSync(join(esmDir, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(join(esmDir, 'ping.js'), esmSource('pong'));
    const esmTransport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'dev', 'ping.js'],
      cwd: esmDir,
      env: { PATH: process.env['PATH'] ?? '' },
      stderr: 'pipe',
    });
    const watching = new Promise<void>((resolve) =>
      esmTransport.stderr?.on('data', (chunk: Buffer) => {
        esmStderr += chunk.toString();
        if (esmStderr.includes('agenttool: dev: watching 1 file')) resolve();
      }),
    );
    esmClient = new Client({ name: 'dev-esm-test', version: '1' });
    await esmClient.connect(esmTransport);
    await watching;
  }, 300_000);

  afterAll(async () => {
    await esmClient?.close();
  });

  test('is read again after each edit, as a TypeScript file is', async () => {
    const ping = async (): Promise<string> =>
      text(await esmClient.callTool({ name: 'ping', arguments: { who: 'Ada' } }));
    expect(await ping()).toBe('pong Ada');
    const noticed = new Promise<void>((resolve) =>
      esmClient.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    writeFileSync(join(esmDir, 'ping.js'), esmSource('PONG'));
    await noticed;
    expect(await ping()).toBe('PONG Ada');
    // The notice comes on stdout, the line on stderr: either may come first.
    const reloaded = /agenttool: dev: reloaded after an edit of ping\.js\n {2}~ ping /;
    await until(() => reloaded.test(esmStderr), 'the reload line on stderr');
    expect(esmStderr).toMatch(reloaded);
  });
});
