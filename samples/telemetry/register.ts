// OpenTelemetry set up in code, for an app that builds its own SDK: a tracer provider, a
// meter provider, the AsyncLocalStorage context manager and the W3C propagator,
// registered globally, where agenttool looks for them. Register before the first batch
// or request; nothing else in agenttool is configured.
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { type MetricReader, MeterProvider } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';

export function registerTelemetry(spans: SpanExporter, reader: MetricReader): () => Promise<void> {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new BatchSpanProcessor(spans)],
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  // At shutdown: flush what is buffered, then withdraw the providers.
  return async () => {
    await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
    trace.disable();
    metrics.disable();
  };
}
