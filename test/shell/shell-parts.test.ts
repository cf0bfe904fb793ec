import fc from 'fast-check';
import { BoundedOutput, truncationLine } from '../../src/shell/bounded-output';
import { ControlStream, type ControlLine } from '../../src/shell/control-stream';
import { bashQuote } from '../../src/shell/bash-words';
import { changedPathsNamed } from '../../src/shell/shell-start';
import { execFileSync } from 'node:child_process';

describe('BoundedOutput', () => {
  it('keeps everything up to the cap', () => {
    const out = new BoundedOutput(10);
    out.push(Buffer.from('01234'));
    out.push(Buffer.from('56789'));
    expect(out.truncated).toBe(false);
    expect(out.text()).toBe('0123456789');
  });

  it('keeps the first and last halves and says how much is missing', () => {
    const out = new BoundedOutput(10);
    for (const chunk of ['abc', 'defgh', 'ijklmnop', 'qrstuvwxyz']) out.push(Buffer.from(chunk));
    expect(out.truncated).toBe(true);
    expect(out.receivedBytes).toBe(26);
    expect(out.text()).toBe(`abcde\n${truncationLine(16, 26)}\nvwxyz`);
  });

  it('never splits a UTF-8 character at either cut', () => {
    const out = new BoundedOutput(8);
    out.push(Buffer.from('ééééééééé')); // 2 bytes each: the cuts fall inside characters
    const text = out.text();
    expect(text).not.toContain('\uFFFD');
    expect(text.startsWith('éé')).toBe(true);
    expect(text.endsWith('éé')).toBe(true);
  });

  it('keeps exactly the head and tail of any sequence of chunks', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 20 }),
        fc.integer({ min: 2, max: 64 }),
        (chunks, cap) => {
          const out = new BoundedOutput(cap);
          for (const chunk of chunks) out.push(Buffer.from(chunk));
          const all = Buffer.concat(chunks.map((c) => Buffer.from(c)));
          expect(out.receivedBytes).toBe(all.length);
          expect(out.truncated).toBe(all.length > cap);
          if (all.length <= cap) expect(out.text()).toBe(all.toString('utf8'));
        },
      ),
    );
  });
});

describe('ControlStream', () => {
  const READY = '__AGENTTOOL_ready';
  const START = '__AGENTTOOL_start';
  const END = '__AGENTTOOL_end';

  function split(
    input: string,
    cuts: number[],
    markers = [READY, START, END],
  ): { data: string; lines: ControlLine[] } {
    let data = '';
    const lines: ControlLine[] = [];
    const stream = new ControlStream(
      (chunk) => (data += chunk.toString('utf8')),
      (line) => lines.push(line),
    );
    for (const marker of markers) stream.expect(marker);
    const bytes = Buffer.from(input);
    let at = 0;
    for (const cut of [...cuts.filter((c) => c > 0 && c < bytes.length)].sort((a, b) => a - b)) {
      stream.push(bytes.subarray(at, cut));
      at = cut;
    }
    stream.push(bytes.subarray(at));
    return { data, lines };
  }

  it('takes control lines out of the output wherever they land', () => {
    const input = `partial ${START} S 42\nline\n${END} E 0\n`;
    expect(split(input, [])).toEqual({
      data: 'partial line\n',
      lines: [
        { marker: START, kind: 'S', value: '42' },
        { marker: END, kind: 'E', value: '0' },
      ],
    });
  });

  it('gives the same answer however the stream is cut into chunks', () => {
    const input = `a${READY} R\nbc\n${START} S 7\nd${END.slice(0, 5)}e\n${END} E 130\n`;
    const whole = split(input, []);
    expect(whole.lines.map((l) => l.kind)).toEqual(['R', 'S', 'E']);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: input.length - 1 })), (cuts) => {
        expect(split(input, cuts)).toEqual(whole);
      }),
    );
  });

  it('uses each marker once: a copy printed later is output', () => {
    const input = `${START} S 7\n${START} S 99\n${END} E 0\n${END} E 1\n`;
    expect(split(input, [])).toEqual({
      data: `${START} S 99\n${END} E 1\n`,
      lines: [
        { marker: START, kind: 'S', value: '7' },
        { marker: END, kind: 'E', value: '0' },
      ],
    });
  });

  it('passes lines with markers it does not expect through as output', () => {
    const input = `${START} S 7\n${END} E 0\n`;
    expect(split(input, [], [READY])).toEqual({ data: input, lines: [] });
  });

  it('lets a marker without its line end through as output once it is too long to be ours', () => {
    const long = `${START} ${'x'.repeat(300)}`;
    expect(split(long + `\n${END} E 1\n`, [])).toEqual({
      data: `${long}\n`,
      lines: [{ marker: END, kind: 'E', value: '1' }],
    });
  });

  it('hands back what it held for a marker it is told to forget', () => {
    let data = '';
    const stream = new ControlStream(
      (chunk) => (data += chunk.toString('utf8')),
      () => undefined,
    );
    stream.expect(START);
    stream.push(Buffer.from(`out ${START.slice(0, 6)}`));
    expect(data).toBe('out ');
    stream.forget(START);
    expect(data).toBe(`out ${START.slice(0, 6)}`);
  });
});

describe('bashQuote', () => {
  it('makes any text one literal bash word', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\0')),
        (text) => {
          const echoed = execFileSync('bash', ['-c', `printf %s ${bashQuote(text)}`], {
            encoding: 'utf8',
          });
          expect(echoed).toBe(text);
        },
      ),
      { numRuns: 30 },
    );
  });
});

describe('changedPathsNamed', () => {
  const roots = ['/work/space', '/data/'];
  const failed = (said: string) => new Error(`bash could not start: exit status 1: bwrap: ${said}`);

  it("finds the workspace's paths in what bubblewrap says when one changed as it bound it", () => {
    expect(
      changedPathsNamed(
        failed("Can't find source path /work/space/a/.bashrc: No such file or directory"),
        roots,
      ),
    ).toEqual(['/work/space/a/.bashrc']);
    expect(
      changedPathsNamed(
        failed(
          "Can't bind mount /oldroot/dev/null on /newroot/work/space/a/.bashrc: Unable to mount source on destination: No such file or directory",
        ),
        roots,
      ),
    ).toEqual(['/work/space/a/.bashrc']);
    expect(
      changedPathsNamed(
        failed(
          'Can\'t bind mount /oldroot/dev/null on /newroot/data/b/.profile: Unable to remount destination "/newroot/data/b/.profile" with correct flags: Invalid argument',
        ),
        roots,
      ),
    ).toEqual(['/data/b/.profile', '/data/b/.profile']);
    expect(
      changedPathsNamed(
        failed("Can't get type of source /work/space/.git/config: No such file or directory"),
        roots,
      ),
    ).toEqual(['/work/space/.git/config']);
  });

  it('finds nothing outside the writable paths, or in what is not bubblewrap', () => {
    expect(
      changedPathsNamed(failed("Can't find source path /etc/x: No such file or directory"), roots),
    ).toEqual([]);
    // A sibling whose name starts with a root's is not inside it.
    expect(
      changedPathsNamed(failed("Can't find source path /work/spaceship/x: No such file"), roots),
    ).toEqual([]);
    expect(
      changedPathsNamed(new Error('bash could not start: /work/space/a: something'), roots),
    ).toEqual([]);
    expect(changedPathsNamed('not an error', roots)).toEqual([]);
  });
});
