// Each side's rate limit, as the readiness rule compares it: production's limit (announced in the
// headers of the answers its checks got, or measured by a rate-limit probe with
// --allow-production-load) against the client rate the `ratelimit` command recommends on sandbox.
// Plain data in, plain data out; the command decides which probe runs (cutover.ts).

import type { RateLimitResult } from '../report/model.js';
import { advertisedRps, type Advertisement } from '../spec/ratelimit-fields.js';
import { round } from '../toolkit/stats.js';
import type { EnvironmentFacts } from './facts.js';

/** The facts a side adds, and why one it lacks is missing (by fact name, as EnvironmentFacts.missing). */
export interface RateLimitFacts {
  facts: Pick<
    EnvironmentFacts,
    | 'rate_limit_announced'
    | 'rate_limit_announced_rps'
    | 'rate_limit_measured_rps'
    | 'rate_limit_recommended_rps'
    | 'rate_limit_source'
  >;
  missing: Record<string, string>;
}

/** What the answers announced, read in passing: no request of its own. */
export function announcedLimit(ad: Advertisement | undefined): RateLimitFacts {
  if (ad === undefined)
    return {
      facts: {},
      missing: { rate_limit_announced_rps: 'no answer announced a limit (RateLimit-Policy, X-RateLimit-Limit…)' },
    };
  const rps = advertisedRps(ad);
  const said = `${ad.limit} requests${ad.windowS !== null ? ` per ${ad.windowS} s` : ', no window'} (${ad.source})`;
  return rps === null
    ? {
        facts: { rate_limit_announced: said },
        missing: { rate_limit_announced_rps: `it announces ${said}: a count with no window is no rate` },
      }
    : { facts: { rate_limit_announced: said, rate_limit_announced_rps: round(rps, 2) }, missing: {} };
}

/**
 * Where a probe's figures come from: the probe alone, or, for a limit it did not identify, the
 * paced k6 rounds that searched for the rate (a held rate is said as held, and for how long).
 */
export function probeSource(environment: string, result: RateLimitResult | null): string {
  const held = result?.sustained_held;
  if (held)
    return `a rate-limit probe of ${environment} in this run, its rate held for ${held.held_s} s by paced k6 rounds (the limiter not identified)`;
  return (result?.proof_rounds?.length ?? 0) > 0
    ? `a rate-limit probe of ${environment} in this run and its search by paced k6 rounds`
    : `a rate-limit probe of ${environment} in this run (no k6 proof)`;
}

/**
 * What a probe saw of a limiter it could not name, its first reading: "not identified" alone left
 * a user (and a red CI run: 53i, 54b, 54d) no way to tell a shape misread from a limit not there.
 */
const sawOf = (result: RateLimitResult | null): string =>
  result && !result.limiter && result.limiter_evidence?.[0] ? `; the probe saw: ${result.limiter_evidence[0]}` : '';

/**
 * A probe's figures, only when it ran to an estimate it stands by: a probe that said it could not
 * test something (a partial estimate, no sustained rate) gives no figure, and its reason is why.
 */
export function probedLimit(
  result: RateLimitResult | null,
  untested: readonly string[],
  environment: string,
): RateLimitFacts {
  const source = probeSource(environment, result);
  const why = untested[0];
  if (why !== undefined || result === null || result.sustained_rps === null)
    return {
      facts: {},
      missing: {
        rate_limit_measured_rps: `${source}: ${why ?? 'no sustained rate measured'}${sawOf(result)}`,
        rate_limit_recommended_rps: `${source}: ${why ?? 'no sustained rate measured, so nothing recommended'}`,
      },
    };
  // A headline set by an announced limit the probe could not prove is not a measurement: the
  // figure stays out of "measured", with what was measured and what binds as the reason.
  const announced = result.sustained_announced;
  const unmeasured: Record<string, string> = announced
    ? {
        rate_limit_measured_rps: `${source}: the probe measured ${announced.measured_rps} req/s for the limit it reached; ${announced.limit} per ${announced.window_s} s (${announced.source_header}) binds lower and is ${announced.agrees === false ? 'announced, disagreeing with the measurement' : 'announced, not proven'}`,
      }
    : {};
  return {
    facts: {
      ...(announced ? {} : { rate_limit_measured_rps: result.sustained_rps }),
      ...(result.recommendation ? { rate_limit_recommended_rps: result.recommendation.target_rps } : {}),
      rate_limit_source: source,
    },
    missing: {
      ...unmeasured,
      ...(result.recommendation ? {} : { rate_limit_recommended_rps: `${source}: nothing recommended` }),
    },
  };
}

/** A recommendation the history stored, from the `ratelimit` (or `run`) of sandbox it names. */
export function storedLimit(targetRps: number, source: string): RateLimitFacts {
  return {
    facts: { rate_limit_recommended_rps: targetRps, rate_limit_source: source },
    missing: {},
  };
}

/** Facts with a side's rate-limit facts folded in. */
export function withRateLimit(facts: EnvironmentFacts, ...parts: RateLimitFacts[]): EnvironmentFacts {
  let out = facts;
  for (const part of parts) out = { ...out, ...part.facts, missing: { ...out.missing, ...part.missing } };
  return out;
}
