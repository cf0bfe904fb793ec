// What every HTTP part of the server shares: request and response IO, the HTTP options,
// the client's address behind proxies, caller keys and each caller's fair share.
export { callerKeyOf, type RequestCaller, requestCallers, takeCallShare } from './caller-keys';
export {
  type AddressFinder,
  addressFinder,
  normalAddress,
  proxyPeers,
  type TrustProxy,
  UNKNOWN_ADDRESS,
} from './client-address';
export {
  CallShares,
  callerAddress,
  callerKey,
  overLimit,
  overShare,
  overShareMessage,
  Tally,
  RETRY_AFTER_SECONDS,
  SessionShares,
  type ShareLimits,
  shareLimits,
  StreamShares,
} from './fair-shares';
export {
  type Body,
  ClientGone,
  discardBody,
  discardTimeoutMs,
  headersOf,
  jsonRpcError,
  NOTHING,
  idRefusal,
  isEventStream,
  parseBody,
  readLimited,
  OVER_BUDGET,
  readNodeBody,
  refusedUnread,
  requestId,
  settled,
  tooLarge,
  whenDone,
} from './http-io';
export {
  AnswerBudget,
  DEFAULT_WRITE_STALL_MS,
  type UnreadAnswers,
  writeResponse,
} from './answer-writes';
export { BodyAllowance, BodyBudget } from './body-budget';
export {
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_HEALTH_PATH,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  DEFAULT_MAX_CALLS,
  DEFAULT_MAX_CALLS_PER_SUBJECT,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_STREAMS,
  type HttpHandler,
  type HttpListener,
  type HttpRequestExtras,
  type HttpServeOptions,
} from './http-options';
export {
  answerBudgetOf,
  bodyBudgetOf,
  overBudget,
  type ConnectionLimits,
  connectionLimitsOf,
  keepAliveOf,
} from './connection-limits';
