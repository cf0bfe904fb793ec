/**
 * A 2025-era MCP server over stdio, as a plain script (`node -e NOTES_UPSTREAM <journal>`):
 * resources `notes://a`, `notes://b` and the template `items://{id}`, which offer
 * subscriptions. It writes down, in the journal file its argument names, its start and
 * each `resources/subscribe` and `resources/unsubscribe` it is sent (`<pid> subscribe
 * <uri>`); its tool `touch` says a resource changed, `flood` that many nobody follows
 * did. `items://wordy` and `items://gone` refuse a subscription.
 */
export const NOTES_UPSTREAM = `
const { appendFileSync } = require('node:fs');
const note = (line) => appendFileSync(process.argv[1], process.pid + ' ' + line + '\\n');
note('start');
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
const updated = (uri) => send({ method: 'notifications/resources/updated', params: { uri } });
const schema = (name, type) => ({ type: 'object', properties: { [name]: { type } }, required: [name] });
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  const p = m.params || {};
  if (m.id === undefined) return;
  const answer = (result) => send({ id: m.id, result });
  switch (m.method) {
    case 'initialize':
      return answer({ protocolVersion: p.protocolVersion, serverInfo: { name: 'notes', version: '1' },
        capabilities: { tools: {}, resources: { subscribe: true } } });
    case 'tools/list':
      return answer({ tools: [
        { name: 'touch', description: 'Says a resource changed', inputSchema: schema('uri', 'string') },
        { name: 'flood', description: 'Says many unfollowed resources changed', inputSchema: schema('count', 'integer') },
      ] });
    case 'tools/call':
      if (p.name === 'touch') updated(p.arguments.uri);
      else for (let i = 0; i < p.arguments.count; i++) updated('unfollowed://' + i);
      return answer({ content: [{ type: 'text', text: 'done' }] });
    case 'resources/list':
      return answer({ resources: [{ uri: 'notes://a', name: 'a' }, { uri: 'notes://b', name: 'b' }] });
    case 'resources/templates/list':
      return answer({ resourceTemplates: [{ uriTemplate: 'items://{id}', name: 'items' }] });
    case 'resources/read':
      return answer({ contents: [{ uri: p.uri, text: 'text of ' + p.uri }] });
    case 'resources/subscribe':
      if (p.uri === 'items://wordy') {
        return send({ id: m.id, error: { code: -32602, message: 'no '.repeat(2000), data: { uri: p.uri } } });
      }
      if (p.uri === 'items://gone') {
        return send({ id: m.id, error: { code: -32602, message: 'Resource items://gone not found', data: { uri: p.uri } } });
      }
      note('subscribe ' + p.uri);
      return answer({});
    case 'resources/unsubscribe':
      note('unsubscribe ' + p.uri);
      return answer({});
    default:
      return answer({});
  }
});
`;
