import {
  INSTRUMENTATION_SCOPE,
  secondsSince,
  type Session,
  telemetryNames as N,
} from '../../../core';
import { meteringApi } from '../../../core/otel';
import { operationInstruments } from '../../operation-instruments';

/** What a server's gauges read, each time a metric reader collects. */
export interface ServerGauges {
  sessions(): number;
  parkedCalls(): number;
  openTasks(): number;
}

/**
 * Registers the server's gauges (active sessions, parked calls, open tasks) with the
 * meter provider registered now, read at each collection; returns the function that
 * withdraws them (the server's close). Nothing is registered, nor loaded, when no meter
 * provider is.
 */
export function observeServer(gauges: ServerGauges): () => void {
  const api = meteringApi();
  if (api === undefined) return () => undefined;
  const meter = api.metrics.getMeter(INSTRUMENTATION_SCOPE);
  const sessions = meter.createObservableUpDownCounter(N.METRIC_ACTIVE_SESSIONS, {
    unit: '{session}',
    description: 'The MCP sessions open on the server.',
  });
  const parked = meter.createObservableUpDownCounter(N.METRIC_PARKED_CALLS, {
    unit: '{call}',
    description:
      "The 2026-07-28 calls parked for their client's answers (input_required), waiting to be resumed.",
  });
  const tasks = meter.createObservableUpDownCounter(N.METRIC_OPEN_TASKS, {
    unit: '{task}',
    description: 'The MCP tasks whose tools run on this server and have not ended.',
  });
  const observe = (result: import('@opentelemetry/api').BatchObservableResult): void => {
    result.observe(sessions, gauges.sessions());
    result.observe(parked, gauges.parkedCalls());
    result.observe(tasks, gauges.openTasks());
  };
  meter.addBatchObservableCallback(observe, [sessions, parked, tasks]);
  return () => meter.removeBatchObservableCallback(observe, [sessions, parked, tasks]);
}

/** Times `session` from now until it ends (`mcp.server.session.duration`), when metered. */
export function timeSession(session: Session): void {
  if (meteringApi() === undefined) return;
  const started = performance.now();
  session.onClose(() => {
    const api = meteringApi();
    if (api === undefined) return;
    operationInstruments(api).serverSession.record(secondsSince(started));
  });
}
