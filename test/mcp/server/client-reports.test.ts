/**
 * What a client can make the server write to its log: at most ten reports of its
 * refused requests per place and minute, then one line saying how many were left out;
 * the server's own faults all reported. Through the served handler with the default
 * reporter (stderr), and the throttle's window alone with Jest's clock.
 */
import { McpToolServer } from 'agenttool/mcp';
import { newTool } from 'agenttool';
import {
  CLIENT_REPORTS_PER_WINDOW,
  plainError,
  throttlingClientReports,
} from '../../../src/mcp/server/plain-errors';

afterEach(() => {
  jest.restoreAllMocks();
  jest.useRealTimers();
});

test('a client sending refused requests as fast as it can gets ten lines written a minute', async () => {
  const written: string[] = [];
  jest.spyOn(console, 'error').mockImplementation((text: unknown) => {
    written.push(String(text));
  });
  const server = new McpToolServer({
    tools: [newTool({ name: 'echo', execute: (call) => Promise.resolve({ output: call.args }) })],
  });
  const handler = server.handler();
  for (let i = 0; i < 40; i++) {
    const answer = await handler.fetch(
      new Request('http://localhost/mcp', {
        method: 'POST',
        headers: {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'mcp-protocol-version': '2026-07-28',
          // Without the envelope a 2026-07-28 request carries: the SDK refuses it (400).
          'mcp-method': 'tools/call',
          'mcp-name': 'echo',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: { name: 'echo', arguments: {} },
        }),
      }),
    );
    expect(answer.status).toBe(400);
  }
  const refusals = written.filter((line) =>
    line.includes('Rejected inbound request (modern-header-without-claim)'),
  );
  expect(refusals).toHaveLength(CLIENT_REPORTS_PER_WINDOW);
  expect(written).toHaveLength(CLIENT_REPORTS_PER_WINDOW);
  expect(refusals[0]).toMatch(/^mcp: http\nError: Rejected inbound request/);
  // Closing ends the window: the count is written now, not lost or written after the close.
  await server.close();
  expect(written).toHaveLength(CLIENT_REPORTS_PER_WINDOW + 1);
  expect(written.at(-1)).toBe(
    'mcp: http\nError: 30 more like this in the last 60 s were not reported (at most 10 are)',
  );
});

test('past the count, the window ends with one line of how many were left out', () => {
  jest.useFakeTimers();
  const reported: string[] = [];
  const report = throttlingClientReports(
    (message, error) => reported.push(`${message}: ${(error as Error).message}`),
    3,
    1000,
  );
  for (let i = 0; i < 7; i++) report('mcp: http', plainError(`bad request ${i}`));
  report('mcp: stdio', plainError('bad line'));
  // The server's own faults are not a client's doing: every one is written.
  for (let i = 0; i < 5; i++) report('mcp: http', new Error(`fault ${i}`));
  expect(reported).toEqual([
    'mcp: http: bad request 0',
    'mcp: http: bad request 1',
    'mcp: http: bad request 2',
    'mcp: stdio: bad line',
    'mcp: http: fault 0',
    'mcp: http: fault 1',
    'mcp: http: fault 2',
    'mcp: http: fault 3',
    'mcp: http: fault 4',
  ]);
  jest.advanceTimersByTime(1000);
  expect(reported.slice(9)).toEqual([
    'mcp: http: 4 more like this in the last 1 s were not reported (at most 3 are)',
  ]);
  // A new window writes again.
  report('mcp: http', plainError('bad request 7'));
  expect(reported.at(-1)).toBe('mcp: http: bad request 7');
  jest.advanceTimersByTime(1000);
  expect(reported).toHaveLength(11);
});

test('flush ends every open window at once, and their timers with them', () => {
  jest.useFakeTimers();
  const reported: string[] = [];
  const report = throttlingClientReports(
    (message, error) => reported.push(`${message}: ${(error as Error).message}`),
    1,
    1000,
  );
  for (let i = 0; i < 3; i++) report('mcp: http', plainError(`bad request ${i}`));
  report('mcp: stdio', plainError('bad line'));
  expect(jest.getTimerCount()).toBe(2);
  report.flush();
  expect(reported).toEqual([
    'mcp: http: bad request 0',
    'mcp: stdio: bad line',
    'mcp: http: 2 more like this in the last 1 s were not reported (at most 1 are)',
  ]);
  expect(jest.getTimerCount()).toBe(0);
  jest.advanceTimersByTime(5000);
  expect(reported).toHaveLength(3);
});
