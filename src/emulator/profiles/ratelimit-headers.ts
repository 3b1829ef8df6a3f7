// A gateway that announces the client's quota on every answer (Kong, Envoy, Cloudflare,
// express-rate-limit do): the IETF RateLimit-Policy and RateLimit fields and the X-RateLimit trio,
// read off the limiter's own state, so what is announced is what is enforced. §8 publishes no
// threshold and asks for no header, so a service that announces one is as conformant as one that
// does not; the rate-limit probe takes the announcement as a hypothesis and verifies it.
//
// `overstatedRateLimitHeaders` is the same gateway misconfigured (its policy says more than the
// service behind it enforces): not a profile, since nothing in the spec is broken by it, but the
// case the probe must report as a disagreement (EmulatorOptions.overrides).

import { advertisementListHeaders, kongHeaders, type QuotaState } from '../../spec/ratelimit-fields.js';
import type { Behaviour, Ctx } from '../types.js';
import { defineProfile } from './types.js';

/** What the gateway announces, given the limiter's real quota. */
export type Claim = (real: QuotaState) => QuotaState;

/** The fields that say a limiter's quotas: every quota of a set, and the one nearest to refusing. */
type Fields = (all: readonly QuotaState[], nearest: QuotaState) => Record<string, string>;

function announcing(claim: Claim, fields: Fields = advertisementListHeaders) {
  return (base: Behaviour): Partial<Behaviour> => {
    const said = new WeakMap<Ctx, Record<string, string>>();
    return {
      limit: (ctx, key) => {
        const decision = base.limit(ctx, key);
        const nearest = ctx.env.limiter.quota(key, ctx.now);
        if (nearest) said.set(ctx, fields(ctx.env.limiter.quotas(key, ctx.now).map(claim), claim(nearest)));
        return decision;
      },
      finish: (reply, ctx) => {
        const done = base.finish(reply, ctx);
        const headers = said.get(ctx);
        return headers ? { ...done, headers: { ...done.headers, ...headers } } : done;
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

/** Kong's rate-limiting plugin: one X-RateLimit-Limit-<Unit> per limit (second, minute, hour…). */
export const kongProfile = defineProfile({
  name: 'ratelimit-headers-kong',
  description:
    "every answer announces each limit in Kong's fields (X-RateLimit-Limit-Second, X-RateLimit-Remaining-Minute, …, and RateLimit-Limit/-Remaining/-Reset), as Kong's rate-limiting plugin does",
  override: announcing((real) => real, kongHeaders),
});

/** A quota announced as `limit` per `windowS` whatever is enforced; the requests used and the reset are the real ones. */
export const overstatedQuota =
  (limit: number, windowS: number): Claim =>
  (real) => ({ limit, windowS, remaining: Math.max(0, limit - (real.limit - real.remaining)), resetS: real.resetS });

/** The gateway announcing `limit` per `windowS` whatever the limiter enforces (for EmulatorOptions.overrides). */
export function overstatedRateLimitHeaders(limit: number, windowS: number): (base: Behaviour) => Partial<Behaviour> {
  return announcing(overstatedQuota(limit, windowS));
}
