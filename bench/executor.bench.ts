/**
 * The executor against baselines in the same process: 10,000 no-op jobs (70%
 * independent, 30% spread over 10 resources), every event consumed. Baselines: p-limit
 * with a bound of 8 running the same no-op functions; a minimal hand-written bounded
 * runner (a queue and 8 workers), the floor for scheduling in JavaScript; and that runner
 * with the two things the executor's contract adds that no bookkeeping can avoid: each
 * job's context made current for its function (`currentContext()`), and one event per
 * job handed to a `for await` consumer. p-limit alone does neither, so it is measured a
 * second time doing both, the like-for-like alternative to the executor; the plain
 * p-limit row stays the headline.
 */
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { Executor, type Job, type Result, newTool } from 'agenttool';
import { type Figure, measure, report } from './measure';

const JOBS = 10_000;
const BOUND = 8;
const RESULT: Result = { output: 'ok' };
const noop = async (): Promise<Result> => RESULT;

function makeJobs(): Job[] {
  const plain = newTool({ name: 'plain', execute: noop });
  const resourced = Array.from({ length: 10 }, (_, r) =>
    newTool({ name: `res${r}`, resource: `res:${r}`, execute: noop }),
  );
  const jobs: Job[] = [];
  let spread = 0;
  for (let i = 0; i < JOBS; i++) {
    const tool = i % 10 < 7 ? plain : resourced[spread++ % 10];
    jobs.push({ tool, call: { id: `call_${i}`, args: '{}' } });
  }
  return jobs;
}

/** A queue and `bound` workers: the least a bounded runner can do. */
async function minimalRunner(
  fns: readonly (() => Promise<Result>)[],
  bound: number,
): Promise<void> {
  let next = 0;
  const results = new Array<Result>(fns.length);
  const worker = async (): Promise<void> => {
    while (next < fns.length) {
      const i = next++;
      results[i] = await (fns[i] as () => Promise<Result>)();
    }
  };
  await Promise.all(Array.from({ length: bound }, worker));
}

// One storage for the process, as core has: on Node 20 every AsyncLocalStorage that has
// run stays on the list each new promise visits, so one per batch would slow every batch.
const storage = new AsyncLocalStorage<{ index: number }>();

/**
 * Whether AsyncLocalStorage is built on AsyncContextFrame (Node 24, or Node 22 with
 * `--experimental-async-context-frame`), tested as `contextRunner` in core tests it.
 */
const FRAMES = !Object.hasOwn(storage, 'enabled');

/**
 * Runs a job's function with its store current, as the executor makes a call's context
 * current: an async scope entered per job where AsyncContextFrame is on, else run().
 */
function storeRunner(name: string): <T>(store: { index: number }, fn: () => T) => T {
  const scope = new AsyncResource(name);
  const enter = <T>(store: { index: number }, fn: () => T): T => {
    storage.enterWith(store);
    return fn();
  };
  return FRAMES
    ? <T>(store: { index: number }, fn: () => T): T =>
        scope.runInAsyncScope(enter<T>, null, store, fn)
    : <T>(store: { index: number }, fn: () => T): T => storage.run(store, fn);
}

/**
 * The minimal runner with a context current per job, made the cheapest way each Node
 * allows (as the executor does), and each job's end handed to one `for await` consumer
 * as an event; a slot is free again once the consumer took the event.
 */
function contextAndEventsRunner(
  fns: readonly (() => Promise<Result>)[],
  bound: number,
): AsyncIterable<{ index: number; result: Result }> {
  const runIn = storeRunner('bench.batch');
  type Step = IteratorResult<{ index: number; result: Result }, undefined>;
  const ready: { index: number; result: Result }[] = [];
  let next = 0;
  let active = 0;
  let delivered = 0;
  let waiter: ((step: Step) => void) | undefined;
  const push = (event: { index: number; result: Result }): void => {
    if (waiter === undefined) {
      ready.push(event);
      return;
    }
    const resolve = waiter;
    waiter = undefined;
    delivered++;
    active--;
    resolve({ done: false, value: event });
  };
  const start = (): void => {
    while (active < bound && next < fns.length) {
      const index = next++;
      active++;
      const fn = fns[index] as () => Promise<Result>;
      void runIn({ index }, fn).then((result) => push({ index, result }));
    }
  };
  const iterator: AsyncIterator<{ index: number; result: Result }, undefined> = {
    next(): Promise<Step> {
      start();
      const event = ready.shift();
      if (event !== undefined) {
        delivered++;
        active--;
        return Promise.resolve({ done: false, value: event });
      }
      if (delivered === fns.length) return Promise.resolve({ done: true, value: undefined });
      return new Promise<Step>((resolve) => (waiter = resolve));
    },
  };
  return { [Symbol.asyncIterator]: () => iterator };
}

/**
 * p-limit doing what the floor adds to the minimal runner, the same way: each function
 * run with its job's context current, and each result handed to one `for await`
 * consumer as an event. p-limit frees a slot when the function settles.
 */
function pLimitWithContextAndEvents(
  limit: (fn: () => Promise<Result>) => Promise<Result>,
  fns: readonly (() => Promise<Result>)[],
): AsyncIterable<{ index: number; result: Result }> {
  const runIn = storeRunner('bench.plimit');
  type Step = IteratorResult<{ index: number; result: Result }, undefined>;
  // p-limit starts the next function when one settles, not when its event is taken, so
  // events may pile up: read by position rather than with shift().
  const ready: ({ index: number; result: Result } | undefined)[] = [];
  let taken = 0;
  let started = false;
  let delivered = 0;
  let waiter: ((step: Step) => void) | undefined;
  const push = (event: { index: number; result: Result }): void => {
    if (waiter === undefined) {
      ready.push(event);
      return;
    }
    const resolve = waiter;
    waiter = undefined;
    delivered++;
    resolve({ done: false, value: event });
  };
  const start = (): void => {
    started = true;
    for (let index = 0; index < fns.length; index++) {
      const fn = fns[index] as () => Promise<Result>;
      void limit(() => runIn({ index }, fn)).then((result) => push({ index, result }));
    }
  };
  const iterator: AsyncIterator<{ index: number; result: Result }, undefined> = {
    next(): Promise<Step> {
      if (!started) start();
      const event = ready[taken];
      if (event !== undefined) {
        ready[taken++] = undefined;
        delivered++;
        return Promise.resolve({ done: false, value: event });
      }
      if (delivered === fns.length) return Promise.resolve({ done: true, value: undefined });
      return new Promise<Step>((resolve) => (waiter = resolve));
    },
  };
  return { [Symbol.asyncIterator]: () => iterator };
}

async function main(): Promise<void> {
  const { default: pLimit } = await import('p-limit');
  const jobs = makeJobs();
  const fns = jobs.map(() => noop);
  const executor = new Executor({ maxParallel: BOUND });
  const options = { ops: JOBS, rounds: 15, warmup: 5 };

  let events = 0;
  const runExecutor = async (): Promise<void> => {
    for await (const event of executor.execute(jobs)) if (event.final) events++;
  };
  const runPLimit = async (): Promise<void> => {
    const limit = pLimit(BOUND);
    await Promise.all(fns.map((fn) => limit(fn)));
  };
  const runMinimal = (): Promise<void> => minimalRunner(fns, BOUND);
  let floorEvents = 0;
  const runFloor = async (): Promise<void> => {
    for await (const event of contextAndEventsRunner(fns, BOUND)) if (event) floorEvents++;
  };
  let pLimitEvents = 0;
  const runPLimitLikeForLike = async (): Promise<void> => {
    const limit = pLimit(BOUND);
    for await (const event of pLimitWithContextAndEvents(limit, fns)) if (event) pLimitEvents++;
  };

  // The baselines run first: the executor runs each tool under AsyncLocalStorage, and on
  // Node 20 the first run() turns on promise hooks for the whole process, which taxes
  // every later promise, the baselines' too. They are measured again after, to show it.
  const figures: Figure[] = [];
  figures.push(await measure('p-limit(8)', runPLimit, options));
  figures.push(await measure('minimal runner', runMinimal, options));
  figures.push(await measure('agenttool Executor', runExecutor, options));
  figures.push(await measure('p-limit(8), hooks on', runPLimit, options));
  figures.push(await measure('minimal runner, hooks on', runMinimal, options));
  // Last: on Node 20 its own storage joins core's on the list every later promise visits.
  figures.push(await measure('runner + context + events', runFloor, options));
  // Uses the floor's storage, so it comes after the floor for the same reason.
  figures.push(await measure('p-limit(8) + context + events', runPLimitLikeForLike, options));
  const expected = JOBS * (options.rounds + options.warmup);
  if (events !== expected || floorEvents !== expected || pLimitEvents !== expected) {
    throw new Error(
      `delivered ${events}, ${floorEvents} and ${pLimitEvents} finals, expected ${JOBS} per round`,
    );
  }
  report(
    `executor: ${JOBS} no-op jobs, 30% on 10 resources, bound ${BOUND}`,
    figures,
    'p-limit(8)',
  );
  report('against the floor', figures, 'minimal runner');
  report('against the floor with promise hooks on', figures, 'minimal runner, hooks on');
  report(
    "against the floor with the contract's unavoidable parts (a context current per job, an event per job)",
    figures,
    'runner + context + events',
  );
  report(
    'against p-limit doing the same two parts (a context current per job, an event per job)',
    figures,
    'p-limit(8) + context + events',
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
