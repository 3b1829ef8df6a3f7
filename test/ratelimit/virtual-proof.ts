// A k6 proof round on virtual time, in-process: a client paced at the policy's rate against the
// same limiter the probe met (its state carried over), each request asked once (k6's retries only
// spend capacity a paced arrival would have spent). Figured as prove.ts figures k6's: the 429
// share, the goodput over the round, when refusals began and what passed after.

import { afterQuota, roundCut } from '../../src/ratelimit/prove.js';
import { fullJitterMs } from '../../src/toolkit/backoff.js';
import type { RoundCutPlan } from '../../src/ratelimit/proof-loop.js';
import type { Proof, Recommendation } from '../../src/ratelimit/types.js';
import type { Limiter } from './virtual-limit.js';

/**
 * `cutPlan` (proof-loop.ts RoundToRun): as scenarios/rate-limit.ts ends a round (prove.ts
 * roundCut), once the refusals met long enough after the first alone break the promise; the figures are then
 * over the arrivals sent, and `cut_at_s` says so.
 */
export function virtualProofRound(
  limiter: Limiter,
  rps: number,
  startS: number,
  durationS: number,
  cutPlan?: RoundCutPlan,
): Proof {
  const planned = Math.floor(rps * durationS);
  const cut = cutPlan === undefined ? undefined : roundCut(cutPlan, rps * durationS, rps);
  const cutS = (firstS: number) => (firstS < cut!.atOnceWithinS ? cut!.atOnceAfterS : cut!.afterRefusalsS);
  let ok = 0;
  let firstS: number | undefined;
  // The first call let through after the first refusal, as k6's admitted_again_s (scenarios/rate-limit.ts).
  let againS: number | undefined;
  let pastCut = 0;
  let sent = 0;
  for (; sent < planned && !(cut && pastCut >= cut.minRefusals); sent++) {
    const atS = sent / rps;
    if (limiter(Math.round((startS + atS) * 1000)) === undefined) {
      ok++;
      if (firstS !== undefined) againS ??= atS;
    } else {
      firstS ??= atS;
      if (cut && atS >= firstS + cutS(firstS)) pastCut++;
    }
  }
  const ranS = sent < planned ? sent / rps : durationS;
  const began = firstS === undefined ? undefined : Math.round(firstS * 1000) / 1000;
  return {
    rate_429: sent > 0 ? Math.round(((sent - ok) / sent) * 1e4) / 1e4 : 0,
    goodput_rps: Math.round((ok / ranS) * 100) / 100,
    lost_requests: 0,
    ...(began !== undefined ? { refusals_began_s: began } : {}),
    ...afterQuota(ok, began, rps, ranS),
    ...(againS !== undefined ? { admitted_again_s: Math.round(againS * 1000) / 1000 } : {}),
    ...(sent < planned ? { cut_at_s: Math.round(ranS * 10) / 10 } : {}),
  };
}

/** k6 evaluates an aborting threshold every 2 s (its default), so a cut lands up to that late. */
const THRESHOLD_TICK_S = 2;

/**
 * A proof round as k6 runs it (scenarios/rate-limit.ts), on virtual time: arrivals paced at the
 * policy's rate, each needing a free VU of the pool (`vus`: the most it may hold), dropped when
 * none is; a refused call keeps its VU while it waits out the Retry-After the limiter gives (plus up
 * to half as long again, as scenarios/lib/retry.ts) and retries within the policy's count and
 * budget, then is lost; a run cut short ends at k6's next threshold tick once
 * the refusals counted past the cut break the promise, or the arrivals dropped do, calls in flight abandoned; one not cut
 * lets its calls in flight finish. `random`: the jitter's generator (seeded in tests).
 * `oversleepS`: how much later than asked each retry goes out, as a k6 starved of CPU on a busy
 * machine wakes from its sleep (the bench saw a bucket's readmission 2.17 s after its first refusal
 * where this model, waking on time, sees it after 1 s). `silent`: refusals carry no Retry-After
 * (HAProxy's deny), so a call waits its backoff's full jitter (scenarios/lib/retry.ts).
 */
export function virtualK6Round(
  limiter: Limiter,
  rec: Recommendation,
  vus: number,
  startS: number,
  durationS: number,
  random: () => number,
  cutPlan?: RoundCutPlan,
  oversleepS = 0,
  silent = false,
): Proof {
  const rps = rec.target_rps;
  const planned = Math.floor(rps * durationS);
  const cut = cutPlan === undefined ? undefined : roundCut(cutPlan, rps * durationS, rps);
  const b = rec.backoff;
  // Retries waiting, each its call's arrival, attempt and when it is due (seconds into the round).
  const waiting: Array<{ calledS: number; attempt: number; atS: number }> = [];
  let busy = 0;
  let [ok, lost, dropped, refusals, requests, pastCut, sent] = [0, 0, 0, 0, 0, 0, 0];
  let firstS: number | undefined;
  let againS: number | undefined;
  let abortS: number | undefined;
  let lastS = 0;
  const attempt = (calledS: number, n: number, atS: number) => {
    requests++;
    lastS = Math.max(lastS, atS);
    const refusedFor = limiter(Math.round((startS + atS) * 1000));
    if (refusedFor === undefined) {
      ok++;
      busy--;
      // k6 notes a call let through once its VU was refused: a retry that passed, here.
      if (n > 0) againS ??= atS;
      return done(calledS, n, false, atS);
    }
    refusals++;
    firstS ??= calledS;
    // Retry-After is whole seconds on the wire.
    const retryAfterMs = Math.max(1, Math.ceil(refusedFor / 1000)) * 1000;
    const waitMs = silent
      ? fullJitterMs(b.base_ms, b.cap_ms, n, random)
      : retryAfterMs + random() * Math.max(b.base_ms, retryAfterMs / 2);
    if (n >= b.max_retries || atS - calledS + waitMs / 1000 > rec.retry_budget_s) {
      lost++;
      busy--;
      return done(calledS, n, true, atS);
    }
    waiting.push({ calledS, attempt: n + 1, atS: atS + waitMs / 1000 + oversleepS });
  };
  // As the scenario counts a call that met 429s toward the cut, once it ended. Its clock is each VU's
  // own first refused call; here the round's first, which VUs refused early in the round share.
  const done = (calledS: number, n: number, exhausted: boolean, atS: number) => {
    if (cut === undefined || n === 0 || firstS === undefined || abortS !== undefined) return;
    const atOnce = firstS < cut.atOnceWithinS;
    if (calledS - firstS >= (atOnce ? cut.atOnceAfterS : cut.afterRefusalsS)) pastCut += exhausted ? n + 1 : n;
    if (pastCut >= cut.minRefusals) abortS = Math.ceil(atS / THRESHOLD_TICK_S + 1e-9) * THRESHOLD_TICK_S;
  };
  // As the scenario reckons its drops when a VU starts an arrival past the same moment (exactly, here).
  const dropCut = (atS: number) => {
    if (cut === undefined || firstS === undefined || abortS !== undefined) return;
    const atOnce = firstS < cut.atOnceWithinS;
    if (atS - firstS >= (atOnce ? cut.atOnceAfterS : cut.afterRefusalsS) && dropped > cut.maxDropped)
      abortS = Math.ceil(atS / THRESHOLD_TICK_S + 1e-9) * THRESHOLD_TICK_S;
  };
  for (;;) {
    const nextRetry = waiting.reduce((i, w, j) => (i < 0 || w.atS < waiting[i]!.atS ? j : i), -1);
    const arrivalS = sent < planned ? sent / rps : Infinity;
    const retryS = nextRetry < 0 ? Infinity : waiting[nextRetry]!.atS;
    const atS = Math.min(arrivalS, retryS);
    if (atS === Infinity || (abortS !== undefined && atS >= abortS)) break;
    if (retryS <= arrivalS) {
      const [w] = waiting.splice(nextRetry, 1);
      attempt(w!.calledS, w!.attempt, w!.atS);
    } else {
      sent++;
      if (busy >= vus) dropped++;
      else {
        busy++;
        dropCut(arrivalS);
        attempt(arrivalS, 0, arrivalS);
      }
    }
  }
  const ranS = abortS !== undefined ? Math.min(durationS, (sent - 1) / rps + 1 / rps) : durationS;
  const cutShort = abortS !== undefined && ranS < durationS;
  const began = firstS === undefined ? undefined : Math.round(firstS * 1000) / 1000;
  const proof: Proof = {
    rate_429: requests > 0 ? Math.round((refusals / requests) * 1e4) / 1e4 : 0,
    goodput_rps: Math.round((ok / ranS) * 100) / 100,
    lost_requests: lost,
    ...(began !== undefined ? { refusals_began_s: began } : {}),
    ...afterQuota(ok, began, rps, ranS, { dropped_arrivals: dropped, arrivals: sent }),
    ...(began !== undefined && againS !== undefined ? { admitted_again_s: Math.round(againS * 1000) / 1000 } : {}),
    ...(dropped > 0 ? { dropped_arrivals: dropped } : {}),
    arrivals: sent,
    ...(cutShort ? { cut_at_s: Math.round(ranS * 10) / 10 } : {}),
  };
  // k6 exits once the calls in flight end (scenarios/rate-limit.ts gracefulStop), a cut round at once.
  ENDED_S.set(proof, abortS !== undefined ? ranS : Math.max(ranS, lastS));
  return proof;
}

const ENDED_S = new WeakMap<Proof, number>();

/**
 * When k6 would exit after the round, seconds into it: a round not cut lets its calls in flight
 * retry to their end (the retry tail), and the stage rests for the next round only from then.
 * `ranS` for a proof not made by virtualK6Round.
 */
export const k6EndedS = (proof: Proof, ranS: number): number => ENDED_S.get(proof) ?? ranS;

/** A policy paced at `target_rps`: two in flight, a backoff of 300-1200 ms, 4 retries within `retry_budget_s`. */
export const pacedPolicy = (target_rps: number, retry_budget_s = 5): Recommendation => ({
  target_rps,
  max_concurrency: 2,
  backoff: { base_ms: 300, cap_ms: 1200, jitter: 'full', max_retries: 4 },
  retry_budget_s,
  why: ['test'],
});
