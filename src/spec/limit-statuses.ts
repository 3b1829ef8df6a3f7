// §7 and §8: over its limit the service answers 429. Limiters are known to answer 503, 509 or 420
// instead; the conformance burst, the rate-limit probe and the recovery check all count those as
// the limit's refusal too, so `check` and `ratelimit` agree on what a refusal is (and a check can
// then say "limited with 503; §7 wants 429").

export const LIMIT_LIKE_STATUSES: readonly number[] = [429, 503, 509, 420];

export const isLimitLike = (status: number): boolean => LIMIT_LIKE_STATUSES.includes(status);

/** §4.4, §7: only 401 and 403 refuse the token. */
export const refusesToken = (status: number): boolean => status === 401 || status === 403;

/**
 * The request got past both the token check and the limit: a 2xx, or a 4xx about the request
 * itself (422 or 400 for a payload the service does not like: §4.4 leaves payloads to the user).
 * Only 401/403 refuse the token and only the limit-like statuses are the limit; 404/405 say the
 * endpoint is not there, so nothing about it was tested.
 */
export const passedTokenAndLimit = (status: number): boolean =>
  (status >= 200 && status < 300) ||
  (status >= 400 && status < 500 && !refusesToken(status) && !isLimitLike(status) && status !== 404 && status !== 405);
