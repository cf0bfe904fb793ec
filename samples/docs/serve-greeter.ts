import { ToolApp } from 'agenttool/di';
import { serveTools } from 'agenttool/mcp';
import { GreetModule } from '../readme/greet';

/** Serves the greeter over Streamable HTTP on 127.0.0.1 until `stop()` is called. */
export async function serveGreeter(port = 0) {
  const app = await ToolApp.create(GreetModule);
  const server = serveTools(app, { name: 'greeter' });
  const listener = await server.listenHttp({ port });
  const stop = async () => {
    await server.close();
    await app.close();
  };
  return { url: listener.url, stop };
}
