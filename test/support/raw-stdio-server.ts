/**
 * The source of a plain MCP server over stdio, written by hand (no SDK), for
 * `node -e`: it reads one JSON-RPC message a line and runs `onMessage` with `message`
 * and `send(message)` (which adds `jsonrpc`) in scope, after `prelude`. A server that
 * breaks the protocol where a test needs it to, started as a host starts one.
 */
export function rawStdioServer(onMessage: string, prelude = ''): string {
  return `${prelude}
let buffer = '';
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\\n');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  for (let end = buffer.indexOf('\\n'); end >= 0; end = buffer.indexOf('\\n')) {
    const message = JSON.parse(buffer.slice(0, end));
    buffer = buffer.slice(end + 1);
    ${onMessage}
  }
});
`;
}
