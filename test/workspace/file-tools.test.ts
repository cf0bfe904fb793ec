import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
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
  replayOf,
  toolFromInstance,
} from 'agenttool';
import { FileRoot } from '../../src/workspace/file-root';
import {
  AppendFileTool,
  MAX_READ_BYTES,
  ReadFileTool,
  WriteFileTool,
} from '../../src/workspace/file-tools';

let base: string;
let root: string;
let readFile: Tool;
let writeFile: Tool;
let appendFile: Tool;
let ids = 0;

beforeEach(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'fs-tools-')));
  root = join(base, 'root');
  mkdirSync(root);
  mkdirSync(join(base, 'outside'));
  writeFileSync(join(base, 'outside', 'secret.txt'), 'secret');
  const sandbox = new FileRoot(root);
  readFile = toolFromInstance(new ReadFileTool(sandbox));
  writeFile = toolFromInstance(new WriteFileTool(sandbox));
  appendFile = toolFromInstance(new AppendFileTool(sandbox));
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

function job(tool: Tool, args: unknown): Job {
  return { tool, call: { id: `call_${++ids}`, args: JSON.stringify(args) } };
}

async function run(...jobs: Job[]): Promise<unknown[]> {
  const outcomes = await new Executor().results(jobs);
  return outcomes.map((o) =>
    o.error !== undefined ? `Error: ${o.error.message}` : o.result.output,
  );
}

describe('fs tools: what they declare', () => {
  const ctx = createContext();

  it('read_file is read-only and safe to replay', () => {
    expect(annotationsOf(readFile)).toMatchObject({ readOnly: true });
    expect(replayOf(readFile, '{"path":"a"}', ctx)).toBe('safe');
  });

  it('write_file is safe to replay; append_file is not known to be', () => {
    expect(replayOf(writeFile, '{"path":"a","content":""}', ctx)).toBe('safe');
    expect(replayOf(appendFile, '{"path":"a","content":""}', ctx)).toBe('unknown');
    expect(annotationsOf(writeFile)).toMatchObject({ readOnly: false, idempotent: true });
    expect(annotationsOf(appendFile)).toMatchObject({ readOnly: false, idempotent: false });
  });

  it('take a path, and content or an optional integer max_bytes', () => {
    expect(definitionOf(readFile).parameters).toMatchObject({
      properties: { path: { type: 'string' }, max_bytes: { type: 'integer' } },
      required: ['path'],
    });
    expect(definitionOf(writeFile).parameters).toMatchObject({ required: ['path', 'content'] });
    expect(definitionOf(appendFile).parameters).toMatchObject({ required: ['path', 'content'] });
  });
});

describe('fs tools through the executor', () => {
  it('write, append and read a file inside the root', async () => {
    expect(await run(job(writeFile, { path: 'notes/a.txt', content: 'one\n' }))).toEqual([
      `Wrote 4 bytes to ${root}/notes/a.txt.`,
    ]);
    expect(await run(job(appendFile, { path: 'notes/a.txt', content: 'two\n' }))).toEqual([
      `Appended 4 bytes to ${root}/notes/a.txt.`,
    ]);
    expect(await run(job(readFile, { path: 'notes/a.txt' }))).toEqual(['one\ntwo\n']);
    expect(readFileSync(join(root, 'notes/a.txt'), 'utf8')).toBe('one\ntwo\n');
  });

  it('refuses to append UTF-8 to a file that is not UTF-8 text, changing nothing', async () => {
    // "café" in latin-1, as an older tool wrote it.
    const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]);
    writeFileSync(join(root, 'old.txt'), latin1);
    writeFileSync(join(root, 'blob.bin'), Buffer.from([1, 2, 0, 3]));
    // Cut off inside its last character ("é" is C3 A9).
    writeFileSync(join(root, 'cut.txt'), Buffer.from([0x61, 0xc3]));
    // Larger than what is read whole: its end is read, from inside a character.
    const long = `${'é'.repeat(600_000)}\n`;
    writeFileSync(join(root, 'long.txt'), long);
    expect(
      await run(
        job(appendFile, { path: 'old.txt', content: 'thé\n' }),
        job(appendFile, { path: 'blob.bin', content: 'x' }),
        job(appendFile, { path: 'cut.txt', content: 'x' }),
        job(appendFile, { path: 'long.txt', content: 'end\n' }),
      ),
    ).toEqual([
      'Error: cannot append to "old.txt": it is not UTF-8 text (5 bytes, with bytes that are not UTF-8), and append_file adds UTF-8 text only: change it with the shell instead',
      'Error: cannot append to "blob.bin": it is not UTF-8 text (4 bytes, with a NUL byte at offset 2), and append_file adds UTF-8 text only: change it with the shell instead',
      'Error: cannot append to "cut.txt": it is not UTF-8 text (2 bytes, with an end inside a character), and append_file adds UTF-8 text only: change it with the shell instead',
      `Appended 4 bytes to ${root}/long.txt.`,
    ]);
    expect(readFileSync(join(root, 'old.txt'))).toEqual(latin1);
    expect(readFileSync(join(root, 'long.txt'), 'utf8')).toBe(`${long}end\n`);
  });

  it('counts one byte as one byte', async () => {
    expect(await run(job(writeFile, { path: 'one.txt', content: 'x' }))).toEqual([
      `Wrote 1 byte to ${root}/one.txt.`,
    ]);
    expect(await run(job(appendFile, { path: 'one.txt', content: 'y' }))).toEqual([
      `Appended 1 byte to ${root}/one.txt.`,
    ]);
  });

  it('shows a name with a line end in it quoted, so that it reads as one name', async () => {
    expect(await run(job(writeFile, { path: 'new\nline.txt', content: 'x' }))).toEqual([
      `Wrote 1 byte to ${JSON.stringify(join(root, 'new\nline.txt'))}.`,
    ]);
    expect(readFileSync(join(root, 'new\nline.txt'), 'utf8')).toBe('x');
  });

  it('read_file stops at max_bytes and says how to read more', async () => {
    writeFileSync(join(root, 'big.txt'), 'abcdefghij');
    expect(await run(job(readFile, { path: 'big.txt', max_bytes: 4 }))).toEqual([
      'abcd\n[truncated: showed 4 of 10 bytes; read with a larger max_bytes for more]',
    ]);
  });

  it('read_file reads from a line, so many lines, and says where the file goes on', async () => {
    writeFileSync(
      join(root, 'log.txt'),
      Array.from({ length: 10 }, (_, i) => `entry ${i + 1}\n`).join(''),
    );
    expect(
      await run(
        job(readFile, { path: 'log.txt', offset: 4, limit: 2 }),
        job(readFile, { path: 'log.txt', offset: 9 }),
        job(readFile, { path: 'log.txt', offset: 10, limit: 5 }),
        job(readFile, { path: 'log.txt', limit: 1 }),
        job(readFile, { path: 'log.txt', max_bytes: 20 }),
        job(readFile, { path: 'log.txt', offset: 3, max_bytes: 3 }),
        job(readFile, { path: 'log.txt', offset: 2, max_bytes: 0 }),
        job(readFile, { path: 'log.txt', offset: 11 }),
        job(readFile, { path: 'log.txt', offset: 0 }),
        job(readFile, { path: 'log.txt', limit: -1 }),
      ),
    ).toEqual([
      'entry 4\nentry 5\n[showed lines 4-5 (16 of 81 bytes); more follows: read on with offset 6]',
      'entry 9\nentry 10\n[showed lines 9-10 (17 of 81 bytes); the file ends there]',
      'entry 10\n[showed line 10 (9 of 81 bytes); the file ends there]',
      'entry 1\n[showed line 1 (8 of 81 bytes); more follows: read on with offset 2]',
      'entry 1\nentry 2\nentr\n[truncated: showed 20 of 81 bytes; read with a larger max_bytes for more, or from line 3 on with offset 3]',
      'ent\n[showed line 3 (3 of 81 bytes); line 3 goes on past max_bytes: read it with a larger max_bytes]',
      '[showed nothing from line 2 (0 of 81 bytes); max_bytes 0 holds none of it: read with a larger max_bytes]',
      'Error: cannot read "log.txt": line 11 is past its end: the file has 10 lines',
      'Error: offset must be a line number, 1 or more, got 0',
      'Error: limit must be a number of lines, 1 or more, got -1',
    ]);
  });

  it('refuses content with a NUL character, which read_file would refuse to read back', async () => {
    writeFileSync(join(root, 'notes.txt'), 'x\n');
    expect(await run(job(writeFile, { path: 'notes.txt', content: 'a\u0000b' }))).toEqual([
      'Error: content has a NUL character at index 1: the file tools write text, which has none; write a binary file with the shell (for example `base64 -d` or `printf`)',
    ]);
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe('x\n');
  });

  it('refuses an argument the tool does not take, naming it and the ones it takes', async () => {
    writeFileSync(join(root, 'notes.txt'), 'x\n');
    expect(
      await run(
        job(readFile, { path: 'notes.txt', max_byte: 10 }),
        job(writeFile, { path: 'notes.txt', content: 'y', mode: '0755', append: true }),
      ),
    ).toEqual([
      'Error: invalid arguments: read_file takes no "max_byte"; its arguments are path, max_bytes, offset, limit',
      'Error: invalid arguments: write_file takes no "mode", "append"; its arguments are path, content',
    ]);
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe('x\n');
  });

  it('reads UTF-8 text, and refuses a file that is not text, saying how to look at it', async () => {
    // With a byte order mark, which stays: the text written back is the file as it was.
    writeFileSync(join(root, 'text.txt'), '\ufeffhéllo ✓ 🙂\n');
    writeFileSync(join(root, 'nul.bin'), Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x01]));
    writeFileSync(join(root, 'latin1.txt'), Buffer.from('caf\xe9\n', 'latin1'));
    expect(
      await run(
        job(readFile, { path: 'text.txt' }),
        job(readFile, { path: 'nul.bin' }),
        job(readFile, { path: 'latin1.txt' }),
      ),
    ).toEqual([
      '\ufeffhéllo ✓ 🙂\n',
      'Error: the file "nul.bin" is not UTF-8 text (6 bytes, with a NUL byte at offset 4): read_file returns text only; look at it with the shell instead (for example `file`, `xxd | head` or `base64`)',
      'Error: the file "latin1.txt" is not UTF-8 text (5 bytes, with bytes that are not UTF-8): read_file returns text only; look at it with the shell instead (for example `file`, `xxd | head` or `base64`)',
    ]);
  });

  it('says how to read a line longer than read_file reads at most', async () => {
    // A minified bundle: its first line is longer than MAX_READ_BYTES.
    writeFileSync(join(root, 'min.js'), `${'x'.repeat(MAX_READ_BYTES + 10)}\nend\n`);
    const shell = `look at the rest of it with the shell (for example \`sed -n 1p FILE | cut -b ${MAX_READ_BYTES + 1}- | head -c 100000\`), or read on from the next line, if any, with offset 2]`;
    const [plain, ranged, next] = (await run(
      job(readFile, { path: 'min.js', max_bytes: MAX_READ_BYTES }),
      job(readFile, { path: 'min.js', offset: 1, limit: 1, max_bytes: MAX_READ_BYTES }),
      job(readFile, { path: 'min.js', offset: 2 }),
    )) as string[];
    expect(plain!.slice(MAX_READ_BYTES)).toBe(
      `\n[truncated: showed ${MAX_READ_BYTES} of ${MAX_READ_BYTES + 15} bytes; line 1 goes on past the ${MAX_READ_BYTES} bytes read_file reads at most: ${shell}`,
    );
    expect(ranged!.slice(MAX_READ_BYTES)).toBe(
      `\n[showed line 1 (${MAX_READ_BYTES} of ${MAX_READ_BYTES + 15} bytes); line 1 goes on past the ${MAX_READ_BYTES} bytes read_file reads at most: ${shell}`,
    );
    expect(next).toBe(
      `end\n[showed line 2 (4 of ${MAX_READ_BYTES + 15} bytes); the file ends there]`,
    );
  });

  it('refuses a binary file read from a line far in without searching it to its end', async () => {
    // A NUL byte in what is searched for the line stops the search: a disk image of
    // gigabytes would otherwise be read whole to say it has one line.
    const image = Buffer.alloc(300_000);
    image[200_000] = 0x0a;
    writeFileSync(join(root, 'disk.img'), image);
    const bytes = Array.from({ length: 20_000 }, () => 'text\n').join('');
    writeFileSync(join(root, 'late.bin'), Buffer.concat([Buffer.from(bytes), Buffer.from([0, 1])]));
    expect(
      await run(
        job(readFile, { path: 'disk.img', offset: 5 }),
        job(readFile, { path: 'late.bin', offset: 2 }),
      ),
    ).toEqual([
      'Error: the file "disk.img" is not UTF-8 text (300000 bytes, with a NUL byte at offset 0): read_file returns text only; look at it with the shell instead (for example `file`, `xxd | head` or `base64`)',
      // Past the part searched for the line: the offset is the file's, not the part's.
      'Error: the file "late.bin" is not UTF-8 text (100002 bytes, with a NUL byte at offset 100000): read_file returns text only; look at it with the shell instead (for example `file`, `xxd | head` or `base64`)',
    ]);
  });

  it('a read cut inside a character leaves the character out, and says so', async () => {
    // "é" is two bytes: max_bytes 2 cuts it after its first.
    writeFileSync(join(root, 'accent.txt'), 'aé and more');
    expect(await run(job(readFile, { path: 'accent.txt', max_bytes: 2 }))).toEqual([
      'a\n[truncated: showed 1 of 12 bytes; read with a larger max_bytes for more]',
    ]);
  });

  it('refuses every escape with a clear error and touches nothing', async () => {
    symlinkSync(join(base, 'outside'), join(root, 'out'));
    const attempts = [
      '../outside/secret.txt',
      join(base, 'outside', 'secret.txt'),
      'out/secret.txt',
    ];
    for (const path of attempts) {
      const outputs = await run(
        job(readFile, { path }),
        job(writeFile, { path, content: 'pwned' }),
        job(appendFile, { path, content: 'pwned' }),
      );
      for (const output of outputs) {
        expect(output).toMatch(
          new RegExp(
            `^Error: the path ${escape(JSON.stringify(path))} is outside the root directory ${escape(JSON.stringify(root))}`,
          ),
        );
      }
    }
    expect(readFileSync(join(base, 'outside', 'secret.txt'), 'utf8')).toBe('secret');
    expect(existsSync(join(root, 'outside'))).toBe(false);
  });

  it('refuses a max_bytes above its cap (4 MiB), documented in the parameter', async () => {
    expect(MAX_READ_BYTES).toBe(4 * 1024 * 1024);
    const parameters = definitionOf(readFile).parameters as {
      properties: { max_bytes: { description: string } };
    };
    expect(parameters.properties.max_bytes.description).toContain(`at most ${MAX_READ_BYTES}`);
    writeFileSync(join(root, 'huge.txt'), 'a'.repeat(MAX_READ_BYTES + 10));
    expect(await run(job(readFile, { path: 'huge.txt', max_bytes: 2 ** 31 }))).toEqual([
      `Error: max_bytes must be at most ${MAX_READ_BYTES} (4 MiB), got 2147483648: read_file reads no more than that in one call`,
    ]);
    const [atCap] = (await run(job(readFile, { path: 'huge.txt', max_bytes: MAX_READ_BYTES }))) as [
      string,
    ];
    expect(
      atCap.includes(
        `[truncated: showed ${MAX_READ_BYTES} of ${MAX_READ_BYTES + 10} bytes; line 1 goes on past the ${MAX_READ_BYTES} bytes read_file reads at most: look at the rest of it with the shell`,
      ),
    ).toBe(true);
  });

  it('keeps messages about huge paths short: their start and end, and their length', async () => {
    const huge = 'a/'.repeat(50_000);
    const escaping = `../${'x'.repeat(4000)}`;
    const longName = `${'n'.repeat(300)}.txt`;
    const outputs = await run(
      job(readFile, { path: huge }),
      job(writeFile, { path: huge, content: 'x' }),
      job(appendFile, { path: escaping, content: 'x' }),
      job(writeFile, { path: longName, content: 'x' }),
    );
    for (const output of outputs) expect(String(output).length).toBeLessThan(500);
    expect(outputs[0]).toMatch(
      /^Error: the path "a\/a\/.*….*\/a\/" \(100000 characters\) is 100000 characters long; the limit is 4096$/,
    );
    expect(outputs[1]).toContain('(100000 characters)');
    expect(outputs[2]).toMatch(
      /^Error: the path "\.\.\/x+"…"x+" \(4003 characters\) is outside the root directory "[^"]+": its "\.\." climbs out, and it leads to "[^"]+"…"x+" \(\d+ characters\);/,
    );
    expect(outputs[3]).toMatch(
      /^Error: cannot write "n+"…"n+\.txt" \(304 characters\): the name "n{40}\.\.\." is 304 bytes long in UTF-8, more than a file name can be \(255\)$/,
    );
    // Refused before the folders on its way are made, so none is left behind.
    expect(
      await run(job(writeFile, { path: `made1/made2/${'\u00e9'.repeat(200)}`, content: 'x' })),
    ).toEqual([expect.stringContaining('is 400 bytes long in UTF-8')]);
    expect(existsSync(join(root, 'made1'))).toBe(false);
  });

  it('reports a missing file and invalid arguments clearly', async () => {
    expect(await run(job(readFile, { path: 'nope.txt' }), job(writeFile, { path: 'x' }))).toEqual([
      expect.stringMatching(
        /^Error: cannot read "nope.txt": no such file under the workspace root /,
      ),
      expect.stringMatching(/^Error: invalid arguments: .*content/),
    ]);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
