// From a measured limit to a client policy an SRE can paste into their config. Pure: the same
// estimate always gives the same recommendation, and every figure's reasoning is written out (in
// these comments and in `why`, which the report shows).

import type { AdvertisedLimit, BackoffPolicy } from '../report/model.js';
import { backoffWindowMs } from '../toolkit/backoff.js';
import { round } from './estimators.js';
import type { Estimate, Recommendation } from './types.js';
import { lineDelayLine, queueDelayLine, queueFreeLatencyMs } from './queue-bound.js';
import { countsRefused, type LimiterModel } from './limiters/index.js';
import { windowOf } from './horizon.js';

export type RecommendInput = Pick<
  Estimate,
  'sustained_rps' | 'burst' | 'recovery_s' | 'refill_s' | 'retry_after_header' | 'retry_after_max_s' | 'latency_p95_ms'
> &
  Partial<Pick<Estimate, 'limiter' | 'limiters' | 'advertised' | 'announced' | 'rate_bracket' | 'served_rps'>>;

/** The share of the measured rate a client should leave unused. */
export const HEADROOM = 0.2;
/** Per request, the chance that a lone follower of the policy is still refused after its last retry. */
export const LOSS_TARGET = 1e-4;
export const RETRY_BOUNDS = { min: 3, max: 10 } as const;
export const BASE_BOUNDS_MS = { min: 20, max: 10_000 } as const;
export const CAP_MAX_MS = 60_000;

const ceilTo = (n: number, step: number) => Math.ceil(n / step) * step;

/** The figure a rate is rounded to (roundedRate, roundedRateUp): whole requests per second from 10 up, tenths from 1, hundredths below. */
const rateStep = (raw: number): number => (raw >= 10 ? 1 : raw >= 1 ? 0.1 : 0.01);

/** Rounded up to the next figure roundedRate gives: a rate that must reach a count, never short of it. */
export const roundedRateUp = (raw: number): number => round(ceilTo(raw - 1e-9, rateStep(raw)), 2);

/** Rounded down to figures a person would type: whole requests per second from 10 up, tenths from 1, hundredths below. */
export function roundedRate(raw: number): number {
  if (raw >= 10) return Math.floor(raw);
  if (raw >= 1) return Math.floor(raw * 10) / 10;
  return Math.max(0.01, Math.floor(raw * 100) / 100);
}

/**
 * The one place a recommended rate meets the measured one: never above it. Every rate the harness
 * recommends, the first (recommend) and each lowered one (proof-loop.ts), passes through here, so
 * a policy above what the probe saw the limit admit cannot be given, whatever the headroom or a
 * proof's goodput say.
 */
export function atMostMeasured(rate: number, measuredRps: number): number {
  return Math.min(rate, measuredRps);
}

/**
 * The lowest rate an announced limit allows (limit ÷ window), with the one that says it; null when
 * none names a window. Every announced limit counts that the probe did not find to agree with what
 * it measured (an agreeing one is the measured limit, already sized): a per-minute quota the probe
 * never reached still refuses a client paced above it, an hour into its run.
 */
export function announcedCeiling(
  e: Partial<Pick<Estimate, 'advertised' | 'announced'>>,
): { rps: number; limit: AdvertisedLimit } | null {
  let lowest: { rps: number; limit: AdvertisedLimit } | null = null;
  for (const limit of [...(e.advertised ? [e.advertised] : []), ...(e.announced ?? [])]) {
    if (limit.window_s === null || !(limit.window_s > 0) || limit.agrees === true) continue;
    const rps = limit.limit / limit.window_s;
    if (lowest === null || rps < lowest.rps) lowest = { rps, limit };
  }
  return lowest;
}

/**
 * The rate a client may be sized by: the measured sustained rate, or lower, an announced limit's,
 * or the rate the service behind the limit answered at (served_rps: a client above it builds a
 * line that never empties). The first recommendation and every lowered one (proof-loop.ts) stay at
 * or below it.
 */
export function bindingRps(
  e: Pick<Estimate, 'sustained_rps'> & Partial<Pick<Estimate, 'advertised' | 'announced' | 'served_rps'>>,
): number | null {
  const sustained = e.sustained_rps;
  if (sustained === null || !(sustained > 0)) return null;
  const ceiling = announcedCeiling(e);
  return Math.min(sustained, ceiling?.rps ?? Infinity, e.served_rps ?? Infinity);
}

/**
 * The fewest calls at once the proof lets a client have when its concurrency bounds its waits
 * (proofConcurrency): k6 runs its own code between arrivals too, so one VU alone falls behind a
 * pace that one call in flight would keep.
 */
export const MIN_PROOF_CONCURRENCY = 2;

/** Calls holding their waits retry at most target / 2 while refused (2 calls / base ≤ target / this × 2). */
const RETRY_SHARE_DIVISOR = 4;

/**
 * A limit that counts the requests it refuses (HAProxy's usual recipe tracks every request, the
 * emulator's "refusals counted") is held shut by the retries of the client it refused: each retry
 * is counted, so a client whose refused calls keep retrying beside its new ones sends more than
 * the limit admits for as long as it is refused, and stays refused (an every-request sliding
 * counter of 40 per 0.5 s held a client paced at 64 req/s refused for the rest of its 120 s after
 * one 0.2 s stall, 89 % of its requests 429; virtual, test/ratelimit/counted-retries-virtual).
 * Such a client must count its calls waiting out a 429 among its concurrency: held to N of them,
 * it sends at most N per wait while refused, and the count drains.
 */
export const waitsHoldConcurrency = (limiter: LimiterModel | null | undefined): boolean =>
  limiter !== null && limiter !== undefined && countsRefused(limiter);

/** A limiter of no known kind, searched by paced rounds (rate-bracket.ts): it may count refused requests. */
export const searchedLimiter = (e: Pick<RecommendInput, 'limiter' | 'rate_bracket'>): boolean =>
  !e.limiter && e.rate_bracket !== undefined;

/** Whether a policy's calls waiting out a 429 count among its concurrency: the limiter counts refusals, or may. */
export const waitsHold = (e: Pick<RecommendInput, 'limiter' | 'rate_bracket'>): boolean =>
  waitsHoldConcurrency(e.limiter) || searchedLimiter(e);

/** The calls at once a proof of `rec` runs with when they include its waits: its concurrency, at least MIN_PROOF_CONCURRENCY. */
export const proofConcurrency = (rec: Pick<Recommendation, 'max_concurrency'>): number =>
  Math.max(MIN_PROOF_CONCURRENCY, rec.max_concurrency);

/** A rate below the measured one, rounded down (roundedRate). */
export function targetRate(sustainedRps: number): number {
  return atMostMeasured(roundedRate(sustainedRps * (1 - HEADROOM)), sustainedRps);
}

/**
 * The backoff's cap, why, and what its waits must add up to. By the time a drained limit has
 * refilled its whole burst, waiting longer only wastes goodput; when the service sends Retry-After,
 * the cap must reach what it asks, so that a client that meets a 429 without the header still
 * waits as long; a set's longest window refuses until its edge. Never below four bases (the
 * doubling must have room) nor above a minute (a client should surface an error by then). The
 * waits must add up to twice the longest recovery the service may need, so that even when other
 * clients drain the same limit, the expected total wait outlasts it.
 */
function backoffCap(e: RecommendInput, base: number, recoveryMs: number) {
  const retryAfterMs =
    e.retry_after_header === 'truthful' && e.retry_after_max_s !== null ? e.retry_after_max_s * 1000 : 0;
  const refillMs = (e.refill_s ?? 0) * 1000;
  const windowMs = setWindowMs(e);
  const cap = Math.min(
    CAP_MAX_MS,
    Math.max(4 * base, ceilTo(Math.max(refillMs, retryAfterMs, 4 * recoveryMs, windowMs), 100)),
  );
  // A refill not identified (none read, or its reading refuted) is said so, never printed as 0 ms.
  const refillSaid = e.refill_s !== null ? `the refill time (${Math.round(refillMs)} ms)` : null;
  const windowSaid = windowMs > 0 ? `the set's longest window (${Math.round(windowMs)} ms), ` : '';
  return {
    cap,
    capWhy:
      `cap ${cap} ms: the longest of ${refillSaid !== null ? `${refillSaid}, ` : ''}${windowSaid}Retry-After (${Math.round(retryAfterMs)} ms) and four recoveries, at least four bases` +
      (refillSaid === null ? '; the refill time is not identified' : ''),
    mustOutlastMs: 2 * Math.max(refillMs, retryAfterMs, recoveryMs, windowMs),
    retryAfterMs,
  };
}

/**
 * Of a set of limits (a per-second bucket and a per-minute window), the longest window, ms; 0 for a
 * single limit. The recovery the probe measured is the first limit's: a silent minute's quota met
 * after it refuses until its edge, and a backoff of 400–1600 ms, 7 retries, gave up on it in 7 s
 * (`serve --limiter 'bucket:rate=10,burst=10+fixed:limit=100,window=60'`, 6 Dec).
 */
function setWindowMs(e: Pick<RecommendInput, 'limiters'>): number {
  if (!e.limiters || e.limiters.length < 2) return 0;
  return Math.max(0, ...e.limiters.map((l) => (windowOf(l) ?? 0) * 1000));
}

/** The wait before retry `attempt` (0-based) is uniform in [0, window(attempt)] under full jitter. */
export const jitterWindowMs = (b: Pick<BackoffPolicy, 'base_ms' | 'cap_ms'>, attempt: number): number =>
  backoffWindowMs(b.base_ms, b.cap_ms, attempt);

/**
 * The chance that every one of `retries` retries lands too early, for a client alone at a limit
 * that frees capacity `recoveryMs` after a refusal, bounded from above by each wait alone: retry i
 * waits U_i ~ uniform[0, w_i], and all fail only if every U_i is below the recovery, so the product
 * of min(1, recovery / w_i). The retry count is chosen on it (recommend): the proof rounds and the
 * search that sizes a limiter no detector knows are tuned on the counts it gives.
 */
export function perWaitLossBound(
  b: Pick<BackoffPolicy, 'base_ms' | 'cap_ms'>,
  retries: number,
  recoveryMs: number,
): number {
  let p = 1;
  for (let i = 0; i < retries; i++) p *= Math.min(1, recoveryMs / jitterWindowMs(b, i));
  return p;
}

/**
 * The same chance, bounded as tightly as the report says it: the waits add up, so the last retry
 * is sent S = U_0 + … + U_(n-1) after the refusal, and every retry fails exactly when S falls
 * before the recovery. The points of the box under the plane S = recovery lie in the simplex of
 * volume recovery^n / n!, so that over the product of the w_i bounds it too; the lower of the two is
 * kept. With windows as long as the recovery (a minute's window behind the one-minute cap) the
 * per-wait bound is 1 whatever the retries, and a report said "chance of losing a request alone ≤
 * 1.0e+0" beside ten retries whose waits add up to 490 s; this gives 7e-6 there.
 */
export function lossBound(b: Pick<BackoffPolicy, 'base_ms' | 'cap_ms'>, retries: number, recoveryMs: number): number {
  let simplex = 1;
  for (let i = 0; i < retries; i++) simplex *= recoveryMs / jitterWindowMs(b, i) / (i + 1);
  return Math.min(perWaitLossBound(b, retries, recoveryMs), simplex);
}

/** The longest a follower may wait across `retries` retries (the sum of the jitter windows). */
export function horizonMs(b: Pick<BackoffPolicy, 'base_ms' | 'cap_ms'>, retries: number): number {
  let total = 0;
  for (let i = 0; i < retries; i++) total += jitterWindowMs(b, i);
  return total;
}

export function recommend(e: RecommendInput): Recommendation | null {
  const sustained = e.sustained_rps;
  if (sustained === null || !(sustained > 0)) return null;

  // Rate: 20 % below the measured steady rate, so clock drift, a second process of the same client
  // and the measurement's own error (about ±1 %) never push the client into the limit. An announced
  // limit of a lower rate, proven or not, binds instead: a client runs for hours, and a per-minute
  // quota the probe's seconds never reached refuses it all the same. So does the pace of a service
  // slower than its limit (served_rps): a client above it waits in a line that only grows.
  const binding = bindingRps(e) ?? sustained;
  const target = targetRate(binding);
  const ceiling = announcedCeiling(e);
  const headroom = `target ${target} req/s: ${Math.round(HEADROOM * 100)} % below`;
  return policyAt(e, target, [
    binding < sustained && ceiling !== null && binding === ceiling.rps
      ? `${headroom} the ${round(ceiling.rps, 2)} req/s announced as ${ceiling.limit.limit} per ${ceiling.limit.window_s} s (${ceiling.limit.source_header}, ${ceiling.limit.agrees === false ? 'disagreeing with the measurement' : 'announced, not proven'}), below the measured ${sustained} req/s`
      : binding < sustained && binding === e.served_rps
        ? `${headroom} the ${binding} req/s the service answered at, below the ${sustained} req/s its limit admits: above it, admitted requests wait in a line that grows`
        : `${headroom} the measured ${sustained} req/s`,
  ]);
}

/**
 * The policy at `target` req/s: its concurrency, backoff and retries sized from the estimate's
 * figures, each reason written for the figure given. `rateWhy`: why the rate is `target` (the
 * first recommendation's headroom, or the proof rounds that set it, proof-loop.ts). `atLeast`: a
 * backoff a proof round widened because calls were lost with a narrower one, kept. The proof loop
 * sizes every later round here from the estimate its rounds left standing (refuted.ts), so a
 * policy given after a reading was refuted carries no figure of that reading, and no reason of a
 * rate it no longer runs at.
 */
export function policyAt(
  e: RecommendInput,
  target: number,
  rateWhy: readonly string[],
  atLeast?: Pick<BackoffPolicy, 'base_ms' | 'max_retries'>,
): Recommendation {
  const why: string[] = [...rateWhy];

  // Concurrency: Little's law, requests in flight = rate × time each one takes; at the p95 latency
  // the target rate needs this many in flight, rounded up. Never more than the burst: requests in
  // flight together can reach the limit together, and beyond the burst some of them are refused.
  // A queue's own wait is no part of the time a paced client's request takes (queue-bound.ts).
  const queue = e.limiter?.kind === 'queue' ? e.limiter : undefined;
  // Nor is the line of a limit that delays without refusing (rate-bracket.ts queuedBracket): its first answers' time.
  const line = e.rate_bracket?.lineFirstMs;
  const latencyMs = queue ? queueFreeLatencyMs(e.latency_p95_ms, queue) : (line ?? e.latency_p95_ms);
  let concurrency = Math.max(1, Math.ceil((target * (latencyMs ?? 0)) / 1000));
  if (e.burst !== null && e.burst >= 1 && concurrency > e.burst) concurrency = e.burst;
  // Calls waiting out a 429 count among them when the limit counts refusals (waitsHoldConcurrency):
  // one slot alone would leave a client stalled behind every wait.
  const searched = searchedLimiter(e);
  const holds = waitsHold(e);
  if (holds && (e.burst === null || e.burst >= MIN_PROOF_CONCURRENCY))
    concurrency = Math.max(concurrency, MIN_PROOF_CONCURRENCY);
  why.push(
    `concurrency ${concurrency}${holds ? ' in flight' : ''}: ${target} req/s × p95 ${latencyMs ?? 'unknown'} ms in flight, rounded up` +
      (queue ? ` (the answers' p95 less the queue's longest wait)` : '') +
      (line !== undefined && !queue ? ` (the line's first answers: its own wait is no part of it)` : '') +
      (e.burst !== null ? `, at most the burst (${e.burst})` : '') +
      (holds ? `, at least ${MIN_PROOF_CONCURRENCY}; the calls at once, waits included, below` : ''),
  );
  if (queue) why.push(queueDelayLine(queue, target, concurrency));
  else if (line !== undefined && e.served_rps !== undefined) why.push(lineDelayLine(e.served_rps, target, concurrency));

  // Backoff base: the measured recovery is how long after a refusal a request passes again. With
  // full jitter the first retry waits uniform[0, base]; base = 2 × recovery makes that wait the
  // recovery on average, so a lone client's first retry passes at least half the time, and each
  // further retry halves the odds of failing again. Without a measured recovery, one interval of
  // the sustained rate (or, with none standing, of the target) is what a bucket needs to free one request.
  const intervalRps = e.sustained_rps !== null && e.sustained_rps > 0 ? e.sustained_rps : target;
  const recoveryMs = (e.recovery_s ?? 1 / intervalRps) * 1000;
  // A limit counting refusals: the calls at once, each waiting half a base on average before its
  // first retry, retry at most 2 × calls / base per second while refused; at half the target rate
  // the count drains (virtual: at the whole target rate it did not, 1 % 429s at 16 calls, 0.5 s).
  const drainMs = holds ? (RETRY_SHARE_DIVISOR * concurrency * 1000) / target : 0;
  const sized = Math.min(
    BASE_BOUNDS_MS.max,
    Math.max(BASE_BOUNDS_MS.min, ceilTo(Math.max(2 * recoveryMs, drainMs), 10)),
  );
  const base = Math.max(sized, atLeast?.base_ms ?? 0);
  why.push(
    `base ${base} ms: ` +
      (base > sized
        ? `as widened after a proof round lost calls with a narrower one (twice the recovery would give ${sized} ms)`
        : `twice the ${e.recovery_s !== null ? 'measured recovery' : `interval at ${round(intervalRps, 2)} req/s (no recovery measured)`} (${Math.round(recoveryMs)} ms) after a refusal` +
          (drainMs > 2 * recoveryMs ? `, or more: the calls at once retry no faster than ${target} req/s` : '')),
  );
  if (holds) {
    // As many calls at once as that base allows (never fewer, never more than the burst): a client
    // kept to fewer falls behind its pace whenever a few answers are slow.
    const allowed = Math.floor((target * base) / (RETRY_SHARE_DIVISOR * 1000));
    if (allowed > concurrency) concurrency = e.burst !== null && e.burst >= 1 ? Math.min(allowed, e.burst) : allowed;
    why.push(
      `concurrency ${concurrency}: at most ${concurrency} calls at once, waits for a 429 included: the limit ${searched ? 'may count' : 'counts'} refused requests, so retries sent beside ever new calls would keep it shut; ${concurrency} calls waiting half a base on average retry at most ${round((2 * concurrency * 1000) / base, 1)} req/s while refused, and the count drains`,
    );
  }

  const { cap, capWhy, mustOutlastMs, retryAfterMs } = backoffCap(e, base, recoveryMs);
  why.push(capWhy);

  // Retries: the fewest (within 3..10) such that (a) a lone follower is still refused after its last
  // retry with probability at most 1e-4 (perWaitLossBound; the report says the tighter lossBound),
  // and (b) the jitter windows add up to at least twice the longest recovery the service may need
  // (backoffCap: refill, Retry-After, a set's window), so that even when other clients are draining
  // the same limit, the expected total wait outlasts a whole refill.
  const policy = { base_ms: base, cap_ms: cap };
  let fewest: number = RETRY_BOUNDS.min;
  while (
    fewest < RETRY_BOUNDS.max &&
    (perWaitLossBound(policy, fewest, recoveryMs) > LOSS_TARGET || horizonMs(policy, fewest) < mustOutlastMs)
  )
    fewest++;
  const retries = Math.max(fewest, Math.min(RETRY_BOUNDS.max, atLeast?.max_retries ?? 0));
  const loss = lossBound(policy, retries, recoveryMs);
  // At the most retries the bound may still be above the target: said, not hidden behind the figure.
  const short =
    loss > LOSS_TARGET
      ? `, above the ${LOSS_TARGET.toExponential(0)} aimed for: no more than ${RETRY_BOUNDS.max} retries are given`
      : '';
  why.push(
    `${retries} retries${retries > fewest ? ` (as widened after a proof round lost calls; ${fewest} would do alone)` : ''}: ` +
      `chance of losing a request alone ≤ ${loss.toExponential(1)}${short}, ` +
      `up to ${(horizonMs(policy, retries) / 1000).toFixed(1)} s of waiting (≥ ${(mustOutlastMs / 1000).toFixed(1)} s wanted)`,
  );

  // The time budget of one logical request: every jitter window, or, when the service's
  // Retry-After governs the waits (the harness's clients honour it and add up to half again as
  // jitter, never less than the base), that many of those waits; plus a second for the requests.
  const perRetryAfterWaitMs = retryAfterMs > 0 ? retryAfterMs * 1.5 + base : 0;
  const budgetS = Math.ceil(Math.max(horizonMs(policy, retries), retries * perRetryAfterWaitMs) / 1000) + 1;

  return {
    target_rps: target,
    max_concurrency: concurrency,
    backoff: { base_ms: base, cap_ms: cap, jitter: 'full', max_retries: retries },
    retry_budget_s: budgetS,
    why,
  };
}
