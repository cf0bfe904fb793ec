/**
 * The executor against two baselines in the same process: 10,000 no-op jobs (70%
 * independent, 30% spread over 10 resources), every event consumed. Baselines: p-limit
 * with a bound of 8 running the same no-op functions, and a minimal hand-written
 * bounded runner (a queue and 8 workers), the floor for scheduling in JavaScript.
 */
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

  // The baselines run first: the executor runs each tool under AsyncLocalStorage, and on
  // Node 20 the first run() turns on promise hooks for the whole process, which taxes
  // every later promise, the baselines' too. They are measured again after, to show it.
  const figures: Figure[] = [];
  figures.push(await measure('p-limit(8)', runPLimit, options));
  figures.push(await measure('minimal runner', runMinimal, options));
  figures.push(await measure('agenttool Executor', runExecutor, options));
  figures.push(await measure('p-limit(8), hooks on', runPLimit, options));
  figures.push(await measure('minimal runner, hooks on', runMinimal, options));
  if (events !== JOBS * (options.rounds + options.warmup)) {
    throw new Error(`executor delivered ${events} finals, expected ${JOBS} per round`);
  }
  report(
    `executor: ${JOBS} no-op jobs, 30% on 10 resources, bound ${BOUND}`,
    figures,
    'p-limit(8)',
  );
  report('against the floor', figures, 'minimal runner');
  report('against the floor with promise hooks on', figures, 'minimal runner, hooks on');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
