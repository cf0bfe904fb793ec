import { INSTRUMENTATION_SCOPE, telemetryNames as N } from '../../../core';
import { tracingApi } from '../../../core/otel';
import { type RunningCall } from '../calls';

/**
 * Runs a task's tool (`run`) in a span of its own: `agenttool.task.run <tool>`, the root
 * of a trace of its own (a task outlives the request that made it, by minutes or days),
 * linked to the span active here, the `tools/call` that created the task, whose span
 * gets the task's id too. Without a tracer provider, `run()` as it is.
 */
export function runAsTask(taskId: string, tool: string, run: () => RunningCall): RunningCall {
  const api = tracingApi();
  if (api === undefined) return run();
  const creator = api.trace.getActiveSpan();
  creator?.setAttribute(N.ATTR_TASK_ID, taskId);
  const span = api.trace.getTracer(INSTRUMENTATION_SCOPE).startSpan(`${N.SPAN_TASK_RUN} ${tool}`, {
    kind: api.SpanKind.INTERNAL,
    root: true,
    links: creator === undefined ? [] : [{ context: creator.spanContext() }],
    attributes: {
      [N.ATTR_TASK_ID]: taskId,
      [N.ATTR_GEN_AI_TOOL_NAME]: tool,
      [N.ATTR_GEN_AI_OPERATION_NAME]: N.EXECUTE_TOOL,
    },
  });
  const running = api.context.with(api.trace.setSpan(api.context.active(), span), run);
  running.result.then(
    (result) => {
      if (result.isError === true) {
        span.setAttribute(N.ATTR_ERROR_TYPE, N.TOOL_ERROR);
        span.setStatus({ code: api.SpanStatusCode.ERROR });
      }
      span.end();
    },
    (error: unknown) => {
      span.setStatus({
        code: api.SpanStatusCode.ERROR,
        message: error instanceof Error ? error.message : String(error),
      });
      span.end();
    },
  );
  return running;
}
