import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  APP,
  CLI,
  ensureBuilt,
  killChildren,
  onTerminal,
  runAgenttool,
  startAgenttool,
  tempDir,
} from './helpers';

beforeAll(() => ensureBuilt(), 300_000);
afterAll(() => killChildren());

const serveApp = `"${process.execPath}" "${CLI}" serve "${APP}"`;

describe('agenttool call on a module file', () => {
  it('prints the output and exits 0, and only the output on stdout', async () => {
    const ran = await runAgenttool(['call', APP, 'echo', '{"text": "hello there"}'], {
      env: { CLI_FIXTURE_LOG: '1' },
    });
    expect(ran).toMatchObject({ code: 0, stdout: 'hello there\n' });
    expect(ran.stderr).toBe('cli-app fixture loaded\n');
  });

  it('shows progress as plain lines on stderr when it is not a terminal', async () => {
    const ran = await runAgenttool(['call', APP, 'count', '{"n": 3}']);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toBe('counted to 3\n');
    const lines = ran.stderr.split('\n').filter((l) => l.startsWith('count '));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^count \[#{8}-{16}\] 1\/3 step 1$/);
    expect(lines[2]).toMatch(/^count \[#{24}\] 3\/3 step 3$/);
  });

  it('shows progress as one line redrawn in place on a terminal, cleared before the output', async () => {
    const shown = await onTerminal(['call', APP, 'count', '{"n": 3}']);
    expect(shown.code).toBe(0);
    const redraw = '\r\x1b[2K';
    expect(shown.text).toBe(
      `${redraw}count [########----------------] 1/3 step 1` +
        `${redraw}count [################--------] 2/3 step 2` +
        `${redraw}count [########################] 3/3 step 3` +
        `${redraw}counted to 3\r\n`,
    );
  });

  it('puts a form question to the person field by field, re-asking on a bad answer', async () => {
    const ran = await runAgenttool(['call', APP, 'ask'], { input: 'Ada\nforty\n36\n2\ny\n' });
    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual({
      action: 'accept',
      content: { name: 'Ada', age: 36, color: 'green', subscribe: true },
    });
    expect(ran.stderr).toContain('? Tell me about yourself');
    expect(ran.stderr).toContain('name - Your name (string, required): ');
    expect(ran.stderr).toContain('age: give a number');
    expect(ran.stderr).toContain('color (one of 1) red, 2) green)');
  });

  it('skips optional fields left empty and re-asks a required one', async () => {
    const ran = await runAgenttool(['call', APP, 'ask'], { input: '\nLin\n\n\n\n' });
    expect(JSON.parse(ran.stdout)).toEqual({ action: 'accept', content: { name: 'Lin' } });
    expect(ran.stderr).toContain('name is required');
  });

  it('takes :decline as a refusal and the end of input as cancel', async () => {
    const declined = await runAgenttool(['call', APP, 'ask'], { input: 'Ada\n:decline\n' });
    expect(JSON.parse(declined.stdout)).toEqual({ action: 'decline' });
    const cancelled = await runAgenttool(['call', APP, 'ask'], { input: '' });
    expect(JSON.parse(cancelled.stdout)).toEqual({ action: 'cancel' });
  });

  it('prints a URL question with its address and accepts on Enter', async () => {
    const ran = await runAgenttool(['call', APP, 'visit'], { input: '\n' });
    expect(ran).toMatchObject({ code: 0, stdout: 'accept\n' });
    expect(ran.stderr).toContain('? Authorize the demo\n  open: https://example.com/authorize\n');
  });

  it('exits 1 with the error when the tool fails', async () => {
    const ran = await runAgenttool(['call', APP, 'fail']);
    expect(ran).toMatchObject({ code: 1, stdout: '' });
    expect(ran.stderr).toBe('Error: it broke on purpose\n');
  });

  it('appends the records durably as JSON lines with --record, during the call and at its end', async () => {
    const file = join(tempDir(), 'records.jsonl');
    const first = await runAgenttool(['call', APP, 'note', '{"text":"one"}', '--record', file]);
    const second = await runAgenttool(['call', APP, 'note', '{"text":"two"}', '--record', file]);
    expect([first.code, second.code]).toEqual([0, 0]);
    const lines = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([
      expect.objectContaining({
        call: 'call_1',
        tool: 'note',
        moment: 'during',
        ns: 'fixture:note',
        data: { text: 'one' },
      }),
      expect.objectContaining({
        moment: 'end',
        ns: 'fixture:noted',
        data: { text: 'one', done: true },
      }),
      expect.objectContaining({ moment: 'during', ns: 'fixture:note', data: { text: 'two' } }),
      expect.objectContaining({
        moment: 'end',
        ns: 'fixture:noted',
        data: { text: 'two', done: true },
      }),
    ]);
    expect(Number.isNaN(Date.parse(String(lines[0]?.['time'])))).toBe(false);
  });

  it("appends a failure's recordable details with --record, as the end of the call", async () => {
    const file = join(tempDir(), 'failure.jsonl');
    const ran = await runAgenttool(['call', APP, 'fail', '--record', file]);
    expect(ran.code).toBe(1);
    const line = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(line).toMatchObject({
      call: 'call_1',
      tool: 'fail',
      moment: 'end',
      ns: 'fixture:failure',
      data: { why: 'on purpose' },
    });
  });

  it('exits 70, saying why, when a tool awaits what nothing will settle', async () => {
    const ran = await runAgenttool(['call', APP, 'stall']);
    expect(ran.code).toBe(70);
    expect(ran.stderr).toContain('the command stopped with nothing left to run');
  });

  it('interrupts the call on SIGINT, closes the app and exits 130', async () => {
    const journal = join(tempDir(), 'journal.txt');
    const running = startAgenttool(['call', APP, 'wait'], {
      env: { CLI_FIXTURE_JOURNAL: journal },
    });
    running.stdin.end();
    await running.waitForStderr(/wait waiting for an interrupt/);
    running.process.kill('SIGINT');
    const ran = await running.done;
    expect(ran.code).toBe(130);
    expect(ran.stderr).toContain('agenttool: wait: interrupted');
    expect(readFileSync(journal, 'utf8')).toBe('wait tool closed\njournal closed\n');
  });
});

describe('agenttool call: bad input gets one line and exit 2', () => {
  const oneLine = (stderr: string): string => {
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    return stderr;
  };

  it('names the closest tools for an unknown one', async () => {
    const ran = await runAgenttool(['call', APP, 'ecko', '{}']);
    expect(ran.code).toBe(2);
    expect(oneLine(ran.stderr)).toBe(
      'agenttool: no tool named "ecko" in module CliAppModule; did you mean echo?\n',
    );
  });

  it('lists the tools when none is close', async () => {
    const ran = await runAgenttool(['call', APP, 'zzzzzzzzzz']);
    expect(ran.code).toBe(2);
    expect(oneLine(ran.stderr)).toContain(
      'its tools: echo, count, ask, visit, fail, note, wait, stall',
    );
  });

  it('refuses arguments that are not JSON, or not an object', async () => {
    const notJson = await runAgenttool(['call', APP, 'echo', '{text: hi}']);
    expect(notJson.code).toBe(2);
    expect(oneLine(notJson.stderr)).toMatch(
      /^agenttool: the arguments for echo are not JSON \(.+\); give one JSON object/,
    );
    const array = await runAgenttool(['call', APP, 'echo', '[1]']);
    expect(array.code).toBe(2);
    expect(oneLine(array.stderr)).toBe(
      'agenttool: the arguments for echo must be a JSON object, got [1]\n',
    );
  });

  it("refuses arguments that do not fit the tool's schema, in the contract's words", async () => {
    const ran = await runAgenttool(['call', APP, 'echo', '{"text": 5}']);
    expect(ran.code).toBe(2);
    expect(oneLine(ran.stderr)).toBe(
      'agenttool: echo: invalid arguments: text: expected string, got 5\n',
    );
  });

  it('refuses a module file that exports no module, and says which exports it saw', async () => {
    const ran = await runAgenttool(['call', join(APP, '../no-module.js'), 'echo']);
    expect(ran.code).toBe(2);
    expect(oneLine(ran.stderr)).toMatch(
      /exports no @Module class \(its exports: NotAModule, answer\)/,
    );
  });

  it('asks which module when a file exports several, and takes file#Name', async () => {
    const file = join(APP, '../two-modules.js');
    const ambiguous = await runAgenttool(['call', file, 'second_tool']);
    expect(ambiguous.code).toBe(2);
    expect(oneLine(ambiguous.stderr)).toContain(
      'exports several @Module classes (FirstModule, SecondModule)',
    );
    const picked = await runAgenttool(['call', `${file}#SecondModule`, 'second_tool']);
    expect(picked).toMatchObject({ code: 0, stdout: 'second\n' });
  });

  it('says a TypeScript module file must be built first, naming the built file', async () => {
    const ran = await runAgenttool(['call', 'test/cli/fixtures/cli-app.module.ts', 'echo']);
    expect(ran.code).toBe(2);
    expect(oneLine(ran.stderr)).toContain(
      'is TypeScript; agenttool loads compiled JavaScript: build it first (e.g. npm run build) and give the .js file, here dist/test/cli/fixtures/cli-app.module.js',
    );
  });

  it('refuses a missing file, a missing tool name and unknown options', async () => {
    expect((await runAgenttool(['call', 'nowhere.js', 'echo'])).code).toBe(2);
    expect((await runAgenttool(['call', APP])).code).toBe(2);
    expect((await runAgenttool(['call', APP, 'echo', '--bogus'])).code).toBe(2);
  });
});

describe('agenttool call on an MCP server over stdio', () => {
  it('calls through the client, with progress and the form question put to the person', async () => {
    const counted = await runAgenttool(['call', '--stdio', serveApp, 'count', '{"n": 2}']);
    expect(counted.code).toBe(0);
    expect(counted.stdout).toBe('counted to 2\n');
    expect(counted.stderr).toMatch(/^count \[#{24}\] 2\/2 step 2$/m);
    const asked = await runAgenttool(['call', '--stdio', serveApp, 'ask'], {
      input: 'Grace\n\n1\nno\n',
    });
    expect(asked.code).toBe(0);
    expect(JSON.parse(asked.stdout)).toEqual({
      action: 'accept',
      content: { name: 'Grace', color: 'red', subscribe: false },
    });
  });

  it.each(['modern', 'legacy'])(
    'speaks the era --protocol %s names, questions and all',
    async (protocol) => {
      const asked = await runAgenttool(
        ['call', '--stdio', serveApp, '--protocol', protocol, 'ask'],
        { input: 'Ada\n\n2\nyes\n' },
      );
      expect(asked.code).toBe(0);
      expect(JSON.parse(asked.stdout)).toEqual({
        action: 'accept',
        content: { name: 'Ada', color: 'green', subscribe: true },
      });
    },
  );

  it('refuses a --protocol it does not know', async () => {
    const wrong = await runAgenttool(['call', '--stdio', serveApp, '--protocol', 'v1', 'ask']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(
      "argument 'v1' is invalid. Allowed choices are auto, modern, legacy.",
    );
  });

  it('exits 1 for an error result and 3 when the server cannot be started', async () => {
    const failed = await runAgenttool(['call', '--stdio', serveApp, 'fail']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('Error: it broke on purpose');
    const missing = await runAgenttool(['call', '--stdio', 'agenttool-no-such-command', 'echo']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(
      /^agenttool: stdio agenttool-no-such-command: mcp: connect: .*ENOENT/m,
    );
  });
});

describe('agenttool call --record on a served tool', () => {
  // What crosses MCP as a record is the record of the result's details (mcpserver/mcp.go
  // puts it under _meta[RecordMetaKey], on success and error results; mcpclient makes it
  // the details): the file gets it as the end of the call, the line a module file's call
  // writes. What the tool records while it runs stays with the server's recorder.
  it('appends the record of the result and of a failure, as the end of the call', async () => {
    const server = startAgenttool(['serve', APP, '--http', '0']);
    const [, url] = await server.waitForStderr(/at (http:\S+)\n/);
    const file = join(tempDir(), 'remote.jsonl');
    const noted = await runAgenttool([
      'call',
      '--http',
      url!,
      'note',
      '{"text":"remote"}',
      '--record',
      file,
    ]);
    const failed = await runAgenttool(['call', '--http', url!, 'fail', '--record', file]);
    server.process.kill('SIGTERM');
    await server.done;
    expect([noted.code, failed.code]).toEqual([0, 1]);
    const lines = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([
      expect.objectContaining({
        call: 'call_1',
        tool: 'note',
        moment: 'end',
        ns: 'fixture:noted',
        data: { text: 'remote', done: true },
      }),
      expect.objectContaining({
        call: 'call_1',
        tool: 'fail',
        moment: 'end',
        ns: 'fixture:failure',
        data: { why: 'on purpose' },
      }),
    ]);
  });
});
