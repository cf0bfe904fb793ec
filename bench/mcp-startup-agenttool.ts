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
  await listOnce(
    imported,
    registered,
    (transport) => server.connect(transport),
    () => server.close(),
  );
});
