import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Param, Prompt, Tool } from 'agenttool';
import { AgentToolModule } from 'agenttool/nest';

@Injectable()
export class Greetings {
  phrase(name: string): string {
    return `Hello, ${name}!`;
  }
}

class GreetArgs {
  @Param('Who to greet') name!: string;
}

/** A tool is an ordinary provider: Nest builds it and injects what its constructor needs. */
@Tool({ name: 'greet', description: 'Greet someone by name', args: GreetArgs })
export class Greet {
  constructor(private readonly greetings: Greetings) {}

  execute(args: GreetArgs): string {
    return this.greetings.phrase(args.name);
  }
}

class GreetingArgs {
  @Param('Who the message is for') name!: string;
}

/** So is a prompt (and an `@McpResource` or `@McpResourceTemplate`): served beside the tools. */
@Prompt({ name: 'greeting', description: 'A message that greets someone', args: GreetingArgs })
export class GreetingPrompt {
  constructor(private readonly greetings: Greetings) {}

  get(args: GreetingArgs): string {
    return `Write to ${args.name}, starting with "${this.greetings.phrase(args.name)}"`;
  }
}

@Module({
  imports: [AgentToolModule.forRoot({ name: 'greeter', version: '1.0.0', path: '/mcp' })],
  providers: [Greetings, Greet, GreetingPrompt],
})
export class GreeterAppModule {}

/**
 * Starts the app on 127.0.0.1, on Express (Nest's default); its tools are at `/mcp`
 * beside the app's own routes. `app.close()` stops them.
 */
export async function startNestGreeter(port = 0) {
  const app = await NestFactory.create(GreeterAppModule, { logger: false });
  await app.listen(port, '127.0.0.1');
  return app;
}
