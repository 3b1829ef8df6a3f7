// What a proof round can prove. A round that offers no more requests than the burst it starts with
// holds whatever the rate: a bucket of burst 600 refilled at 10/s lets a 5 s round at 50 req/s
// (250 requests) through whole, and "held" would then prove 50 req/s for a limit of 10. Such a
// round proves nothing about the sustained rate, so it is "inconclusive", never a hold. The loop
// lengthens a round until it outlasts the burst at the rate it proposes, within the rounds' cap;
// where the cap cannot cover it (`run` keeps its rounds at 5 s), the recommendation is "not proven
// within this horizon": said, with why and the horizon that proves it, and no failure of the
// service (a large burst is conformant). Pure: the figures in, the plan and the verdict out.

import type { ProofRound, ProofUnproven, RateLimitResult } from '../report/model.js';
import type { Recommendation } from './types.js';
import { round } from './estimators.js';

/**
 * A round must offer a fifth more than the burst it starts with: the burst is read within a request
 * or two, and k6 paces its arrivals within a few per cent, so a round offering just the burst may
 * still have fitted in it.
 */
export const REACH_OVER_BURST = 1.2;

/** What the loop knows of the burst a round meets, and how long a round may run. */
export interface ProofReach {
  /** Requests that passed back to back (the estimate's burst); null when not measured. */
  burst: number | null;
  /**
   * Whether that burst was measured from idle (the probe waited for a full refill). When not, it is
   * only a lower bound: a round is then bounded by what the wait before it can have refilled after a
   * drained limit, and after a hold by nothing. Absent: from idle.
   */
  burstFromIdle?: boolean;
  /** The round's length the horizon asked for, seconds. */
  roundS: number;
  /** The longest a round may run (the horizon, or the probe's budget where the command allows it), seconds. */
  maxRoundS: number;
  /** The wait before each round, seconds: what the limit refills of a drained burst. */
  settleS: number;
  /** The rate the limit refills at as the probe measured it; null when not measured (the burst is then taken as whole). */
  refillRps: number | null;
  /** How many times the burst a round must offer to reach past it; absent: REACH_OVER_BURST. */
  overBurst?: number;
}

export interface RoundPlan {
  /** How long the round runs, seconds. */
  durationS: number;
  /** The burst the round starts with: the whole burst, less what the wait before it did not refill. */
  startBurst: number;
  /** Whether the round offers enough to outlast that burst: only then can a hold prove the rate. */
  reaches: boolean;
  /** The round's length that would outlast the burst at this rate, seconds. */
  neededS: number;
}

/**
 * The round at `targetRps`: as long as the horizon asks, lengthened to outlast the burst at that
 * rate when the cap allows it to (else left as asked: it is inconclusive if it holds either way). `drained`: the round follows what left the limit empty (the probe, or a
 * round refused); after a round that held the burst is taken as whole, which only ever makes a round
 * more likely to be inconclusive, never a hold it was not.
 */
export function planRound(targetRps: number, reach: ProofReach, drained: boolean): RoundPlan {
  // A burst not measured, with no round from idle (run's short probe after the checks and the load
  // spent the limit), is unknown, not none: like one read only from below, a round after a drain
  // is bounded by what the wait refilled, and one after a hold by nothing (it may hold on the burst).
  const burst = reach.burstFromIdle === false ? Infinity : (reach.burst ?? 0);
  // A higher refill than the real one leaves more of the burst unspent here: the refill measured is
  // the probe's reading, and a proof that refutes it finds a slower one, so the start is never understated.
  const refilled = drained && reach.refillRps !== null ? reach.settleS * reach.refillRps : burst;
  const startBurst = Math.max(0, Math.min(burst, refilled));
  const over = reach.overBurst ?? REACH_OVER_BURST;
  const neededS = targetRps > 0 ? Math.ceil((over * startBurst) / targetRps) : Infinity;
  // Lengthened only where that reaches past the burst: a longer round that still cannot would prove
  // nothing more, and only cost the wait.
  const durationS = neededS <= reach.maxRoundS ? Math.max(reach.roundS, neededS) : reach.roundS;
  return { durationS, startBurst, reaches: targetRps * durationS >= over * startBurst, neededS };
}

/**
 * A round refused from its start by a window the rounds before (or the probe) left spent, run again
 * after `restS` at rest: in the table as it ran, marked so nothing takes it for a refusal of its
 * rate (a search held 3.8 req/s after one at 2 and said "the limit lies below 2 req/s").
 */
export function shutRound(round: ProofRound, restS: number): ProofRound {
  return butInconclusive(
    round,
    `from its start, as by a window the rounds before left spent: it proves nothing about the rate, and ran again after ${restS} s at rest`,
  );
}

/**
 * A round refused after no more requests than the refused round just before it let through at a
 * faster pace (search-loop.ts quotaRetry): what a window the rounds before left spent still had, not
 * a rate. In the table as it ran, marked so nothing takes it for a refusal of its rate.
 */
export function spentQuotaRound(round: ProofRound, count: number, restS: number): ProofRound {
  return butInconclusive(
    round,
    `refused after ${count} requests, no more than the faster round before it: what a window the rounds before left spent still had, which says nothing about the rate, and ran again after ${restS} s at rest`,
  );
}

/**
 * A round raised above a floor (search-loop.ts raisedFromFloor) that held within the promise yet met
 * a 429 after `beganS`: in the table as it ran, marked so nothing takes it for a hold.
 */
export function refusedOnceRound(ran: ProofRound, beganS: number): ProofRound {
  return butInconclusive(
    ran,
    `its first 429 came after ${round(beganS, 1)} s: a rate raised above a floor stands only with none, as a limit that refused it once refuses a client running longer`,
  );
}

/**
 * A round refused a second or less after a round that held on the store (search-loop.ts, the climb),
 * which may have left it drawn down: in the table as it ran, marked so nothing takes it for a refusal of
 * its rate, and run again once the store is back.
 */
export function drawnStoreRound(round: ProofRound): ProofRound {
  return butInconclusive(
    round,
    `it began a second or less after a round that held on what the limit stored and may have left it drawn down: it proves nothing about the rate, and ran again once the store was back`,
  );
}

/** `round` as it ran, its verdict inconclusive and why said after its own. */
const butInconclusive = (round: ProofRound, why: string): ProofRound => ({
  ...round,
  verdict: 'inconclusive',
  why: `${round.why}, but ${why}`,
});

/** A round that held within the burst: in the table as it ran, marked so nothing takes it for a hold. */
export function inconclusiveRound(round: ProofRound, plan: RoundPlan, targetRps: number): ProofRound {
  const sent = Math.round(targetRps * plan.durationS);
  const burst = Math.round(plan.startBurst);
  const within = sent <= burst ? '' : ', or within a fifth of it';
  const fits = Number.isFinite(burst)
    ? `its ${sent} requests fit in the burst of ${burst} it started with${within}`
    : `its ${sent} requests may have fitted in the burst it started with (not measured from idle, and full after a hold)`;
  return butInconclusive(round, `${fits}: it proves nothing about the rate`);
}

/**
 * Why the recommendation at `rec` is not proven within the rounds' cap, and the horizon that would
 * prove it: one outlasting the whole burst, as `ratelimit`'s longer wait refills it.
 */
export function unprovenBy(rec: Recommendation, plan: RoundPlan, reach: ProofReach): ProofUnproven {
  const fromIdle = reach.burstFromIdle !== false;
  // A burst not measured from idle is known only from below: what to ask for is sized on that, and said so.
  const whole = planRound(rec.target_rps, { ...reach, burstFromIdle: true }, false);
  // Not from idle, the burst said is the probe's reading, a lower bound.
  const start = fromIdle ? plan.startBurst : (reach.burst ?? 0);
  return {
    target_rps: rec.target_rps,
    round_s: plan.durationS,
    burst: Math.round(start),
    needed_horizon_s: Math.max(Number.isFinite(plan.neededS) ? plan.neededS : 0, whole.neededS),
    ...(fromIdle ? {} : { burst_from_idle: false as const }),
  };
}

/** What the loop's outcome means for the stage: its verdict, the policy given, and whether the run cannot pass. */
export interface ProvingVerdict {
  verdict: NonNullable<RateLimitResult['proof_verdict']>;
  given: Recommendation | null;
  /** No round held nor stayed within the burst: every policy tried was refused (the run fails). */
  refuted: boolean;
}

/**
 * The highest hold is the policy; else a round within the burst leaves its policy standing,
 * unproven within the horizon and no failure; else rounds that all failed leave nothing to give; a
 * proof that produced no figures refuted nothing (the first policy stands, unproven, "not run").
 */
export function provingVerdict(
  outcome: { proven: Recommendation | null; unproven: { rec: Recommendation } | null; rounds: readonly ProofRound[] },
  first: Recommendation,
): ProvingVerdict {
  if (outcome.proven) return { verdict: 'proven', given: outcome.proven, refuted: false };
  if (outcome.unproven) return { verdict: 'not proven within horizon', given: outcome.unproven.rec, refuted: false };
  if (outcome.rounds.length > 0) return { verdict: 'not proven', given: null, refuted: true };
  return { verdict: 'not run', given: first, refuted: false };
}
