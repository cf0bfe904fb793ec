// Sessions: the SDK instance that serves one, 2026-07-28 session handles, the 2025-era
// leg (a transport per session, resumable streams) and its event store.
export { SessionEventStore } from './event-store';
export { HandleSessions, type SessionOpener } from './handle-sessions';
export { buildInstance, type InstanceHost, type SessionBinding } from './instance';
export { ConnectionSession } from './connection-session';
export { DEFAULT_IDLE_MS, type LegacyHost, LegacyLeg } from './legacy-leg';
