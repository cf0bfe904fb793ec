/**
 * OpenTelemetry as an application sets it up, for the tests: the SDK's tracer provider
 * with an in-memory exporter, its meter provider with an in-memory metric exporter, the
 * AsyncLocalStorage context manager and the W3C trace-context propagator, registered
 * globally (where agenttool finds them), and taken down again.
 */
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

export interface Telemetry {
  readonly spans: () => ReadableSpan[];
  /** Every metric collected now, by name. */
  readonly metrics: () => Promise<Map<string, MetricData>>;
  readonly reset: () => void;
  readonly shutdown: () => Promise<void>;
}

export function setUpTelemetry(options: { traces?: boolean; metrics?: boolean } = {}): Telemetry {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  if (options.traces !== false) trace.setGlobalTracerProvider(tracerProvider);
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({
    exporter: metricExporter,
    exportIntervalMillis: 3_600_000,
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  if (options.metrics !== false) metrics.setGlobalMeterProvider(meterProvider);
  return {
    spans: () => exporter.getFinishedSpans(),
    metrics: async () => {
      metricExporter.reset();
      await reader.forceFlush();
      const found = new Map<string, MetricData>();
      for (const resource of metricExporter.getMetrics()) {
        for (const scope of resource.scopeMetrics) {
          for (const metric of scope.metrics) found.set(metric.descriptor.name, metric);
        }
      }
      return found;
    },
    reset: () => exporter.reset(),
    shutdown: async () => {
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

/** The spans as a tree, for a failure message: `name (kind) <- parent name`. */
export function describeSpans(spans: readonly ReadableSpan[]): string {
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  return spans
    .map((s) => {
      const parent = s.parentSpanContext?.spanId;
      return `${s.name} <- ${parent === undefined ? '(root)' : (byId.get(parent)?.name ?? parent)}`;
    })
    .join('\n');
}

/** The one span named `name`; fails when there is none or more. */
export function only(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((s) => s.name === name);
  if (found.length !== 1) {
    throw new Error(`${found.length} spans named ${name}:\n${describeSpans(spans)}`);
  }
  return found[0] as ReadableSpan;
}
