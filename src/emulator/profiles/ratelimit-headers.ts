// A gateway that announces the client's quota on every answer (Kong, Envoy, Cloudflare,
// express-rate-limit do): the IETF RateLimit-Policy and RateLimit fields and the X-RateLimit trio,
// read off the limiter's own state, so what is announced is what is enforced. §8 publishes no
// threshold and asks for no header, so a service that announces one is as conformant as one that
// does not; the rate-limit probe takes the announcement as a hypothesis and verifies it.
//
// `overstatedRateLimitHeaders` is the same gateway misconfigured (its policy says more than the
// service behind it enforces): not a profile, since nothing in the spec is broken by it, but the
// case the probe must report as a disagreement (EmulatorOptions.overrides).

import { advertisementHeaders, type QuotaState } from '../../spec/ratelimit-fields.js';
import type { Behaviour, Ctx } from '../types.js';
import { defineProfile } from './types.js';

/** What the gateway announces, given the limiter's real quota. */
export type Claim = (real: QuotaState) => QuotaState;

function announcing(claim: Claim) {
  return (base: Behaviour): Partial<Behaviour> => {
    const quotas = new WeakMap<Ctx, QuotaState>();
    return {
      limit: (ctx, key) => {
        const decision = base.limit(ctx, key);
        const quota = ctx.env.limiter.quota(key, ctx.now);
        if (quota) quotas.set(ctx, claim(quota));
        return decision;
      },
      finish: (reply, ctx) => {
        const done = base.finish(reply, ctx);
        const quota = quotas.get(ctx);
        return quota ? { ...done, headers: { ...done.headers, ...advertisementHeaders(quota) } } : done;
      },
    };
  };
}

export const profile = defineProfile({
  name: 'ratelimit-headers',
  description:
    'every answer announces the client quota (RateLimit-Policy, RateLimit, X-RateLimit-Limit/-Remaining/-Reset), as Kong, Envoy, Cloudflare and express-rate-limit do',
  override: announcing((real) => real),
});

/** A quota announced as `limit` per `windowS` whatever is enforced; the requests used and the reset are the real ones. */
export const overstatedQuota =
  (limit: number, windowS: number): Claim =>
  (real) => ({ limit, windowS, remaining: Math.max(0, limit - (real.limit - real.remaining)), resetS: real.resetS });

/** The gateway announcing `limit` per `windowS` whatever the limiter enforces (for EmulatorOptions.overrides). */
export function overstatedRateLimitHeaders(limit: number, windowS: number): (base: Behaviour) => Partial<Behaviour> {
  return announcing(overstatedQuota(limit, windowS));
}
