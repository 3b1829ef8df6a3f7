// The service's endpoints as the harness names them (§4): the business endpoints whose method and
// payload the user configures (§4.4), and the endpoints a rate-limit probe or the k6 rate-limit
// scenario can drive. Plain values: Node and the k6 bundles import the same list.

/** §4.4: /v1/evaluation and /v1/ach_transactions. The spec names them only. */
export const BUSINESS_ENDPOINTS = ['evaluation', 'ach_transactions'] as const;
export type BusinessEndpoint = (typeof BUSINESS_ENDPOINTS)[number];

/** §4.1-§4.3, §9: the token endpoints, unversioned. */
export const TOKEN_PATHS = ['/tokens', '/tokens/health_check', '/tokens/validate'] as const;

/** The methods a business call may be configured with (config `business.<endpoint>.method`). */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** One business call as configured: its method, and the body sent as JSON (null sends none). */
export interface BusinessCall {
  method: HttpMethod;
  body: unknown;
}

/** The configured call of every business endpoint. */
export type BusinessCalls = Record<BusinessEndpoint, BusinessCall>;

/** The endpoints whose rate limit can be probed (config `rate_limit.endpoint`). */
export const RATE_LIMIT_ENDPOINTS = [
  'business.evaluation',
  'business.ach_transactions',
  'tokens.validate',
  'tokens.issue',
] as const;
export type RateLimitEndpoint = (typeof RATE_LIMIT_ENDPOINTS)[number];

export const isRateLimitEndpoint = (s: string): s is RateLimitEndpoint =>
  (RATE_LIMIT_ENDPOINTS as readonly string[]).includes(s);
