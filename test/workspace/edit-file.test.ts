/**
 * `edit_file`: old text that occurs once (or every occurrence, asked for) becomes new
 * text, the rest of the file kept; refused, with nothing changed, where the old text is
 * missing or ambiguous; parallel edits of one file both land, and an edit that finds
 * the file changed while it read it leaves that change alone.
 */
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Job,
  type Tool,
  Executor,
  annotationsOf,
  createContext,
  definitionOf,
  outputText,
  replayOf,
  toolFromInstance,
} from 'agenttool';
import { EditFileTool } from 'agenttool/workspace';
import { FileEdits } from '../../src/workspace/file-edit';
import { type ReadOptions, type WriteOptions } from '../../src/workspace/file-operations';
import { FileRoot } from '../../src/workspace/file-root';

let base: string;
let root: string;
let files: FileRoot;
let editFile: Tool;
let ids = 0;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'edit-file-')));
  root = join(base, 'root');
  mkdirSync(root);
  files = new FileRoot(root);
  editFile = toolFromInstance(new EditFileTool(files));
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

function job(args: unknown): Job {
  return { tool: editFile, call: { id: `call_${++ids}`, args: JSON.stringify(args) } };
}

/** The outcome of each edit, run together in one batch: its output or its error. */
async function edits(...args: unknown[]): Promise<string[]> {
  const outcomes = await new Executor().results(args.map(job));
  return outcomes.map((o) =>
    o.error !== undefined ? `Error: ${o.error.message}` : outputText(o.result.output),
  );
}

const text = (name: string): string => readFileSync(join(root, name), 'utf8');

it('declares its arguments, and a replay that is not known to be safe', () => {
  expect(definitionOf(editFile).parameters).toMatchObject({
    properties: {
      path: { type: 'string' },
      old_text: { type: 'string' },
      new_text: { type: 'string' },
      replace_all: { type: 'boolean' },
    },
    required: ['path', 'old_text', 'new_text'],
  });
  expect(annotationsOf(editFile)).toMatchObject({ destructive: true, idempotent: false });
  expect(replayOf(editFile, '{"path":"a","old_text":"x","new_text":"y"}', createContext())).toBe(
    'unknown',
  );
});

it('replaces the one occurrence, keeps the rest and the mode, and says at which line', async () => {
  writeFileSync(join(root, 'app.ts'), 'const a = 1;\nconst b = $2;\nconst c = 3;\n', {
    mode: 0o640,
  });
  chmodSync(join(root, 'app.ts'), 0o640);
  expect(
    await edits({ path: 'app.ts', old_text: 'const b = $2;', new_text: "const b = '$&';" }),
  ).toEqual([`Edited ${root}/app.ts: replaced 1 occurrence, at line 2.`]);
  // The new text is taken as it is: `$&` is no pattern.
  expect(text('app.ts')).toBe("const a = 1;\nconst b = '$&';\nconst c = 3;\n");
  expect(statSync(join(root, 'app.ts')).mode & 0o777).toBe(0o640);
});

it('refuses a missing, an ambiguous and an empty old text, and one the same as the new, changing nothing', async () => {
  const before = 'let x = 1;\nlet y = 2;\nlet x = 1;\n';
  writeFileSync(join(root, 'a.js'), before);
  expect(
    await edits(
      { path: 'a.js', old_text: 'let z = 3;', new_text: 'let z = 4;' },
      { path: 'a.js', old_text: 'let x = 1;', new_text: 'let x = 2;' },
      { path: 'a.js', old_text: '', new_text: 'x' },
      { path: 'a.js', old_text: 'let y = 2;', new_text: 'let y = 2;' },
      { path: 'a.js', old_text: 'x', new_text: 'y', mode: 'fast' },
    ),
  ).toEqual([
    'Error: old_text was not found in "a.js": it must match the file exactly, whitespace and indentation included; read the file again for its current text',
    'Error: old_text occurs 2 times in "a.js" (at lines 1 and 3): give more of the text around the one to change so that it occurs once, or set replace_all to replace every one',
    'Error: old_text must not be empty: give the text to replace (to write a whole file, use write_file)',
    'Error: old_text and new_text are the same: the edit would change nothing',
    'Error: invalid arguments: edit_file takes no "mode"; its arguments are path, old_text, new_text, replace_all',
  ]);
  expect(text('a.js')).toBe(before);
});

it('replaces every occurrence with replace_all', async () => {
  writeFileSync(join(root, 'a.js'), 'x\ny x\nz\nx');
  expect(await edits({ path: 'a.js', old_text: 'x', new_text: 'xx', replace_all: true })).toEqual([
    `Edited ${root}/a.js: replaced 3 occurrences, at lines 1, 2 and 4.`,
  ]);
  expect(text('a.js')).toBe('xx\ny xx\nz\nxx');
  // Several on one line name it once.
  writeFileSync(join(root, 'b.js'), 'a a a\nb\na');
  expect(await edits({ path: 'b.js', old_text: 'a', new_text: 'c', replace_all: true })).toEqual([
    `Edited ${root}/b.js: replaced 4 occurrences, at lines 1 and 3.`,
  ]);
  writeFileSync(join(root, 'c.js'), 'a a\n');
  expect(await edits({ path: 'c.js', old_text: 'a', new_text: 'c' })).toEqual([
    'Error: old_text occurs 2 times in "c.js" (at line 1): give more of the text around the one to change so that it occurs once, or set replace_all to replace every one',
  ]);
});

it('matches a text given with LF alone in a file of CRLF lines, and writes CRLF', async () => {
  writeFileSync(join(root, 'win.txt'), 'one\r\ntwo\r\nthree\r\n');
  expect(await edits({ path: 'win.txt', old_text: 'two\nthree', new_text: '2\n3' })).toEqual([
    `Edited ${root}/win.txt: replaced 1 occurrence, at line 2.`,
  ]);
  expect(text('win.txt')).toBe('one\r\n2\r\n3\r\n');
});

it('lands every edit of one file sent at once', async () => {
  const lines = Array.from({ length: 20 }, (_, i) => `line ${i}`);
  writeFileSync(join(root, 'many.txt'), `${lines.join('\n')}\n`);
  const outcomes = await edits(
    ...lines.map((line) => ({ path: 'many.txt', old_text: `${line}\n`, new_text: `${line}!\n` })),
  );
  expect(
    outcomes.every((o) => o.startsWith(`Edited ${root}/many.txt: replaced 1 occurrence`)),
  ).toBe(true);
  expect(text('many.txt')).toBe(`${lines.map((line) => `${line}!`).join('\n')}\n`);
});

it('refuses a file changed while the edit read it, leaving that change', async () => {
  writeFileSync(join(root, 'raced.txt'), 'old\n');
  // The shell writes the file between the edit's read and its write.
  const updated = files.update('raced.txt', (current) => {
    writeFileSync(join(root, 'raced.txt'), 'the shell wrote this\n');
    return { text: current.replace('old', 'new'), result: undefined };
  });
  await expect(updated).rejects.toThrow(
    'cannot edit "raced.txt": it changed while the edit read it (the shell, or another program, wrote it): read it again and edit what it holds now',
  );
  expect(text('raced.txt')).toBe('the shell wrote this\n');
});

it('refuses a missing file, one that is not text, one too large, and a path outside', async () => {
  writeFileSync(join(root, 'bin'), Buffer.from([0x61, 0x00, 0x62]));
  writeFileSync(join(root, 'big'), Buffer.alloc(4 * 1024 * 1024 + 1, 0x61));
  expect(
    await edits(
      { path: 'nope.txt', old_text: 'a', new_text: 'b' },
      { path: 'bin', old_text: 'a', new_text: 'b' },
      { path: 'big', old_text: 'a', new_text: 'b' },
      { path: '../outside.txt', old_text: 'a', new_text: 'b' },
    ),
  ).toEqual([
    expect.stringMatching(/^Error: cannot read "nope.txt": .*no such file/),
    expect.stringContaining('is not UTF-8 text (3 bytes, with a NUL byte at offset 1)'),
    'Error: cannot edit "big": it holds 4194305 bytes, more than an edit takes (4194304, 4 MiB): change it with the shell (sed, a script) instead',
    expect.stringContaining('outside'),
  ]);
});

it('keeps a byte-order mark, writes CRLF in a CRLF file, and refuses an edit that would grow past 4 MiB', async () => {
  writeFileSync(join(root, 'bom.cs'), '\uFEFFclass A {}\r\nclass B {}\r\n');
  writeFileSync(join(root, 'many-a.txt'), 'a'.repeat(100_000));
  // Counted in bytes: 1 MiB of "a", each made four euro signs (12 bytes), would be 12 MiB.
  writeFileSync(join(root, 'mib-a.txt'), 'a'.repeat(1024 * 1024));
  expect(
    await edits(
      { path: 'bom.cs', old_text: 'class B {}', new_text: 'class B {}\nclass C {}' },
      { path: 'many-a.txt', old_text: 'a', new_text: 'b'.repeat(100), replace_all: true },
      { path: 'mib-a.txt', old_text: 'a', new_text: '\u20ac'.repeat(4), replace_all: true },
    ),
  ).toEqual([
    `Edited ${root}/bom.cs: replaced 1 occurrence, at line 2.`,
    'Error: the edit would make "many-a.txt" 10000000 bytes long, more than an edit makes (4194304, 4 MiB): change it with the shell (sed, a script) instead',
    'Error: the edit would make "mib-a.txt" 12582912 bytes long, more than an edit makes (4194304, 4 MiB): change it with the shell (sed, a script) instead',
  ]);
  expect(statSync(join(root, 'mib-a.txt')).size).toBe(1024 * 1024);
  expect(readFileSync(join(root, 'bom.cs'))).toEqual(
    Buffer.from('\uFEFFclass A {}\r\nclass B {}\r\nclass C {}\r\n'),
  );
  expect(text('many-a.txt')).toBe('a'.repeat(100_000));
});

it('lets a cancelled edit go at once, while the next still waits for the one before', async () => {
  const path = join(root, 'queued.txt');
  writeFileSync(path, 'a\n');
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const order: string[] = [];
  // A root whose first read waits for the gate: the first edit holds its turn.
  let reads = 0;
  const slowRoot = {
    resolve: (name: string) => Promise.resolve(join(root, name)),
    read: async (name: string, options: ReadOptions) => {
      if (reads++ === 0) await gate;
      return files.read(name, options);
    },
    write: (name: string, data: string, options: WriteOptions) => files.write(name, data, options),
  };
  const edits = new FileEdits();
  const step = (label: string, from: string, to: string) => (current: string) => {
    order.push(label);
    return { text: current.replace(from, to), result: label };
  };
  const first = edits.update(slowRoot, 'queued.txt', step('first', 'a', 'b'), {});
  const cancel = new AbortController();
  const cancelled = edits.update(slowRoot, 'queued.txt', step('cancelled', 'b', 'x'), {
    signal: cancel.signal,
  });
  const third = edits.update(slowRoot, 'queued.txt', step('third', 'b', 'c'), {});
  await new Promise((resolve) => setImmediate(resolve));
  cancel.abort(new Error('the request was cancelled'));
  await expect(cancelled).rejects.toThrow('the request was cancelled');
  // An edit that comes after the cancelled one gave up waits too.
  const fourth = edits.update(slowRoot, 'queued.txt', step('fourth', 'c', 'd'), {});
  await new Promise((resolve) => setImmediate(resolve));
  // Given up while the first still holds the file: nothing of the others ran.
  expect(order).toEqual([]);
  open();
  await expect(first).resolves.toBe('first');
  await expect(third).resolves.toBe('third');
  await expect(fourth).resolves.toBe('fourth');
  expect(order).toEqual(['first', 'third', 'fourth']);
  expect(text('queued.txt')).toBe('d\n');
});
