import { CliError, ExitCode } from './exit-codes';

/**
 * What a command is waiting for while it starts its target: a module file still
 * loading, or its app still starting (`ToolApp.create`). When Node finds nothing left to
 * run (`beforeExit`: a top-level await or a factory awaiting a promise nothing settles),
 * main.ts says which, with the exit code a failed load or start has.
 */
export type StartStage =
  | { readonly kind: 'loading'; readonly file: string }
  | { readonly kind: 'starting'; readonly module: string };

const stages = new Set<StartStage>();

/** Awaits `work`, recorded as `stage` until it settles. */
export async function during<T>(stage: StartStage, work: Promise<T>): Promise<T> {
  stages.add(stage);
  try {
    return await work;
  } finally {
    stages.delete(stage);
  }
}

/**
 * The error that says which start never settled, or undefined when none is under way
 * (then what is pending is a call, or the server).
 */
export function stalledStart(): CliError | undefined {
  const [stage] = stages;
  if (stage === undefined) return undefined;
  return stage.kind === 'loading'
    ? new CliError(
        ExitCode.BAD_ARGUMENTS,
        `agenttool: loading ${stage.file} never finished: its top level (or a module it imports) awaits a promise nothing settles, and nothing else was left to run`,
      )
    : new CliError(
        ExitCode.CONNECTION,
        `agenttool: the app could not start: ToolApp.create(${stage.module}) never finished: a provider's factory or a starting hook (onModuleInit, onApplicationBootstrap) awaits a promise nothing settles, and nothing else was left to run`,
      );
}

/**
 * `work`, or a rejection as soon as `signal` aborts (a Ctrl-C while a module file's top
 * level awaits): nothing can stop an import under way, so it is left to finish unheard.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  if (signal.aborted) return Promise.reject(aborted(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(aborted(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function aborted(signal: AbortSignal): CliError {
  return new CliError(ExitCode.INTERRUPTED, 'agenttool: interrupted', { cause: signal.reason });
}
