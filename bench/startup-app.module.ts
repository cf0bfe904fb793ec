// The module file `agenttool serve` loads in the start-up bench: one no-op tool.
import { Module } from 'agenttool/di';
import { decoratedNoop } from './mcp-noop-decorated';

@Module({ tools: [decoratedNoop('noop')] })
export class StartupAppModule {}
