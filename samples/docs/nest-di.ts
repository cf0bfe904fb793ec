import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AgentToolModule, asNestModule } from 'agenttool/nest';
import { GuestbookModule } from './modules';

/**
 * The agenttool app of modules.ts, built by NestJS's own container: its modules,
 * providers and tools become Nest providers, and AgentToolModule serves the tools.
 */
@Module({
  imports: [asNestModule(GuestbookModule, { timeoutMs: 10_000 }), AgentToolModule.forRoot()],
})
export class GuestbookServerModule {}

/** Starts the Nest app on 127.0.0.1; the tools are at `/mcp`. `app.close()` stops them. */
export async function startNestGuestbook(port = 0) {
  const app = await NestFactory.create(GuestbookServerModule, { logger: false });
  await app.listen(port, '127.0.0.1');
  return app;
}
