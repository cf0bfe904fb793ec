// The HTTP listener and handler: one endpoint for both eras, health and readiness, the
// DNS-rebinding guard, and streams that end when their token expires. Loaded only when a
// server serves HTTP (see tool-server.ts): a stdio server never loads it.
export { httpHandler, type ServedServer } from './http';
export { listenHttp } from './listen';
