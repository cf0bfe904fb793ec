// Scale-out: instances behind a load balancer sharing sessions, request states, event
// streams and tasks through Redis, and forwarding requests to the instance that holds them.
export { serveElsewhere } from './forward';
export { FORWARDED_CALLER_HEADER } from './forwarded-caller';
export { type ScaleOutOptions } from './options';
export { ScaleOut } from './scale-out';
