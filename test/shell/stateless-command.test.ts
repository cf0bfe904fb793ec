/**
 * Which commands the driver tells the shell cannot change its state (their jobs then
 * skip the save, unless the shell knows the first word as a function, an alias or a
 * builtin that changes state: test/shell/shell.test.ts holds the shell to that part).
 */
import { commandMessage } from '../../src/shell/command-message';
import { statelessCommandWord } from '../../src/shell/stateless-command';

describe('statelessCommandWord', () => {
  it.each([
    ['true', 'true'],
    ['ls -la src', 'ls'],
    ['  git status --short', 'git'],
    ['grep -rn "a b" src/ | head -20', 'grep'],
    ["sed -n '1,20p' file.ts", 'sed'],
    ['npm test 2>/dev/null', 'npm'],
    ['./scripts/build.sh --fast', './scripts/build.sh'],
    ['/usr/bin/env python3 -V', '/usr/bin/env'],
    ['ls *.ts {a,b}.md', 'ls'],
    ['cd', 'cd'],
  ])('%j starts with the plain word %j', (command, word) => {
    expect(statelessCommandWord(command)).toBe(word);
  });

  it.each([
    ['x=1', 'an assignment'],
    ['FOO=1 ls', 'an assignment before the command'],
    ['ls; cd /', 'a list'],
    ['ls\ncd /', 'a list on lines'],
    ['true && cd /', 'an and-list'],
    ['false || cd /', 'an or-list'],
    ['sleep 1 &', 'a background job'],
    ['ls |& cat', 'a pipeline of both streams (&)'],
    ['echo $HOME', 'a parameter expansion'],
    ['echo ${x:=1}', 'an expansion that assigns'],
    ['echo `cd /`', 'a command substitution'],
    ['cat <(ls)', 'a process substitution'],
    ['(cd /)', 'a subshell'],
    ['{ cd /; }', 'a group'],
    ['ls {fd}>out', 'a redirection that names a descriptor'],
    ['ls >out {fd}', 'a brace beside a redirection'],
    ["'cd' /", 'a quoted first word'],
    ['\\cd /', 'an escaped first word'],
    ['{cd,/}', 'a first word that brace-expands'],
    ['c? /', 'a first word that globs'],
    ['~/bin/x', 'a first word with a tilde'],
    ['%1', 'a job spec'],
    ['ls\r', 'a carriage return'],
    ['', 'nothing'],
    ['   ', 'blanks'],
    ['# a comment', 'a comment'],
  ])('%j is not shown stateless (%s)', (command) => {
    expect(statelessCommandWord(command)).toBeUndefined();
  });
});

describe('commandMessage', () => {
  const start = `__AGENTTOOL_${'1'.repeat(32)}`;
  const end = `__AGENTTOOL_${'2'.repeat(32)}`;
  const head = (codePoints: number, bytes: number): string =>
    `${start} ${codePoints.toString(16).padStart(8, '0')} ${bytes.toString(16).padStart(8, '0')}`;

  it('gives the first word of a command that cannot change the state a line before it', () => {
    expect(commandMessage('ls -l', start, end)).toBe(`${head(9, 9)}:ls\nls -l\0E ${end}\n`);
    expect(commandMessage('cd /', start, end)).toBe(`${head(8, 8)}:cd\ncd /\0E ${end}\n`);
  });

  it('leaves that line empty for any other command', () => {
    expect(commandMessage('a=1; ls', start, end)).toBe(`${head(9, 9)}:\na=1; ls\0E ${end}\n`);
  });

  it('counts what follows the head up to the NUL in code points and in UTF-8 bytes', () => {
    // é is 2 bytes, € 3, an emoji 4 (two UTF-16 units), a lone surrogate 3 (U+FFFD).
    const command = 'echo é€\u{1F600}\ud800';
    const text = `:echo\n${command}`;
    expect(commandMessage(command, start, end)).toBe(`${head(15, 23)}${text}\0E ${end}\n`);
    expect(Buffer.byteLength(text)).toBe(23);
    expect([...text]).toHaveLength(15);
  });
});
