// Unit tests of the command's intricate parts; the commands themselves are tested by
// running the built `agenttool` (call, list, serve tests).
import { Writable } from 'node:stream';
import { ProgressInfo } from 'agenttool';
import { closestNames, editDistance } from '../../src/cli/closest';
import { splitCommandLine } from '../../src/cli/command-line';
import { CliError } from '../../src/cli/exit-codes';
import { ProgressDisplay, describeProgress } from '../../src/cli/progress';
import { annotationsText, table } from '../../src/cli/list';
import { describeField } from '../../src/cli/prompts';
import { recordLine } from '../../src/core/record-file';
import { parseAddress } from '../../src/cli/serve';

function sink(isTTY: boolean): Writable & { text: string; isTTY: boolean; columns: number } {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      stream.text += chunk.toString();
      done();
    },
  }) as Writable & { text: string; isTTY: boolean; columns: number };
  stream.text = '';
  stream.isTTY = isTTY;
  stream.columns = 50;
  return stream;
}

describe('closest names', () => {
  it('measures edits', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
  });

  it('suggests near names first, and names that contain the typed one', () => {
    const tools = ['read_file', 'write_file', 'append_file', 'bash', 'restart'];
    expect(closestNames('read_fle', tools)).toEqual(['read_file']);
    expect(closestNames('rite_file', tools)).toEqual(['write_file', 'read_file']);
    expect(closestNames('file', tools)).toEqual(['read_file', 'write_file', 'append_file']);
    expect(closestNames('zzzzzz', tools)).toEqual([]);
  });
});

describe('splitting a --stdio command line', () => {
  it('splits words as a shell does, without expanding', () => {
    expect(splitCommandLine(`node "my server.js" --name 'a b' x\\ y $HOME ""`)).toEqual([
      'node',
      'my server.js',
      '--name',
      'a b',
      'x y',
      '$HOME',
      '',
    ]);
    expect(splitCommandLine('  ')).toEqual([]);
    expect(splitCommandLine(`say "a \\"quoted\\" word"`)).toEqual(['say', 'a "quoted" word']);
  });

  it('refuses an unterminated quote', () => {
    expect(() => splitCommandLine(`node 'x`)).toThrow(CliError);
  });
});

describe('progress', () => {
  it('draws a bar for a known total and a count otherwise', () => {
    expect(describeProgress('count', { output: '', details: new ProgressInfo(1, 4, 'one') })).toBe(
      'count [######------------------] 1/4 one',
    );
    expect(describeProgress('scan', { output: '', details: new ProgressInfo(7, 0, 'files') })).toBe(
      'scan 7 files',
    );
    expect(describeProgress('bash', { output: 'line\nof output' })).toBe('bash line of output');
    // A server's keepalive moves the numbers on by a millionth, which is not shown.
    const nudged = new ProgressInfo(3 + 3 * 2 ** -20, 10, '');
    expect(describeProgress('copy', { output: '', details: nudged })).toBe(
      'copy [#######-----------------] 3/10',
    );
    expect(describeProgress('scan', { output: '', details: new ProgressInfo(2.5, 0, '') })).toBe(
      'scan 2.5',
    );
    // Large numbers keep their digits; a nudged one reads whole.
    const large = new ProgressInfo(1234567 + 1234567 * 2 ** -40, 0, '');
    expect(describeProgress('rows', { output: '', details: large })).toBe('rows 1234567');
    expect(
      describeProgress('rows', { output: '', details: new ProgressInfo(2500000.5, 0, '') }),
    ).toBe('rows 2500000.5');
  });

  it('redraws one line in place on a terminal, truncated to its width, and clears it', () => {
    const tty = sink(true);
    const display = new ProgressDisplay(tty);
    display.update('count', {
      output: '',
      details: new ProgressInfo(1, 2, 'a long message that will not fit'),
    });
    display.update('count', { output: '', details: new ProgressInfo(2, 2, 'done') });
    display.clear();
    const frames = tty.text.split('\r\x1b[2K');
    expect(frames).toEqual([
      '',
      'count [############------------] 1/2 a long mess…',
      'count [########################] 2/2 done',
      '',
    ]);
    expect(tty.text).not.toContain('\n');
  });

  it('writes plain lines elsewhere', () => {
    const pipe = sink(false);
    const display = new ProgressDisplay(pipe);
    display.update('count', { output: '', details: new ProgressInfo(1, 2, 'a') });
    display.clear();
    expect(pipe.text).toBe('count [############------------] 1/2 a\n');
  });

  it('stops plain lines at the byte budget with one truncation line', () => {
    const pipe = sink(false);
    const display = new ProgressDisplay(pipe, false, 100);
    for (let i = 1; i <= 50; i++) {
      display.update('count', { output: '', details: new ProgressInfo(i, 0, 'step') });
    }
    const lines = pipe.text.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.at(-1)).toBe('[progress truncated]');
    expect(lines.filter((l) => l === '[progress truncated]')).toHaveLength(1);
    const kept = lines.slice(0, -1).join('\n').length + 1;
    expect(kept).toBeLessThanOrEqual(100);
    expect(lines.slice(0, -1)).toEqual(
      Array.from({ length: lines.length - 1 }, (_, i) => `count ${i + 1} step`),
    );
    expect(lines.length - 1).toBe(Math.floor(100 / 'count 1 step\n'.length));
  });

  it('gives each call 64 KiB of plain lines by default', () => {
    const pipe = sink(false);
    const display = new ProgressDisplay(pipe, false);
    for (let i = 1; i <= 10_000; i++) {
      display.update('count', { output: '', details: new ProgressInfo(i, 0, 'x'.repeat(40)) });
    }
    expect(Buffer.byteLength(pipe.text)).toBeLessThanOrEqual(64 * 1024 + 21);
    expect(pipe.text.endsWith('\n[progress truncated]\n')).toBe(true);
  });
});

describe('annotations as `agenttool list` prints them', () => {
  const stated = {
    title: '',
    readOnly: false,
    destructive: false,
    idempotent: false,
    openWorld: false,
  };

  it('says every stated hint in words, false ones included', () => {
    expect(annotationsText(stated)).toBe('writes (additive only), closed world');
    expect(
      annotationsText({ ...stated, destructive: true, idempotent: true, openWorld: true }),
    ).toBe('writes (destructive), idempotent, open world');
    // Destructive and idempotent say nothing of a tool that only reads.
    expect(annotationsText({ ...stated, readOnly: true, destructive: true, title: 'Read' })).toBe(
      'read-only, closed world, title "Read"',
    );
  });

  it('says unstated for a tool that states none', () => {
    expect(annotationsText(null)).toBe('unstated');
  });
});

describe('tables as `agenttool list` prints them', () => {
  it("shows a server's control characters escaped, so that none acts on the terminal", () => {
    const name = 'tool\u001b[2J\u001b]0;owned\u0007\nNAME  fake';
    const shown = 'tool\\u001b[2J\\u001b]0;owned\\u0007\\u000aNAME  fake';
    expect(table(['NAME', 'HASH'], [[name, 'abc']])).toBe(
      `${'NAME'.padEnd(shown.length)}  HASH\n${shown}  abc`,
    );
  });
});

describe('form fields', () => {
  it('reads each type, applies defaults and says what is wrong', () => {
    const age = describeField('age', { type: 'integer', default: 30 }, false);
    expect(age.prompt).toBe('age (integer, default 30)');
    expect(age.parse('')).toEqual({ value: 30 });
    expect(age.parse('4.5')).toEqual({ error: 'age: give a whole number' });
    expect(age.parse('41')).toEqual({ value: 41 });
    const ok = describeField('ok', { type: 'boolean' }, true);
    expect(ok.parse('')).toEqual({ error: 'ok is required' });
    expect(ok.parse('Yes')).toEqual({ value: true });
    expect(ok.parse('maybe')).toEqual({ error: 'ok: answer yes or no' });
    const size = describeField(
      'size',
      {
        type: 'string',
        oneOf: [
          { const: 's', title: 'Small' },
          { const: 'l', title: 'Large' },
        ],
      },
      false,
    );
    expect(size.prompt).toBe('size (one of 1) s (Small), 2) l (Large))');
    expect([size.parse('2'), size.parse('Small'), size.parse('s'), size.parse('')]).toEqual([
      { value: 'l' },
      { value: 's' },
      { value: 's' },
      {},
    ]);
    expect(size.parse('medium').error).toContain('choose one of');
  });
});

describe('record lines', () => {
  it('keeps the data as written, on one line', () => {
    const line = recordLine(
      { ns: 'shell:process-group', data: '{\n  "pgid": 12345678901234567890\n}' },
      { call: 'call_1', tool: 'bash', moment: 'during' },
    );
    expect(line).not.toContain('\n');
    expect(line).toMatch(
      /^\{"time":"[^"]+","call":"call_1","tool":"bash","moment":"during","ns":"shell:process-group","data":\{ {2}"pgid": 12345678901234567890\}\}$/,
    );
  });
});

describe('--http addresses', () => {
  it('reads a port, host:port and [ipv6]:port', () => {
    expect(parseAddress('3333')).toEqual({ port: 3333 });
    expect(parseAddress('0.0.0.0:80')).toEqual({ host: '0.0.0.0', port: 80 });
    expect(parseAddress('[::1]:3000')).toEqual({ host: '::1', port: 3000 });
    expect(() => parseAddress('70000')).toThrow(CliError);
    expect(() => parseAddress('host:')).toThrow(CliError);
  });
});
