// The closed loop between the recommendation and its k6 proof: a policy is given only once a proof
// run held it to its promise; a proof that breaks the promise lowers the rate (and widens the
// backoff) and proves again, a bounded number of rounds. Pure: what the next round tries depends
// only on the policy tried and what its proof measured, so the decision is tested without k6.
//
// Why a loop at all: the probe can misread a limiter (a sliding-window counter read as a faster
// bucket), and the recommendation is sized from what it read; the proof is the one measurement of
// the policy itself, so it, not the probe, has the last word.

import type { ProofRound } from '../report/model.js';
import { round } from '../toolkit/stats.js';
import {
  BASE_BOUNDS_MS,
  CAP_MAX_MS,
  HEADROOM,
  RETRY_BOUNDS,
  atMostMeasured,
  policyAt,
  roundedRate,
  targetRate,
  type RecommendInput,
} from './recommend.js';
import { inconclusiveRound, planRound, shutRound, unprovenBy, type ProofReach } from './proof-reach.js';
import type { ProofUnproven } from '../report/model.js';
import type { Estimate, Proof, Recommendation } from './types.js';
import type { LimiterModel } from './limiters/index.js';

/**
 * What a proven policy promises a client that follows it alone: at most 1 % of its requests see a
 * 429 (a client living under the limit, with room for the measurement's error and a scheduling
 * hiccup), no call is lost once its retries are spent, and the rate is offered: once the limit
 * refused, at most 1 % of the arrivals were dropped for want of a free VU (every VU held by a call
 * waiting out a refusal). Else a round "held" that never sent its rate: 200 per 10 s behind a bucket
 * of 100, held at 27 req/s with 0.98 % 429 and 825 of 3,240 arrivals dropped, 20.1 got through.
 */
export const PROOF_PROMISE = { max_rate_429: 0.01, max_lost: 0, max_dropped: 0.01 } as const;

/** The rounds that refuted a claim: refused beyond the promise (lost calls alone blame the backoff, not the limit). */
export const refutingRounds = <R extends Pick<ProofRound, 'verdict' | 'rate_429'>>(rounds: readonly R[]): R[] =>
  rounds.filter(refutes);

/** Whether a round failed on more 429s than the promise allows: it refutes the reading it tested. */
export const refutes = (r: Pick<ProofRound, 'verdict' | 'rate_429'>): boolean =>
  r.verdict === 'fails' && r.rate_429 > PROOF_PROMISE.max_rate_429;

/**
 * At most this many proof runs: each costs the proof's horizon plus a refill, and a limit that keeps
 * moving is not one to size. Four let a first guess that failed, a low end that held and two
 * bisections bring the rate within the headroom of the limit.
 */
export const MAX_PROOF_ROUNDS = 4;

/**
 * The lowest rate a proof round runs at: the proof scenario's smallest CES_RATE
 * (scenarios/lib/config.ts). A round planned below it crashed k6 ("CES_RATE must be a number >=
 * 0.1, got 0.01": HAProxy's http_req_rate(500ms) 40 on the bench, after a round at 61 req/s met a
 * quota that let 0.01 req/s through) and the stage said "not tested" for k6, not for the limit.
 */
export const MIN_PROOF_RPS = 0.1;

/**
 * Why k6 cannot prove a policy at `targetRps` (below MIN_PROOF_RPS: a per-day or per-hour limit
 * measured to a few requests a minute), or null when it can. The first recommendation is checked
 * here before any round: handed to k6 it crashed the round, and "proof run did not complete" said
 * nothing of the limit.
 */
export function belowK6Pace(targetRps: number): string | null {
  return targetRps >= MIN_PROOF_RPS
    ? null
    : `the recommended ${targetRps} req/s is below ${MIN_PROOF_RPS} req/s, the lowest rate k6 paces, so no k6 round can prove it; a client of your own paced at that rate for two of the limit's windows would`;
}

/** Refusals that began this long into a round came after a quota ran out, not from the rate itself. */
export const QUOTA_AFTER_S = 1;

/** Whether a proof kept the promise, and if not, which half it broke (one sentence). */
export function proofHolds(proof: Proof): { holds: boolean; why: string } {
  const broken: string[] = [];
  if (proof.rate_429 > PROOF_PROMISE.max_rate_429)
    broken.push(`${pct(proof.rate_429)} of requests got 429 (promise: ≤ ${pct(PROOF_PROMISE.max_rate_429)})`);
  if (proof.lost_requests > PROOF_PROMISE.max_lost)
    broken.push(`${proof.lost_requests} calls lost after their retries (promise: ${PROOF_PROMISE.max_lost})`);
  if (notOffered(proof))
    broken.push(
      `${proof.dropped_arrivals} of its ${proof.arrivals} arrivals dropped while calls waited out refusals, so the rate was not offered (${proof.goodput_rps} req/s got through; promise: ≤ ${pct(PROOF_PROMISE.max_dropped)} dropped)`,
    );
  return broken.length === 0
    ? { holds: true, why: `${pct(proof.rate_429)} got 429, no call lost: within the promise` }
    : { holds: false, why: broken.join('; ') };
}

/**
 * Whether the round sent too few of its arrivals once the limit refused: k6 had no VU free, each
 * held by a call waiting out a refusal (drops with no refusal are the load generator's own).
 */
const notOffered = (proof: Proof): boolean =>
  proof.refusals_began_s !== undefined &&
  proof.arrivals !== undefined &&
  droppedPastPromise(proof.dropped_arrivals ?? 0, proof.arrivals);

/** k6 dropped at least this share of a round's arrivals: most of its rate was never offered. */
export const DROPPED_MOST = 0.5;

/** Whether k6 dropped at least DROPPED_MOST of a round's arrivals: most of its rate was never offered. */
export const offeredLittle = (r: { dropped_arrivals?: number; arrivals?: number }): boolean =>
  r.arrivals !== undefined && r.arrivals > 0 && (r.dropped_arrivals ?? 0) >= DROPPED_MOST * r.arrivals;

/** Whether `dropped` of a round's `arrivals` are more than the promise lets a round drop. */
export const droppedPastPromise = (dropped: number, arrivals: number): boolean =>
  dropped > PROOF_PROMISE.max_dropped * arrivals;

/**
 * A round refused from its start that let nothing through at all: the limit was shut throughout,
 * as a longer window the probe spent refuses every rate until it turns (HAProxy's tables of 1 s and
 * 60 s counting every request, the minute filled by a probe of 56 s and kept full by k6's retries).
 * With nothing to lower from, the loop ended "not proven".
 */
const shutThroughout = (proof: Proof): boolean =>
  proof.refusals_began_s !== undefined && proof.refusals_began_s < QUOTA_AFTER_S && proof.goodput_rps === 0;

/**
 * `runProof`, with a first round shut throughout tried again at its rate after `restS` at rest,
 * once: the shut round goes into `rounds` as run, and says nothing of its rate (no failure to lower
 * from, no quota); the loop sees the second. Later rounds are numbered after both.
 */
function withShutRetry(
  runProof: (rec: Recommendation, plan: RoundToRun) => Promise<Proof | null>,
  restS: number | undefined,
  rounds: ProofRound[],
): (rec: Recommendation, plan: RoundToRun) => Promise<Proof | null> {
  let after = 0;
  return async (rec, plan) => {
    const proof = await runProof(rec, { ...plan, round: plan.round + after });
    if (!restS || plan.round !== 1 || proof === null || !shutThroughout(proof)) return proof;
    rounds.push(shutRound(proofRound(rec, proof), restS));
    after = 1;
    const why = `${rec.target_rps} req/s again after ${restS} s at rest: the first round let nothing through from its start, as a longer window the probe spent refuses every rate until it turns`;
    return runProof(retried(rec, proof, rec.target_rps, why), { ...plan, round: 2, restAtLeastS: restS });
  };
}

/** One round of the report's table from the policy tried and what its proof measured. */
export function proofRound(rec: Recommendation, proof: Proof): ProofRound {
  const verdict = proofHolds(proof);
  return {
    target_rps: rec.target_rps,
    max_concurrency: rec.max_concurrency,
    backoff_base_ms: rec.backoff.base_ms,
    max_retries: rec.backoff.max_retries,
    rate_429: proof.rate_429,
    goodput_rps: proof.goodput_rps,
    lost_requests: proof.lost_requests,
    ...(proof.refusals_began_s !== undefined ? { refusals_began_s: proof.refusals_began_s } : {}),
    ...(proof.after_quota_rps !== undefined ? { after_quota_rps: proof.after_quota_rps } : {}),
    ...(proof.admitted_again_s !== undefined ? { admitted_again_s: proof.admitted_again_s } : {}),
    ...(proof.dropped_arrivals !== undefined ? { dropped_arrivals: proof.dropped_arrivals } : {}),
    ...(proof.arrivals !== undefined ? { arrivals: proof.arrivals } : {}),
    ...(proof.cut_at_s !== undefined ? { cut_at_s: proof.cut_at_s } : {}),
    verdict: verdict.holds ? 'holds' : 'fails',
    why: verdict.why,
  };
}

/**
 * The policy the next round proves after a round failed and before any held, or null when there
 * is nothing lower worth trying: the first bracket's low end, from what the proof showed passes,
 * less the same headroom the first recommendation left. What passes is the lower of the goodput
 * and the share of the rate tried that was not refused: the goodput alone overstates it under
 * overload (calls retried in the run's graceful tail succeed after the arrivals stopped, yet count
 * against the arrivals' duration: 31 req/s of goodput behind a 20/s limit), while retries only add
 * refused attempts, so rate × (1 − 429 share) never overstates it. Never above the rate just tried
 * (so each round is strictly lower) nor above the probe's measured rate. Lost calls mean the
 * retries gave up before the limit freed: the backoff base doubles and one retry is added, within
 * the recommendation's bounds.
 */
export function nextRecommendation(rec: Recommendation, proof: Proof, measuredRps: number): Recommendation | null {
  const passed = Math.min(proof.goodput_rps, rec.target_rps * (1 - proof.rate_429), proof.after_quota_rps ?? Infinity);
  // Rounded down like the first target, then at least one step below the rate tried.
  let target = atMostMeasured(roundedRate(passed * (1 - HEADROOM)), measuredRps);
  if (target >= rec.target_rps) target = roundedRate(rec.target_rps * (1 - HEADROOM));
  if (!(target >= MIN_PROOF_RPS) || target >= rec.target_rps) return null;
  return retried(
    rec,
    proof,
    target,
    `lowered to ${target} req/s after a proof at ${rec.target_rps} req/s broke the promise (${proofHolds(proof).why}): ` +
      `${Math.round(HEADROOM * 100)} % below the ${round(passed, 2)} req/s it got through`,
  );
}

/**
 * The lowest share of the sustained rate a policy given may be (issue 35: every recommendation
 * 75–100 % of the true sustained rate). A hold at this share of the most the limit may sustain
 * (`upperRps`: the lowest rate that failed, or below it what the inference leaves) is within that
 * band whatever the rate turns out to be, so no round is spent bisecting above it: each costs a
 * whole horizon (bench, HAProxy 1 s + 60 s tables counting every request: 486 s of 285).
 */
export const GIVEN_BAND_LOW = 0.75;

/**
 * Once a rate held and a higher one failed, the next round bisects between them, so the rate
 * given is the highest that held, not the first guess that did: a fixed step down from a failed
 * round throws capacity away (39 req/s refused, 11 held, behind a 20/s limit). Null when the
 * bracket is already narrow (the rate held is within the headroom of the one refused; once the
 * inference bounds the limit, `upperRps`, within GIVEN_BAND_LOW of that bound, since `failedRps` is
 * then the policy's cap, half the headroom below it) or the midpoint rounds onto one of its ends.
 */
export function bisectedRecommendation(
  held: Recommendation,
  failedRps: number,
  lastTried: Recommendation,
  lastProof: Proof,
  upperRps?: number,
): Recommendation | null {
  const narrow =
    upperRps !== undefined
      ? held.target_rps >= GIVEN_BAND_LOW * upperRps
      : held.target_rps >= failedRps * (1 - HEADROOM);
  if (narrow) return null;
  const target = roundedRate((held.target_rps + failedRps) / 2);
  if (target <= held.target_rps || target >= failedRps) return null;
  const basis = proofHolds(lastProof).holds ? held : lastTried;
  return retried(
    basis,
    lastProof,
    target,
    `bisected to ${target} req/s: ${held.target_rps} req/s held, ${failedRps} req/s broke the promise`,
  );
}

/**
 * The policy after a failed round once the limits were identified from all the evidence (not what
 * the round let through, which a window's edges make read low). One set identified: halfway between
 * its sustained rate and that rate less the first recommendation's headroom, the rate bisection
 * from the headroom's low end reaches next; the set explains every round, so a round there holds
 * and is the last, where a round at the low end holding would cost another horizon to climb from.
 * Several sets: the lowest of their rates less the whole headroom, what every one of them
 * sustains. Null when that is not below the rate just tried.
 */
export function belowIdentified(
  rec: Recommendation,
  proof: Proof,
  identified: number | { low: number; high: number },
): Recommendation | null {
  const one = typeof identified === 'number';
  const rps = one ? identified : identified.low;
  const low = targetRate(rps);
  const target = one ? atMostMeasured(roundedRate((low + rps) / 2), rps) : low;
  if (!(target >= MIN_PROOF_RPS) || target >= rec.target_rps) return null;
  // A round that held above every set's rate is lowered too (givenCap): it did not break the promise.
  const after = proofHolds(proof).holds
    ? `a proof at ${rec.target_rps} req/s held, above what every set of limits that explains the rounds is sure to sustain`
    : `a proof at ${rec.target_rps} req/s broke the promise`;
  const sustain = one
    ? `the limits identified from all the evidence sustain ${rps} req/s; halfway between that and ${low} req/s, ${Math.round(HEADROOM * 100)} % below it`
    : `every set of limits that explains the rounds sustains at least ${rps} req/s (${identified.low} to ${identified.high}), ${Math.round(HEADROOM * 100)} % below it`;
  return retried(rec, proof, target, `lowered to ${target} req/s after ${after}: ${sustain}`);
}

/**
 * The policy given from `held`, the highest rate that held over the whole round, once the
 * inference bounds the sustained rate from above at `upperRps` (the set identified, or the highest
 * of the sets that all explain every round, and below the lowest rate that failed): `held` itself
 * when it keeps half the headroom below that bound (givenCap), else its policy lowered to that cap.
 * A rate held over the horizon is what a client can rely on (issue 35 item 4), and one paced lower
 * sends less in every window, so that hold proves the lowered policy too: no round is spent proving
 * it again, and no bound of the inference's (the lowest of its sets, a guess the hold went past)
 * throws it away (bench, HAProxy tables counting every request: 9.6 req/s held, sets from 9.27 to
 * 10.13 req/s, a round at 7.4 run and given, 74 % of 10).
 */
export function givenFromHold(held: Recommendation, proof: Proof, upperRps: number): Recommendation {
  const cap = givenCap(upperRps);
  if (held.target_rps <= cap) return held;
  const target = roundedRate(cap);
  return retried(
    held,
    proof,
    target,
    `given at ${target} req/s: ${held.target_rps} req/s held over the proof's horizon, and the limit sustains at most ${round(upperRps, 2)} req/s; ${Math.round((HEADROOM / 2) * 100)} % below that, so a client paced for hours keeps room for its jitter (the hold at ${held.target_rps} req/s proves the lower rate too)`,
  );
}

/**
 * What the stacked-limit inference (stacked-inference.ts) made of the rounds so far: the sustained
 * rate of the one set it identified, the span of the sustained rates of the sets that all explain
 * them, or nothing.
 */
export type Identified = number | { low: number; high: number } | null;

/**
 * The round that tells apart the sets that all explain the rounds so far: halfway across their
 * span of sustained rates, below the lowest rate that failed. Run at once, not after a rest: the
 * limit the last round drained refuses a rate above its own soon, and admits one below it, so its
 * first refusal (or none) places the rate. Null when that is no rate below the one that failed, or
 * none above the highest that held.
 */
function tellApart(
  rec: Recommendation,
  proof: Proof,
  span: { low: number; high: number },
  failedRps: number,
  heldRps: number | null,
): Recommendation | null {
  const target = insideSpan(span.low, Math.min(span.high, failedRps));
  // A rate at or below one that held would only hold again: it tells no set apart.
  if (!(target >= MIN_PROOF_RPS) || target >= failedRps || (heldRps !== null && target <= heldRps)) return null;
  return retried(
    rec,
    proof,
    target,
    `tried ${target} req/s to tell apart the sets of limits that explain every round so far, sustaining ${span.low} to ${span.high} req/s`,
  );
}

/**
 * Halfway across (low, high), rounded as a policy is where that stays above `low`, more finely where
 * it does not: a policy's whole req/s from 10 up floors 10 to 10.45's midpoint to 10, a rate every
 * set sustains, so a round there holds and tells none apart (an admitted-only minute of 600 beside
 * its twin counting refusals, k6-like rounds). A tell-apart round is evidence, not a policy given.
 */
function insideSpan(low: number, high: number): number {
  const mid = (low + high) / 2;
  const policy = roundedRate(mid);
  if (policy > low) return policy;
  for (const digits of [1, 2]) {
    const finer = Number((Math.floor(mid * 10 ** digits) / 10 ** digits).toFixed(digits));
    if (finer > low) return finer;
  }
  return mid;
}

/** `rec` at `target` req/s, its backoff widened when `proof` lost calls, with the reason appended. */
export function retried(rec: Recommendation, proof: Proof, target: number, reason: string): Recommendation {
  const lost = proof.lost_requests > PROOF_PROMISE.max_lost;
  const base = lost ? Math.min(BASE_BOUNDS_MS.max, rec.backoff.base_ms * 2) : rec.backoff.base_ms;
  const cap = Math.min(CAP_MAX_MS, Math.max(rec.backoff.cap_ms, 4 * base));
  const retries = lost ? Math.min(RETRY_BOUNDS.max, rec.backoff.max_retries + 1) : rec.backoff.max_retries;
  const widened = lost ? { base_ms: base, max_retries: retries } : rec.widened;
  const why = [
    reason,
    ...(lost
      ? [`backoff widened to base ${base} ms, cap ${cap} ms, ${retries} retries: calls were lost with the narrower one`]
      : []),
  ];
  return {
    ...rec,
    target_rps: target,
    // In flight scales with the rate (Little's law), never below one.
    max_concurrency: Math.max(1, Math.ceil(rec.max_concurrency * (target / rec.target_rps))),
    backoff: { ...rec.backoff, base_ms: base, cap_ms: cap, max_retries: retries },
    retry_budget_s: lost ? Math.max(rec.retry_budget_s, Math.ceil(rec.retry_budget_s * 2)) : rec.retry_budget_s,
    why: [...rec.why, ...why],
    steps: [...(rec.steps ?? []), reason],
    ...(widened ? { widened } : {}),
  };
}

/**
 * `rec` sized again at its rate from `standing`, the estimate the rounds so far left standing
 * (refuted.ts withoutRefuted): its concurrency, backoff and retries, and a reason for each, from
 * figures no round refuted, the loop's reasons for the rate and any backoff it widened kept. A
 * policy carried from the first (scaled, its reasons appended to) would keep the refuted
 * reading's refill in its cap, and reasons of a rate it no longer runs at.
 */
export function sizedAgain(rec: Recommendation, standing: RecommendInput): Recommendation {
  return {
    ...policyAt(standing, rec.target_rps, rec.steps ?? [], rec.widened),
    ...(rec.steps ? { steps: rec.steps } : {}),
    ...(rec.widened ? { widened: rec.widened } : {}),
  };
}

export interface ProofLoopOutcome {
  /** The highest policy that held, or null when no round did. */
  proven: Recommendation | null;
  rounds: ProofRound[];
  /** The last round's proof, null when none produced figures. */
  lastProof: Proof | null;
  /**
   * The proof of the round that held `proven` (the report's `proof` then): a round tried after it
   * (a tell-apart round above it that failed) is not the proof of the policy given.
   */
  provenProof: Proof | null;
  /** A proof run produced no figures (k6 failed, or the run was interrupted): it is no round, and ended the loop. */
  cutShort: boolean;
  /** The lowest rate a round failed at: it refutes any reading of the limit that admits it. Null when none failed. */
  failedRps: number | null;
  /**
   * The lowest rate a failed round's limit let through once its quota was spent (after_quota_rps):
   * no rate above it holds for a client that runs longer than a proof, so no hold above it counts.
   * Null when no round met a quota.
   */
  quotaCeilingRps: number | null;
  /**
   * A round held within the burst it started with (proof-reach.ts): its policy, unproven within the
   * rounds' cap, and why. Null when every round could fail.
   */
  unproven: { rec: Recommendation; why: ProofUnproven } | null;
  /**
   * The sustained rate of the limiter set identified from all the evidence (`identifiedRps`,
   * stacked-inference.ts), after the last round; null when none was.
   */
  identifiedRps: number | null;
}

/** One round as the loop plans it, for the proof run to carry out. */
export interface RoundToRun {
  /** 1 for the first round. */
  round: number;
  /** How long it runs, seconds (proof-reach.ts); absent: the runner's own length, the horizon. */
  durationS?: number;
  /** When it is cut short once it certainly failed (prove.ts); absent: never. */
  cut?: RoundCutPlan;
  /**
   * The round before it held and left the limit as a new client meets it (a search's rounds,
   * search-loop.ts: a scout, or a round that outlasted the store), so no rest is owed. Absent: the
   * probe or a refused round came before, or a hold that may have lived on the store (it drew it down).
   */
  afterHold?: true;
  /**
   * Rest at least this long before it, seconds: the round before was refused from its start after a
   * refused round or the probe, as by a longer window they left spent (search-loop.ts restedRetry).
   * Absent: the rest the runner works out.
   */
  restAtLeastS?: number;
}

/**
 * A round that certainly failed (its refusals alone broke the promise) ends `afterRefusalsS` after
 * they began: what the limit let through after its quota has been seen by then. A round refused
 * from its start (no quota ran out) ends `atOnceAfterS` after.
 */
export interface RoundCutPlan {
  afterRefusalsS: number;
  atOnceAfterS: number;
}

export interface ProofLoopOptions {
  /** At most this many rounds (MAX_PROOF_ROUNDS). */
  maxRounds?: number;
  /** Each round planned to outlast the burst (proof-reach.ts), and a hold within it ends the loop, inconclusive. */
  reach?: ProofReach;
  /**
   * The sustained rate of a limiter set identified from the rounds so far, when one is
   * (stacked-inference.ts); it then takes the place of the quota's after-rate as the ceiling rounds
   * bisect toward and holds are judged against.
   */
  identifiedRps?: (rounds: readonly ProofRound[]) => Identified;
  /** RoundCutPlan.afterRefusalsS for every round; absent: no round is cut short. */
  cutAfterRefusalsS?: number;
  /**
   * The limit behind the probe's reading has no edge a round refused from its start could wait
   * for (edgeless): such a round is cut at once even before a quota was met.
   */
  edgeless?: boolean;
  /**
   * The rest before the first round is tried again when nothing at all got through it (withShutRetry),
   * seconds: half the horizon, the longest window a proof tests. Absent: it is not tried again.
   */
  shutRestS?: number;
  /**
   * The estimate the rounds so far leave standing (refuted.ts withoutRefuted): each round after the
   * first is sized again from it (sizedAgain). Absent: a later round is the first's policy scaled
   * to its rate.
   */
  standing?: (rounds: readonly ProofRound[]) => Standing;
}

/** What the rounds so far leave standing of the estimate: what sizes a policy, and what passed back-to-back. */
export type Standing = RecommendInput & Partial<Pick<Estimate, 'burst_passed'>>;

/**
 * The reach a round is planned with once `standing` no longer carries the burst (a proof refuted
 * the rate its refill was reckoned at, refuted.ts): what passed back-to-back, a bound from above,
 * taken whole at the start of every round (no refill rate stands to say how much came back), so a
 * round never holds within it unseen and the words quote no figure of the refuted reading.
 * Unchanged while the burst stands, or when nothing passed back-to-back was recorded.
 */
export function reachStanding(reach: ProofReach, standing: Standing): ProofReach {
  return standing.burst === null && standing.burst_passed !== undefined
    ? { ...reach, burst: standing.burst_passed, refillRps: null }
    : reach;
}

/**
 * The loop itself, with the proof run injected (the stage passes k6, tests a function): prove; while
 * no round held, try the low end the last failure's evidence gives; once one held below one that
 * failed, bisect between them; at most `maxRounds` times. The policy given is the highest that
 * held. A proof that produced no figures ends the loop: nothing was learned from it, and it refuted
 * nothing either (the stage reports why it did not run).
 */
export async function proveUntilHeld(
  first: Recommendation,
  measuredRps: number,
  runProof: (rec: Recommendation, plan: RoundToRun) => Promise<Proof | null>,
  options: ProofLoopOptions = {},
): Promise<ProofLoopOutcome> {
  const { maxRounds = MAX_PROOF_ROUNDS, reach, identifiedRps = () => null, cutAfterRefusalsS, standing } = options;
  const edgeless = options.edgeless ?? false;
  const rounds: ProofRound[] = [];
  const runRound = withShutRetry(runProof, options.shutRestS, rounds);
  let rec: Recommendation | null = first;
  let failedRps: number | null = null;
  let quotaCeilingRps: number | null = null;
  let identified: number | null = null;
  let span: { low: number; high: number } | null = null;
  let lastProof: Proof | null = null;
  let unproven: ProofLoopOutcome['unproven'] = null;
  let reachNow = reach;
  // The probe left the limit drained; so does a round refused (proof-reach.ts).
  let drained = true;
  // The most the limit may sustain once the inference spoke: the set identified, or the highest of
  // the sets that all explain every round (a quota read low, a window's edge inside the stretch
  // after it, refutes no rate they admit), and below the lowest rate that failed.
  const inferred = () => identified !== null || span !== null;
  const upper = () => Math.min(failedRps ?? Infinity, identified ?? span?.high ?? Infinity);
  // Every policy that held. Without the inference, the one given is the highest that no quota seen
  // since refutes; with it, the highest hold, kept half the headroom below `upper` (givenFromHold).
  const holds: Recommendation[] = [];
  const heldBy = new Map<Recommendation, Proof>();
  const ceiling = () => quotaCeilingRps;
  const cap = () => (inferred() ? givenCap(upper()) : ceiling());
  const highest = (): Recommendation | null =>
    holds
      .filter((h) => inferred() || ceiling() === null || h.target_rps <= ceiling()!)
      .reduce<Recommendation | null>((best, h) => (best === null || h.target_rps > best.target_rps ? h : best), null);
  const held = (): Recommendation | null => {
    const h = highest();
    return h !== null && inferred() ? givenFromHold(h, heldBy.get(h)!, upper()) : h;
  };
  // A policy lowered from a hold is sized again at its rate from what the rounds left standing.
  const given = (r: Recommendation | null) =>
    r !== null && r !== highest() && standing ? sizedAgain(r, standing(rounds)) : r;
  const outcome = (cutShort: boolean): ProofLoopOutcome => ({
    proven: given(held()),
    rounds,
    lastProof,
    provenProof: heldBy.get(highest()!) ?? null,
    cutShort,
    failedRps,
    quotaCeilingRps,
    unproven,
    identifiedRps: identified,
  });
  // A rate k6 cannot pace is never handed to it (belowK6Pace): no round, the policy not run.
  for (let round = 1; rec !== null && round <= maxRounds && belowK6Pace(rec.target_rps) === null; round++) {
    const plan = reachNow ? planRound(rec.target_rps, reachNow, drained) : null;
    const proof = await runRound(rec, {
      round,
      ...(plan ? { durationS: plan.durationS } : {}),
      ...(cutAfterRefusalsS !== undefined
        ? { cut: roundCutPlan(cutAfterRefusalsS, quotaCeilingRps !== null || edgeless) }
        : {}),
    });
    if (proof === null) return outcome(true);
    lastProof = proof;
    drained = !proofHolds(proof).holds;
    // A hold within the burst proves nothing, and a lower rate reaches less far: the loop ends here.
    if (reachNow && plan && !plan.reaches && !drained) {
      rounds.push(inconclusiveRound(proofRound(rec, proof), plan, rec.target_rps));
      unproven = { rec, why: unprovenBy(rec, plan, reachNow) };
      break;
    }
    rounds.push(proofRound(rec, proof));
    if (proofHolds(proof).holds) {
      holds.push(rec);
      heldBy.set(rec, proof);
    } else {
      failedRps = Math.min(failedRps ?? Infinity, rec.target_rps);
      // A quota spent in this round: what the limit let through after it bounds every rate, even
      // one that held for a proof's length before (it held on the quota, not on the rate).
      if (proof.after_quota_rps !== undefined)
        quotaCeilingRps = Math.min(quotaCeilingRps ?? Infinity, proof.after_quota_rps);
    }
    // Every round is evidence for or against a set identified so far: asked again after each.
    if (failedRps !== null) {
      const verdict = identifiedRps(rounds);
      identified = typeof verdict === 'number' ? verdict : null;
      span = verdict !== null && typeof verdict === 'object' ? verdict : null;
    }
    // A first round that held is the policy: nothing above it was refused, so there is nothing to
    // bisect (a search climbs instead: search-loop.ts).
    if (failedRps === null) {
      rec = null;
      continue;
    }
    const best = held();
    const above = Math.min(failedRps, cap() ?? Infinity);
    // A rate that held tells no set apart again, even one above the cap that keeps it from being the
    // policy (bench, HAProxy 1 s + 60 s tables: 10 req/s held, over a span from 9.8, and was tried again).
    const heldRps = holds.length > 0 ? Math.max(...holds.map((h) => h.target_rps)) : null;
    // Several sets explain the rounds: a round between them tells them apart, one round kept for a
    // hold; none once a hold gives a policy within the band whatever set it is (a horizon saved).
    const banded = best !== null && best.target_rps >= GIVEN_BAND_LOW * upper();
    const apart: Recommendation | null =
      span !== null && round < maxRounds - 1 && !banded ? tellApart(rec, proof, span, failedRps, heldRps) : null;
    rec =
      apart ??
      (best === null
        ? ((inferred() ? belowIdentified(rec, proof, identified ?? span!) : null) ??
          nextRecommendation(rec, proof, measuredRps))
        : bisectedRecommendation(best, above, rec, proof, inferred() ? upper() : undefined));
    if (rec !== null && standing) {
      const stands = standing(rounds);
      rec = sizedAgain(rec, stands);
      if (reachNow) reachNow = reachStanding(reachNow, stands);
    }
  }
  return outcome(false);
}

/**
 * The highest rate given as the policy once a set of limits is identified at `identifiedRps`: half
 * the first recommendation's headroom below it (belowIdentified's target). A round that held at
 * the identified rate itself (a tell-apart round, or a bisection, landing on it) held by a hair
 * for the 120 s of its proof; a client paced there for hours, with a scheduler's jitter and a
 * clock's drift, is refused now and then. Such a hold is evidence, shown in the rounds, and never
 * the policy: the loop proves the rate below instead. (Only a rate identified from all the
 * evidence sets this; a hold below a quota's after-rate alone keeps its whole rate, since that
 * figure reads a window low.)
 */
export const givenCap = (identifiedRps: number): number => identifiedRps * (1 - HEADROOM / 2) + 1e-9;

/**
 * Before a quota was met, a round refused from its start meets a misread limit, and what it let
 * through sizes the next round: it runs as long as one refused late, so the burst it started with
 * does not inflate that. Once one was, a round refused from its start meets what an earlier round
 * spent (a window before its edge, a drained bucket): that it is refused is all it shows, and it
 * ends as soon as its refusals break the promise.
 */
const roundCutPlan = (afterRefusalsS: number, atOnce: boolean): RoundCutPlan => ({
  afterRefusalsS,
  atOnceAfterS: atOnce ? 0 : afterRefusalsS,
});

/**
 * Whether a round refused from its start has no edge to wait for: the probe read the first limit
 * as a sliding window counting refused requests (HAProxy's usual recipe), and limits stacked in one
 * limiter share one recipe, so a second is a sliding window too, whose count decays without an
 * edge. What such a round shows (refused from its start on a window the probe filled, and the call
 * let through again as that count decays, seconds in) is seen within its first seconds. HAProxy's
 * 1 s and 60 s tables counting every request: round 1 ran 84 to 88 s of refusals waiting for an
 * edge a minute away that such a window never has; cut, the stage takes 449-451 virtual s, not 515-519.
 */
export const edgelessBehind = (first: LimiterModel | null | undefined): boolean =>
  first?.kind === 'sliding-window' && first.counts_refused === true;

const pct = (x: number) => `${(x * 100).toFixed(x < 0.1 ? 2 : 1)} %`;
