export { parseRetryAfter } from './retry-after.js';
export { computeBackoffMs } from './backoff.js';
export { RETRY_POLICIES, resolveRetryPolicy, type RetryPolicy, type RetryPolicyName } from './policies.js';
export { createRateLimitGate, type RateLimitGate } from './gate.js';
export { isRetryable, type RetryMode } from './decide.js';
export { Pacing, type RouteTicket } from './pacing.js';
export { RoutePacer, routeClassOf, type PaceTicket } from './pacer.js';
export { parseRateLimitHeaders, type RateLimitHint } from './rate-limit-headers.js';
