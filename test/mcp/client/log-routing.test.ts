/**
 * The event-stream rewriting behind telling a server's log lines apart by call: log lines
 * gain the call's mark, everything else passes byte for byte, however the stream is cut.
 */
import { LOG_CALL_META_KEY, logLineTagger } from '../../../src/mcp/client/log-routing';

/** Runs `text` through the tagger for call "7", cut into chunks at `cuts` (byte offsets). */
async function through(text: string, cuts: number[] = []): Promise<string> {
  const bytes = new TextEncoder().encode(text);
  const bounds = [0, ...cuts, bytes.length];
  const chunks = bounds.slice(1).map((end, i) => bytes.slice(bounds[i], end));
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  return new Response(source.pipeThrough(logLineTagger('7'))).text();
}

const log = (params: object): string =>
  JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params });

describe('the log line tagger', () => {
  it('marks a log line with its call, keeping the event id, data and _meta', async () => {
    const event = `id: 12\nevent: message\ndata: ${log({ level: 'info', data: 'hé', _meta: { a: 1 } })}\n\n`;
    const out = await through(event);
    expect(out).toBe(
      `id: 12\nevent: message\ndata: ${log({ level: 'info', data: 'hé', _meta: { a: 1, [LOG_CALL_META_KEY]: '7' } })}\n\n`,
    );
  });

  it('passes every other event byte for byte: results, progress, priming events, comments', async () => {
    const text =
      'id: 1\r\ndata:\r\n\r\n' +
      ': keep-alive\n\n' +
      `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } })}\n\n` +
      `data: ${JSON.stringify({ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'notifications/message' }] } })}\n\n` +
      'data: notifications/message but not JSON\n\n' +
      'retry: 500\n\n';
    expect(await through(text)).toBe(text);
  });

  it('gives the same output however the stream is cut, multi-byte characters included', async () => {
    const text =
      `data: ${log({ level: 'debug', data: 'ünïcödé ✓' })}\n\n` +
      `data: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} })}\r\n\r\n`;
    const whole = await through(text);
    expect(whole).toContain(`"${LOG_CALL_META_KEY}":"7"`);
    const length = new TextEncoder().encode(text).length;
    for (let cut = 1; cut < length; cut++) {
      expect(await through(text, [cut])).toBe(whole);
    }
    expect(await through(text, [3, 40, 41, 90, length - 1])).toBe(whole);
  });

  it('joins a log line written over several data lines, as SSE does', async () => {
    const out = await through(
      'data: {"jsonrpc":"2.0","method":"notifications/message",\ndata: "params":{"level":"info","data":"x"}}\n\n',
    );
    expect(out).toBe(
      `data: ${log({ level: 'info', data: 'x', _meta: { [LOG_CALL_META_KEY]: '7' } })}\n\n`,
    );
  });

  it("marks the server's questions and sampling requests, which MCP ties to no call either", async () => {
    const ask = { jsonrpc: '2.0', id: 9, method: 'elicitation/create', params: { message: 'ok?' } };
    const sample = { jsonrpc: '2.0', id: 10, method: 'sampling/createMessage', params: {} };
    // A result that mentions them, and a notification so named, are not requests.
    const answer = { jsonrpc: '2.0', id: 3, result: { text: 'elicitation/create' } };
    const notice = { jsonrpc: '2.0', method: 'elicitation/create', params: {} };
    const out = await through(
      [ask, sample, answer, notice].map((m) => `data: ${JSON.stringify(m)}\n\n`).join(''),
    );
    // A server may escape the slash, as PHP's json_encode does.
    const escaped = `data: {"jsonrpc":"2.0","id":11,"method":"elicitation\\/create","params":{"message":"x"}}\n\n`;
    expect(await through(escaped)).toContain(`"${LOG_CALL_META_KEY}":"7"`);
    const tag = { _meta: { [LOG_CALL_META_KEY]: '7' } };
    expect(out).toBe(
      [{ ...ask, params: { ...ask.params, ...tag } }, { ...sample, params: tag }, answer, notice]
        .map((m) => `data: ${JSON.stringify(m)}\n\n`)
        .join(''),
    );
  });

  it('passes an unfinished last event on as it came', async () => {
    const unfinished = `data: ${log({ level: 'info', data: 'cut' })}\n`;
    expect(await through(unfinished)).toBe(unfinished);
  });
});
