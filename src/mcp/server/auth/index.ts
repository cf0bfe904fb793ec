// Authorization: bearer tokens verified (JWT), the protected resource metadata, the
// gate in front of the endpoint, and which caller may list and call which tool.
export { definitionsFor, permitted } from './access';
export { callerOf, fromSdkAuth, namelessCaller, subjectOf } from './caller';
export { type AuthGate, authGate } from './gate';
export { jwtVerifier, type JwtVerifierOptions } from './jwt';
export {
  type HttpAuthOptions,
  InvalidTokenError,
  type ProtectedResourceMetadata,
  type TokenVerifier,
} from './options';
