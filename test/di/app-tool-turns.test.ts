/**
 * An app's tool (one instance for every session) that names a resource takes turns on it
 * in each session, in line with the session's own tools naming the same resource: a
 * session's calls on it run one at a time in the order they came, as the workspace's
 * file tools and its shell's commands do. Through `ToolApp.create`, each call a batch of
 * its own, as served calls arrive.
 */
import 'reflect-metadata';
import { Resource, Tool, type ToolContext } from 'agenttool';
import { Injectable, Module, ToolApp } from 'agenttool/di';
import { testSession } from '../support/session';

interface Run {
  readonly events: string[];
  readonly gates: Map<string, () => void>;
  readonly waiting: Map<string, () => void>;
}

/** Runs `label`'s call, recording its start and end; a `slow-*` call waits for its gate. */
async function step(run: Run, tool: string, ctx: ToolContext): Promise<string> {
  const label = ctx.call.id;
  run.events.push(`start ${label}`);
  if (label.startsWith('slow-')) {
    await new Promise<void>((resolve) => {
      run.gates.set(label, resolve);
      run.waiting.get(label)?.();
    });
  }
  run.events.push(`end ${label}`);
  return `${tool} ${label}`;
}

function lineApp(run: Run) {
  @Tool({ name: 'change', description: 'An app-wide tool in line with the session' })
  @Resource('line')
  class Change {
    execute(_args: unknown, ctx: ToolContext): Promise<string> {
      return step(run, 'change', ctx);
    }
  }

  @Tool({ name: 'peek', description: 'An app-wide tool that names no resource' })
  class Peek {
    execute(_args: unknown, ctx: ToolContext): Promise<string> {
      return step(run, 'peek', ctx);
    }
  }

  @Injectable()
  @Tool({ name: 'command', description: "A session's own tool on the same resource" })
  @Resource('line')
  class Command {
    execute(_args: unknown, ctx: ToolContext): Promise<string> {
      return step(run, 'command', ctx);
    }
  }

  @Module({
    tools: [Change, Peek, Command],
    providers: [{ provide: Command, useClass: Command, scope: 'session' }],
  })
  class LineModule {}
  return LineModule;
}

let created: ToolApp | undefined;

afterEach(async () => {
  await created?.close();
  created = undefined;
});

async function setUp(): Promise<{ app: ToolApp; run: Run }> {
  const run: Run = { events: [], gates: new Map(), waiting: new Map() };
  created = await ToolApp.create(lineApp(run));
  return { app: created, run };
}

/** Resolves once `label`'s call waits at its gate. */
function gateReached(run: Run, label: string): Promise<void> {
  if (run.gates.has(label)) return Promise.resolve();
  return new Promise((resolve) => run.waiting.set(label, resolve));
}

function output(app: ToolApp, tool: string, id: string, session: ReturnType<typeof testSession>) {
  return app
    .results([app.job(tool, {}, id)], { session })
    .then(([outcome]) => outcome?.result?.output ?? `error: ${outcome?.error?.message}`);
}

it("runs a session's calls of an app's tool and of its own tool on one resource in the order they came", async () => {
  const { app, run } = await setUp();
  const session = testSession('one');
  const first = output(app, 'command', 'slow-1', session);
  const second = output(app, 'change', 'fast-2', session);
  const third = output(app, 'command', 'fast-3', session);
  await gateReached(run, 'slow-1');
  // A tool that names no resource runs beside them.
  expect(await output(app, 'peek', 'fast-4', session)).toBe('peek fast-4');
  expect(run.events).toEqual(['start slow-1', 'start fast-4', 'end fast-4']);
  run.gates.get('slow-1')?.();
  expect(await Promise.all([first, second, third])).toEqual([
    'command slow-1',
    'change fast-2',
    'command fast-3',
  ]);
  expect(run.events.slice(3)).toEqual([
    'end slow-1',
    'start fast-2',
    'end fast-2',
    'start fast-3',
    'end fast-3',
  ]);
  await session.end();
});

it("runs an app's tool at once in another session", async () => {
  const { app, run } = await setUp();
  const one = testSession('one');
  const two = testSession('two');
  const slow = output(app, 'change', 'slow-1', one);
  await gateReached(run, 'slow-1');
  expect(await output(app, 'change', 'fast-2', two)).toBe('change fast-2');
  run.gates.get('slow-1')?.();
  expect(await slow).toBe('change slow-1');
  await Promise.all([one.end(), two.end()]);
});

it("leaves the line when a waiting call of an app's tool is cancelled", async () => {
  const { app, run } = await setUp();
  const session = testSession('one');
  const running = output(app, 'command', 'slow-1', session);
  await gateReached(run, 'slow-1');
  const cancel = new AbortController();
  const cancelled = app.results([app.job('change', {}, 'fast-2')], {
    session,
    signal: cancel.signal,
  });
  const next = output(app, 'change', 'fast-3', session);
  cancel.abort();
  const [outcome] = await cancelled;
  expect(outcome?.error?.message).toContain('cancel');
  run.gates.get('slow-1')?.();
  expect(await running).toBe('command slow-1');
  expect(await next).toBe('change fast-3');
  expect(run.events).not.toContain('start fast-2');
  await session.end();
});
