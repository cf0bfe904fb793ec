import { tracingApi } from './otel';

/** The instrumentation scope of every tracer and meter agenttool uses. */
export const INSTRUMENTATION_SCOPE = 'agenttool';

/**
 * The trace and span ids of the span active here, for a log line, when a trace is
 * active and recorded or sampled; undefined otherwise (and without loading anything
 * while no tracer provider is registered).
 */
export function activeTraceIds():
  { readonly traceId: string; readonly spanId: string } | undefined {
  const api = tracingApi();
  if (api === undefined) return undefined;
  const span = api.trace.getActiveSpan();
  if (span === undefined) return undefined;
  const { traceId, spanId } = span.spanContext();
  if (!api.trace.isSpanContextValid(span.spanContext())) return undefined;
  return { traceId, spanId };
}

/**
 * `line` with the active trace's ids appended (` trace_id=<32 hex> span_id=<16 hex>`,
 * the field names of OpenTelemetry's log data model), or `line` as it is when no trace
 * is active.
 */
export function withTraceIds(line: string): string {
  const ids = activeTraceIds();
  return ids === undefined ? line : `${line} trace_id=${ids.traceId} span_id=${ids.spanId}`;
}

/**
 * A log line's data carrying the active trace's ids, for an MCP log notification: a
 * string gets ` trace_id=… span_id=…` appended, a plain object `trace_id` and `span_id`
 * members (unless it has its own); anything else, or any data while no trace is active,
 * is returned as it is.
 */
export function withTraceData(data: unknown): unknown {
  if (typeof data !== 'string' && (typeof data !== 'object' || data === null)) return data;
  const ids = activeTraceIds();
  if (ids === undefined) return data;
  if (typeof data === 'string') return `${data} trace_id=${ids.traceId} span_id=${ids.spanId}`;
  if (Array.isArray(data) || Object.getPrototypeOf(data) !== Object.prototype) return data;
  if ('trace_id' in data || 'span_id' in data) return data;
  return { ...data, trace_id: ids.traceId, span_id: ids.spanId };
}

/** Seconds since `startMs` (a `performance.now()` reading), as duration metrics take them. */
export function secondsSince(startMs: number): number {
  return (performance.now() - startMs) / 1000;
}

/**
 * The bucket boundaries the MCP semantic conventions give every duration histogram
 * (seconds).
 */
export const DURATION_BUCKETS: readonly number[] = [
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
];
