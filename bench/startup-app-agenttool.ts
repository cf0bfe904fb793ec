// A start-up child: a user's own app, served over stdio (McpToolServer.serveStdio) with
// the no-op tool; what `node app.js` does when a host spawns it.
import { toolFromInstance } from 'agenttool';
import { McpToolServer } from 'agenttool/mcp';
import { decoratedNoop } from './mcp-noop-decorated';

const server = new McpToolServer([toolFromInstance(new (decoratedNoop('noop'))())], {
  name: 'startup-app',
  version: '0',
});
void server.serveStdio();
