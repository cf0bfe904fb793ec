// The no-op tool as a decorated class (imports agenttool only).
import { Param, Tool } from 'agenttool';
import { MODES, NOOP_DESCRIPTION } from './mcp-noop';

/** A fresh `@Tool` class named `name` with its own five-field arguments class. */
export function decoratedNoop(name: string): new () => object {
  class NoopArgs {
    @Param('Where') path!: string;
    @Param('How many', { type: 'integer' }) count!: number;
    @Param('A ratio') ratio!: number;
    @Param('On or off') enabled!: boolean;
    @Param('Which mode', { enum: MODES }) mode!: string;
  }

  @Tool({ name, description: NOOP_DESCRIPTION, args: NoopArgs })
  class NoopTool {
    execute(): string {
      return 'ok';
    }
  }
  return NoopTool;
}
