/**
 * The code on the pages: every `ts` block of README.md and of docs/*.md (docs/api is
 * TypeDoc's, generated from the TSDoc) is preceded by `<!-- file: samples/<path>.ts -->`
 * and is that file, byte for byte. The files are compiled by the build
 * (tsconfig.build.json includes samples/) and type-checked by `npm run check`; here, the
 * ones no other test runs are run. test/readme/readme.test.ts, test/frameworks and
 * test/readme/tasks-doc.test.ts run the others.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createContext, taskSupportOf, toolFromInstance } from 'agenttool';
import { ToolApp } from 'agenttool/di';
import { runNotesBatch } from '../../samples/docs/batch-events';
import { ScratchpadModule } from '../../samples/docs/handles';
import { greetGuests } from '../../samples/docs/modules';
import { ProjectShellModule } from '../../samples/docs/shell-module';
import { crawl, Migrate } from '../../samples/docs/task-support';

const ROOT = join(__dirname, '../..');

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
    // The README's greeter is shown there, and the guides show the rest.
    expect(shown.filter((b) => b.page === 'README.md').map((b) => b.marker)).toEqual([
      'samples/readme/greet.ts',
    ]);
  });

  it.each(shown.map((block) => [`${block.page}:${block.line}`, block] as const))(
    '%s is its sample file, byte for byte',
    (_where, block) => {
      expect(block.marker).toMatch(/^samples\/[\w/-]+\.ts$/);
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
