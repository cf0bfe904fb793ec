/**
 * Interceptors: what runs around a tool's calls (NestJS's interceptors), the chain that
 * composes them, and the built-in ones (logging, rate limit, result cache, result size,
 * timeout).
 */
export {
  type CallHandler,
  type InterceptedCall,
  type Interceptor,
  type InterceptorFunction,
  type ProviderResolver,
  type ResolveOptions,
  type ToolExecutionContext,
  interceptorName,
  runInterceptors,
  withResolver,
} from './chain';
export { type CallerKey, credentialsOrSession, subjectOrSession } from './caller';
export { CallLogSink, type CallLogEntry, LoggingInterceptor, type LoggingOptions } from './logging';
export { RateLimitError, RateLimitInterceptor, type RateLimitOptions } from './rate-limit';
export { ResultCacheInterceptor, type ResultCacheOptions } from './cache';
export { ResultSizeInterceptor, type ResultSizeOptions, ResultTooLargeError } from './size-limit';
export { TimeoutInterceptor, type TimeoutOptions } from './timeout';
