/**
 * One instance per provider, however many lists of a module name the class: a class in
 * both `tools` and `providers` (or twice in `tools`) is built once, so the tool that runs
 * is the instance its consumers get, hooked once and closed once.
 */
import 'reflect-metadata';
import { Tool } from 'agenttool';
import { Injectable, Module, ToolApp } from 'agenttool/di';

describe('a class listed in tools and in providers', () => {
  it('is one instance: the tool that runs is the one its consumers get, hooked and closed once', async () => {
    const events: string[] = [];
    let built = 0;
    @Tool({ name: 'count', description: 'd' })
    class Counter {
      readonly n = ++built;
      calls = 0;
      onModuleInit(): void {
        events.push('init Counter');
      }
      close(): void {
        events.push('close Counter');
      }
      execute(): string {
        return `Counter #${this.n} called ${++this.calls} times`;
      }
    }
    @Injectable()
    class Report {
      constructor(readonly counter: Counter) {}
    }
    @Module({ tools: [Counter, Counter], providers: [Counter, Report] })
    class M {}
    const app = await ToolApp.create(M);
    expect(built).toBe(1);
    expect(app.tools.tools.map((tool) => tool.name)).toEqual(['count']);
    const [outcome] = await app.results([app.job('count')]);
    expect(outcome?.result?.output).toBe('Counter #1 called 1 times');
    expect((await app.get(Report)).counter.calls).toBe(1);
    await app.close();
    expect(events).toEqual(['init Counter', 'close Counter']);
  });

  it('takes the scope and the making of its provider: a factory may make the tool', async () => {
    @Tool({ name: 'greet', description: 'd' })
    class Greet {
      constructor(readonly greeting: string) {}
      execute(): string {
        return this.greeting;
      }
    }
    @Module({ tools: [Greet], providers: [{ provide: Greet, useFactory: () => new Greet('hi') }] })
    class M {}
    const app = await ToolApp.create(M);
    const [outcome] = await app.results([app.job('greet')]);
    expect(outcome?.result?.output).toBe('hi');
    await app.close();
  });

  it('fails the start, naming both, when its provider makes something that is not the tool', async () => {
    @Tool({ name: 'greet', description: 'd' })
    class Greet {
      execute(): string {
        return 'hi';
      }
    }
    @Module({ tools: [Greet], providers: [{ provide: Greet, useValue: { execute: () => 'x' } }] })
    class M {}
    await expect(ToolApp.create(M)).rejects.toMatchObject({
      code: 'PROVIDER_FAILED',
      message:
        'M: Greet is listed in tools, but the value of Greet is an instance of Object, not an instance of Greet; provide the class itself (or make the factory return an instance of it)',
    });
  });
});
