// §7 and §8: over its limit the service answers 429. Limiters are known to answer 503, 509 or 420
// instead; the conformance burst, the rate-limit probe and the recovery check all count those as
// the limit's refusal too, so `check` and `ratelimit` agree on what a refusal is (and a check can
// then say "limited with 503; §7 wants 429").

export const LIMIT_LIKE_STATUSES: readonly number[] = [429, 503, 509, 420];

export const isLimitLike = (status: number): boolean => LIMIT_LIKE_STATUSES.includes(status);
