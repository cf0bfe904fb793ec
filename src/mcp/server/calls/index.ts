// A call, from admission to its result: its notices (progress, logs), content and
// structured output, the client round trips (elicitation, sampling, roots) and the
// signed request states that resume them, and stopping calls when the server stops.
export { Backlog, backlogs } from './backlog';
export { type CallRoute, DEFAULT_PROGRESS_BUDGET_BYTES } from './call-notices';
export { DEFAULT_PROGRESS_KEEPALIVE_MS, keepaliveInterval } from './progress-keepalive';
export {
  admit,
  failure,
  isAdmitted,
  runCall,
  type RunningCall,
  type ServedTool,
  sessionFailure,
  unknownTool,
} from './call';
export {
  AUTO_KEY_PREFIX,
  type ClientAsk,
  elicitationAsk,
  missingCapabilityError,
  rootsAsk,
  samplingAsk,
} from './client-asks';
export { contentOf, type DataUrl, parseDataUrl } from './content';
export { directRootsLister, directSampler, type SendToClient } from './direct-asks';
export { directElicitor } from './elicit';
export { compileOutputCheck } from './output';
export { type ParamHeader, paramHeaderMismatch, paramHeadersOf } from './param-headers';
export { RECORD_META_KEY, type RecordMeta } from './record-meta';
export { SignedRequestStates } from './request-states';
export {
  CANCEL_META_KEY,
  countLimit,
  DEFAULT_ABANDON_AFTER_MS,
  DEFAULT_MAX_PARKED_CALLS,
  DEFAULT_MAX_REQUESTS,
  fairShare,
  resumeRequest,
  type RoundTripOptions,
  RoundTrips,
} from './round-trips';
export { RoundTripRun } from './round-trip-run';
export {
  bounded,
  type CallLink,
  CallTracker,
  DEFAULT_CLOSE_GRACE_MS,
  DEFAULT_DRAIN_GRACE_MS,
  SHUTTING_DOWN,
} from './stopping';
export { envelopeCapabilities, routeOf } from './request-route';
