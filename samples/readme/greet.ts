import { Param, Tool } from 'agenttool';
import { Module } from 'agenttool/di';

class GreetArgs {
  @Param('Who to greet') name!: string;
}

@Tool({ name: 'greet', description: 'Greet someone by name', args: GreetArgs })
export class Greet {
  execute(args: GreetArgs): string {
    return `Hello, ${args.name}!`;
  }
}

@Module({ tools: [Greet] })
export class GreetModule {}
