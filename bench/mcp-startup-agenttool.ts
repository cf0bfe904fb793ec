// Start-up child: 200 decorated tools served by agenttool's server (mcp-startup.bench).
import { toolFromInstance } from 'agenttool';
import { serveTools } from 'agenttool/mcp';
import { decoratedNoop } from './mcp-noop-decorated';
import { listOnce, runMain, TOOLS } from './mcp-startup-list';

runMain(async () => {
  const imported = performance.now();
  const classes = Array.from({ length: TOOLS }, (_, i) => decoratedNoop(`tool_${i}`));
  const server = serveTools(classes.map((Class) => toolFromInstance(new Class())));
  const registered = performance.now();
  let handler: { fetch(request: Request): Promise<Response> } | undefined;
  await listOnce(imported, registered, {
    connect: (transport) => server.connect(transport),
    fetch: (request) => (handler ??= server.handler()).fetch(request),
    close: () => server.close(),
  });
});
