import { DURATION_BUCKETS, INSTRUMENTATION_SCOPE, telemetryNames as N } from '../core';
import { type Otel } from '../core/otel';

type Histogram = import('@opentelemetry/api').Histogram;

/** The MCP duration histograms of the semantic conventions, both sides. */
export interface OperationInstruments {
  readonly server: Histogram;
  readonly client: Histogram;
  readonly serverSession: Histogram;
  readonly clientSession: Histogram;
}

// Made once per meter provider: the provider registered when first asked.
let made: { readonly of: unknown; readonly instruments: OperationInstruments } | undefined;

/** The MCP histograms of the meter provider registered now. */
export function operationInstruments(api: Otel): OperationInstruments {
  const provider = api.metrics.getMeterProvider();
  if (made?.of !== provider) {
    const meter = provider.getMeter(INSTRUMENTATION_SCOPE);
    const options = (description: string) => ({
      unit: 's',
      description,
      advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] },
    });
    made = {
      of: provider,
      instruments: {
        server: meter.createHistogram(
          N.METRIC_MCP_SERVER_OPERATION_DURATION,
          options(
            'MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.',
          ),
        ),
        client: meter.createHistogram(
          N.METRIC_MCP_CLIENT_OPERATION_DURATION,
          options(
            'The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.',
          ),
        ),
        serverSession: meter.createHistogram(
          N.METRIC_MCP_SERVER_SESSION_DURATION,
          options('The duration of the MCP session as observed on the MCP server.'),
        ),
        clientSession: meter.createHistogram(
          N.METRIC_MCP_CLIENT_SESSION_DURATION,
          options('The duration of the MCP session as observed on the MCP client.'),
        ),
      },
    };
  }
  return made.instruments;
}
