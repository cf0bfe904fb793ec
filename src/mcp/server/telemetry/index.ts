// Telemetry of the server: its SDK instances traced and measured by the MCP semantic
// conventions (spans continued from the caller's `_meta`), session durations and gauges,
// and a task's run linked to the call that created it. Costs nothing until a provider
// is registered (see core/telemetry.ts).
export { observeServer, timeSession } from './server-metrics';
export { runAsTask } from './task-span';
export { type UnansweredRequests } from './request-first-server';
export { TracedServer } from './traced-server';
