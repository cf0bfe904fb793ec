export { Executor } from './executor';
export { CallBatcher, type CallBatcherOptions, type HandOver, type RunBatch } from './call-batcher';
export { progressTaken } from './executor-call';
export { type ReadToolSource, readToolSource, type ToolHost, type ToolSource } from './tool-source';
export {
  DEFAULT_MAX_PARALLEL,
  DEFAULT_PROGRESS_BUFFER,
  type ExecuteOptions,
  type ExecutorEvent,
  type ExecutorFinalEvent,
  type ExecutorOptions,
  type ExecutorProgressEvent,
  type ExecutorRun,
  type Job,
  type JobOutcome,
  type OnStart,
} from './types';
