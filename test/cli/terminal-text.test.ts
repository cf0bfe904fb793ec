/**
 * What `agenttool call` shows a person of what a tool or its server chose (a result, a
 * failure, progress, a question): control characters written as `\uXXXX`, so that no
 * escape sequence acts on the terminal; a result piped to a file or a program is left
 * whole, as data.
 */
import { join } from 'node:path';
import { sandboxLine, toolLines } from '../../src/cli/serve-banner';
import { terminalSafe, terminalSafeLines } from '../../src/cli/terminal-text';
import { type Tool } from '../../src/core';
import { FIXTURES, ensureBuilt, killChildren, onTerminal, runAgenttool } from './helpers';

const HOSTILE = join(FIXTURES, 'hostile-app.module.js');
const CLIPBOARD = '\u001b]52;c;ZWNobyBvd25lZA==\u0007';
const LINK = '\u001b]8;;https://evil.example\u0007here\u001b]8;;\u0007';
const LINK_SHOWN = '\\u001b]8;;https://evil.example\\u0007here\\u001b]8;;\\u0007';

beforeAll(() => ensureBuilt(), 300_000);
afterAll(() => killChildren());

describe('text shown on a terminal', () => {
  it('writes every control character as \\uXXXX on one line, and keeps tabs and line ends in lines', () => {
    expect(terminalSafe('a\u001b[2J\nb\u009b\u2028')).toBe('a\\u001b[2J\\u000ab\\u009b\\u2028');
    expect(terminalSafeLines('a\tb\nc\r\nd\re\u0007')).toBe('a\tb\nc\r\nd\\u000de\\u0007');
    // A right-to-left override shows "https://evil.example/moc.doog" as ending in good.com.
    expect(terminalSafeLines('https://evil.example/\u202emoc.doog')).toBe(
      'https://evil.example/\\u202emoc.doog',
    );
    expect(terminalSafe('\u2066x\u2069')).toBe('\\u2066x\\u2069');
  });

  it("shows a failure's and its progress's escape sequences escaped", async () => {
    const crashed = await runAgenttool(['call', HOSTILE, 'crash']);
    expect(crashed).toMatchObject({ code: 1, stdout: '' });
    expect(crashed.stderr).toBe(`Error: it broke\\u001b[2J see ${LINK_SHOWN}\n`);

    const pasted = await runAgenttool(['call', HOSTILE, 'paste']);
    expect(pasted.code).toBe(0);
    expect(pasted.stderr).toContain('paste [############------------] 1/2 copying\\u001b]52;c;');
    expect(pasted.stderr).not.toContain('\u001b');
    // Piped, the result is data: left whole.
    expect(pasted.stdout).toBe('line one\u001b]0;owned\u0007\nsafe\rfaked\ttabbed\r\nlast\n');
  });

  it('shows a result escaped on a terminal, and a question that hides where it leads', async () => {
    const shown = await onTerminal(['call', HOSTILE, 'paste']);
    expect(shown.code).toBe(0);
    // The terminal shows each line end as CR LF (a CR LF as CR CR LF).
    expect(shown.text).toContain(
      'line one\\u001b]0;owned\\u0007\r\nsafe\\u000dfaked\ttabbed\r\r\nlast',
    );
    expect(shown.text).not.toContain(CLIPBOARD);

    const asked = await runAgenttool(['call', HOSTILE, 'phish'], { input: ':cancel\n' });
    expect(asked).toMatchObject({ code: 0, stdout: 'cancel\n' });
    expect(asked.stderr).toContain(
      `? Sign in ${LINK_SHOWN}\n  open: https://evil.example/\\u001b[1A\\u000d  open: https://good.example\n`,
    );
    expect(asked.stderr).not.toContain(LINK);
  });

  it('says at start which tools run confined, their names escaped', () => {
    const tools = [
      {
        name: 'x\u001b]0;t\u0007',
        description: '',
        confined: () => ({ confined: true, by: 'bwrap' }),
      },
      { name: 'y\u0007', description: '' },
    ] as unknown as Tool[];
    expect(sandboxLine(tools)).toBe(
      '  sandbox: x\\u001b]0;t\\u0007 confined by bwrap; y\\u0007 not confined\n',
    );
  });

  it("lists a composed server's tools at start with their names and descriptions escaped", () => {
    const tools = [
      { name: 'ok', description: 'Fine.' },
      { name: 'x\u001b]0;owned\u0007', description: `Looks fine ${LINK}\nsecond line` },
    ] as unknown as Tool[];
    expect(toolLines(tools)).toBe(
      `  ${'ok'.padEnd(21)}  Fine.\n` + `  x\\u001b]0;owned\\u0007  Looks fine ${LINK_SHOWN}\n`,
    );
  });
});
