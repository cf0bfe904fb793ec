/**
 * One batch through both executors: the Go peer's (`agenttool-go-peer batch`, the
 * contract's executor in Go, peer/executor.go) and ours, with the same deterministic
 * tools. Each job's tool, and its start, waits until the events the spec names are in
 * the log, so every event's place is fixed by the spec and by the batch rules (bound,
 * serial batches, resource chains, handing the next job of a chain over only once the
 * consumer took the previous final, cancellation), never by timing. The two logs must
 * be the same event for event.
 */
import { Executor, type Job, newTool, outputText, errorResult } from 'agenttool';
import { requirePeer, runPeer } from './go-peer';

interface BatchJob {
  id: string;
  sequential?: boolean;
  resource?: string;
  startAfter?: string[];
  finishAfter?: string[];
  progress?: number;
  fail?: string;
  panic?: string;
}

interface BatchSpec {
  maxParallel?: number;
  sequential?: boolean;
  cancelOn?: string;
  stopOn?: string;
  /** The order of starts is the executor's choice: compare as sets (read by this file only). */
  unordered?: boolean;
  jobs: BatchJob[];
}

/** Bounds every wait, as peer/batch.go does: a wait that runs out is logged. */
const WAIT_LIMIT_MS = 5_000;

class EventLog {
  readonly events: string[] = [];
  #waiters = new Set<() => void>();

  constructor(
    private readonly cancelOn: string | undefined,
    private readonly cancel: () => void,
  ) {}

  /** Logs an event; the one the spec cancels on is followed by "cancel" and the abort. */
  add(event: string): void {
    this.events.push(event);
    const on = this.cancelOn;
    if (on !== undefined && (event === on || event.startsWith(`${on}:`))) {
      this.events.push('cancel');
      this.cancel();
    }
    for (const wake of [...this.#waiters]) wake();
  }

  #has(events: readonly string[]): boolean {
    // "final:a" is met by "final:a:<what the model sees>".
    return events.every((e) => this.events.some((got) => got === e || got.startsWith(`${e}:`)));
  }

  wait(signal: AbortSignal, who: string, events: readonly string[]): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = (): void => {
        this.#waiters.delete(check);
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      };
      const check = (): void => {
        if (!this.#has(events)) return;
        done();
        resolve();
      };
      const onAbort = (): void => {
        done();
        reject(new Error('context canceled'));
      };
      const timer = setTimeout(() => {
        done();
        this.add(`timeout:${who}`);
        reject(new Error(`${who} waited too long for ${events.join(' ')}`));
      }, WAIT_LIMIT_MS);
      this.#waiters.add(check);
      signal.addEventListener('abort', onAbort);
      if (signal.aborted) onAbort();
      else check();
    });
  }
}

async function runOurs(spec: BatchSpec): Promise<string[]> {
  const controller = new AbortController();
  const log = new EventLog(spec.cancelOn, () => controller.abort());
  const byName = new Map<string, BatchJob>();
  const jobs: Job[] = spec.jobs.map((j) => {
    const tool = newTool({
      name: `job_${j.id}`,
      description: 'a deterministic job',
      sequential: j.sequential ?? false,
      resource: j.resource ?? '',
      execute: async (_call, ctx) => {
        for (let n = 1; n <= (j.progress ?? 0); n++) ctx.progress(String(n));
        await log.wait(ctx.signal, `finish:${j.id}`, j.finishAfter ?? []);
        // A thrown non-Error is a programming fault, as a panic is in Go.
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        if (j.panic !== undefined) throw j.panic;
        if (j.fail !== undefined) throw new Error(j.fail);
        return { output: `done ${j.id}` };
      },
    });
    byName.set(tool.name, j);
    return { tool, call: { id: j.id, args: '{}' } };
  });
  const executor = new Executor({
    ...(spec.maxParallel === undefined ? {} : { maxParallel: spec.maxParallel }),
    sequential: spec.sequential ?? false,
    onStart: async (job, ctx) => {
      const j = byName.get(job.tool?.name ?? '')!;
      await log.wait(ctx.signal, `start:${j.id}`, j.startAfter ?? []);
      log.add(`start:${j.id}`);
    },
  });
  for (const chain of executor.chains(jobs)) {
    log.add(`chain:[${chain.map((i) => spec.jobs[i]!.id).join(' ')}]`);
  }
  for await (const ev of executor.execute(jobs, { signal: controller.signal })) {
    const id = spec.jobs[ev.index]!.id;
    if (!ev.final) log.add(`progress:${id}:${outputText(ev.result.output)}`);
    else if (ev.error !== undefined)
      log.add(`final:${id}:${outputText(errorResult(ev.error).output)}`);
    else log.add(`final:${id}:${outputText(ev.result.output)}`);
    if (ev.final && spec.stopOn === `final:${id}`) {
      log.add('stop');
      break;
    }
  }
  log.add('end');
  return log.events;
}

async function runGo(spec: BatchSpec): Promise<string[]> {
  const [line] = await runPeer(['batch', '--spec', JSON.stringify(spec)]);
  return line?.['events'] as string[];
}

const BATCHES: [string, BatchSpec][] = [
  [
    // Which of three independent jobs gets a slot first is the executor's choice (the
    // contract leaves it free, and Go's goroutines race for the bound): compared as
    // sets, with the bound held in each log.
    'bound: three independent jobs, two slots',
    {
      maxParallel: 2,
      unordered: true,
      jobs: [{ id: 'a', progress: 2 }, { id: 'b' }, { id: 'c', fail: 'disk on fire' }],
    },
  ],
  [
    'serial: a sequential tool makes the batch one job at a time, in the model order',
    {
      jobs: [
        { id: 'a', progress: 1 },
        { id: 'b', sequential: true, fail: 'disk on fire' },
        { id: 'c', panic: 'oh no' },
      ],
    },
  ],
  [
    'serial when asked, whatever the tools say',
    { sequential: true, jobs: [{ id: 'a' }, { id: 'b', resource: 'r' }, { id: 'c' }] },
  ],
  [
    // shell:session chains a and c in the model's order; b runs beside them, and c
    // starts only once the consumer took a's final.
    'chained: two jobs on one resource, one beside them',
    {
      jobs: [
        { id: 'a', resource: 'shell:session', finishAfter: ['start:b'] },
        { id: 'b', startAfter: ['start:a'], finishAfter: ['final:c'] },
        { id: 'c', resource: 'shell:session' },
        { id: 'd', resource: 'container:47', startAfter: ['final:b'] },
      ],
    },
  ],
  [
    'a sequential tool that names a resource is sequential',
    {
      jobs: [
        { id: 'a', resource: 'r', sequential: true },
        { id: 'b', resource: 'r' },
      ],
    },
  ],
  [
    // Cancelled once b has started: a and b (running) end with the cancellation, c
    // (waiting for a slot) never starts and ends with it too.
    'cancelled: running and waiting jobs end with context canceled',
    {
      maxParallel: 2,
      cancelOn: 'start:b',
      jobs: [
        { id: 'a', finishAfter: ['never'] },
        { id: 'b', startAfter: ['start:a'], finishAfter: ['never'] },
        { id: 'c', resource: 'r', finishAfter: ['never'] },
      ],
    },
  ],
  [
    // The consumer's loop cancels on a's final; the job a's slot frees may or may not
    // have been handed over by then (see handedOver), so b's own start frees nothing.
    'cancelled from the loop: a running job ends with context canceled',
    {
      maxParallel: 2,
      cancelOn: 'final:a',
      jobs: [
        { id: 'a', finishAfter: ['start:b'] },
        { id: 'b', startAfter: ['start:a'], finishAfter: ['never'] },
      ],
    },
  ],
  [
    'left early: the consumer breaks after the first final; the rest are drained unseen',
    {
      maxParallel: 3,
      stopOn: 'final:a',
      jobs: [
        { id: 'a', finishAfter: ['start:b', 'start:c'] },
        { id: 'b', startAfter: ['start:a'], finishAfter: ['never'] },
        { id: 'c', startAfter: ['start:b'], finishAfter: ['never'] },
      ],
    },
  ],
];

/**
 * Events whose order the contract leaves free: the finals that cancellation completes
 * at once (running tools and jobs that never started) end in any order, so after the
 * cancel they are compared as a set.
 */
function settled(spec: BatchSpec, events: readonly string[]): string[] {
  const cancel = events.indexOf('cancel');
  if (cancel < 0) return handedOver(spec, events);
  const tail = events.slice(cancel + 1, -1).sort();
  return [...handedOver(spec, events.slice(0, cancel + 1)), ...tail, events[events.length - 1]!];
}

/**
 * Go hands a chain's next job (or a freed slot) over as soon as its executor receives
 * the previous final, which is before the loop body that logs it runs; ours once the
 * consumer's next() carrying it resolved, and the loop body logs first. So a start
 * logged directly before another job's final, which did not wait for that start, is
 * put after it: the one reordering this difference allows. That ours never needs it
 * is asserted on its own.
 */
function handedOver(spec: BatchSpec, events: readonly string[]): string[] {
  const out = [...events];
  for (let i = 0; i + 1 < out.length; i++) {
    const [start, final] = [out[i]!, out[i + 1]!];
    if (!start.startsWith('start:') || !final.startsWith('final:')) continue;
    const ended = spec.jobs.find((j) => final.startsWith(`final:${j.id}:`));
    if (ended === undefined || `start:${ended.id}` === start) continue;
    if (ended.finishAfter?.includes(start) === true) continue;
    [out[i], out[i + 1]] = [final, start];
  }
  return out;
}

/** The most jobs started and not yet final at once. */
function mostRunning(events: readonly string[]): number {
  let running = 0;
  let most = 0;
  for (const e of events) {
    if (e.startsWith('start:')) most = Math.max(most, ++running);
    else if (e.startsWith('final:')) running--;
  }
  return most;
}

beforeAll(() => requirePeer());

describe.each(BATCHES)('%s', (_, spec) => {
  test('both executors give the same events in the same order', async () => {
    const [theirs, mine] = await Promise.all([runGo(spec), runOurs(spec)]);
    expect(theirs.some((e) => e.startsWith('timeout:'))).toBe(false);
    if (spec.unordered === true && spec.maxParallel !== undefined) {
      expect([...mine].sort()).toEqual([...theirs].sort());
      expect(mostRunning(mine)).toBeLessThanOrEqual(spec.maxParallel);
      // Go frees a slot when its loop receives a final, and may log the start it frees
      // before that final (the handover difference above): read in handover order.
      expect(mostRunning(handedOver(spec, theirs))).toBeLessThanOrEqual(spec.maxParallel);
      return;
    }
    expect(settled(spec, mine)).toEqual(settled(spec, theirs));
    // Ours logs a final before the start it frees, always.
    expect(handedOver(spec, mine)).toEqual(mine);
    // Every job has exactly one final, and nothing of a job comes after it.
    for (const job of spec.jobs) {
      const finals = mine.filter((e) => e.startsWith(`final:${job.id}:`));
      expect(finals.length).toBe(spec.stopOn === undefined ? 1 : finals.length);
      const last = mine.findLastIndex((e) => e.startsWith(`progress:${job.id}:`));
      if (last >= 0) expect(last).toBeLessThan(mine.indexOf(finals[0]!));
    }
  }, 30_000);
});
