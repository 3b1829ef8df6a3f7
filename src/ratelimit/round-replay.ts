// Replays what a limiter saw, the probe's stream and then every k6 proof round, through a candidate
// set of limits (src/ratelimit/limiters/), on one clock: a limit the probe drained is not rested when
// the first round begins, nor is one a round drained when the next begins, so a round's first
// refusal is only explained by a model that carried the state across. Pure and deterministic: the
// stacked-limit inference (stacked-inference.ts) asks it what each candidate would have answered.

import { createLimiter, type Limits } from './limiters/index.js';
import type { TimelinePoint } from './types.js';

/** One k6 proof round as the replay needs it: paced at `rps` from `startS` (seconds since the probe began) for `durationS`. */
export interface RoundRun {
  rps: number;
  startS: number;
  durationS: number;
  /**
   * How long calls refused near the end keep retrying after the arrivals stop, seconds (the
   * policy's retry budget; k6 lets them finish): their successes count in the round's goodput.
   */
  tailS: number;
  /**
   * Whether `startS` is when k6's arrivals really began (its own scenario start), not when it was
   * spawned: it begins some tenths of a second later (0.4 s on a loaded 2-core machine), more under load.
   */
  startMeasured?: boolean;
  /**
   * How long a VU holds a refused call at most, seconds: the policy's retry budget (each retry's
   * wait must fit in it, scenarios/lib/retry.ts). k6 drops an arrival only while every VU holds one,
   * so only near a refusal (ReplayedRound.admittedNearRefusal). Absent: not known.
   */
  retryBudgetS?: number;
}

/** What a candidate answered a replayed round's paced arrivals. */
export interface ReplayedRound {
  /** Seconds into the round of the first refusal; null when none. */
  firstRefusalS: number | null;
  sent: number;
  accepted: number;
  /** Paced arrivals refused (the tail's retries aside): what k6 would count as 429s, once each. */
  refusedArrivals: number;
  /** Accepted from the first refusal on: what the limit let through once its quota was spent. */
  acceptedAfterFirst: number;
  /**
   * Of `accepted`, the tail's retries let through after the arrivals stopped: k6 may have got none
   * of them (each call gives up once the wait its 429 asks runs past its retry budget), so a count
   * of k6's is too low for the candidate only below `accepted`, and too high only above this less.
   */
  tailAccepted: number;
  /** Seconds into the round of the first arrival accepted after the first refusal; null when none was. */
  admittedAgainS: number | null;
  /**
   * Arrivals admitted within a held call's reach of a refusal (`retryBudgetS` and HELD_SLACK_S after
   * it): the only ones an arrival k6 dropped may have been, had this candidate been the limit. Every
   * one admitted from the round's first refusal on when the budget is not known.
   */
  admittedNearRefusal: number;
}

/**
 * What a caller reads of a round, so that the replay stops as soon as the rest cannot matter: a
 * candidate set the round already refutes is not replayed to the end, nor are the rounds after it.
 */
export interface RoundNeeds {
  /**
   * Whether a first refusal this many seconds into the round explains it, true on an interval
   * around `seenS` (where k6 saw it): a first refusal it rejects, or none by the time one after
   * `seenS` is rejected, refutes the candidate (no refusal at all never explains the round).
   */
  firstRefusal?: { seenS: number; fits: (atS: number) => boolean };
  /** Whether this many calls let through are already too many: they only grow, so the candidate is refuted. */
  tooMany?: (accepted: number) => boolean;
  /** Only the round's first refusal is read: the replay ends there. */
  firstRefusalOnly?: true;
}

export interface Replay {
  /** The probe's slots, accepted as the candidate would have (same order as the timeline). */
  probeAccepted: number[];
  /**
   * The rounds replayed: all of them, unless `refuted` (then up to the refuting one, itself cut
   * short); a round replayed for its first refusal only ends there.
   */
  rounds: ReplayedRound[];
  /** The index of the round that refuted the candidate (RoundNeeds), its figures partial. */
  refuted?: number;
  /** When each request the candidate admitted was sent, seconds since the probe began, in order. */
  admittedS: number[];
}

/**
 * How much longer than its retry budget a VU may stay held after a refusal, seconds: k6 wakes late
 * from a retry's sleep on a busy machine (the bench saw a bucket's readmission 2.17 s after its first
 * refusal, after a Retry-After of 1 s), and a retry refused again chains another wait.
 */
export const HELD_SLACK_S = 3;

/**
 * The calls a k6 round holds in flight at most: its VUs, about three seconds of arrivals, at most
 * 300 (maxVUs in scenarios/rate-limit.ts). A 429 holds its VU while it waits, so when the arrivals
 * stop only these are left retrying over the tail, not a tail's length of paced arrivals (39 s at
 * 24 req/s is 936 calls where k6 holds 72).
 */
export const maxInFlight = (rps: number): number => Math.min(300, Math.ceil(rps * 3));

/**
 * The probe's requests are known per slot of its timeline (100 ms, or 1 s for a long probe): each
 * slot's are replayed spread evenly across it, which is within the slot's own timing uncertainty.
 * Rounds are replayed without k6's retries: a retry only spends capacity a paced arrival would
 * have spent, so what a limit lets through over a round is the same; but the calls still retrying
 * when the arrivals stop go on for the round's tail, and what the limit lets through then counts
 * (k6's goodput counts it too, and the next round meets the limit they left).
 */
export function replay(
  limits: Limits,
  timeline: readonly TimelinePoint[],
  rounds: readonly RoundRun[],
  needs: ReadonlyArray<RoundNeeds | undefined> = [],
): Replay {
  const limiter = createLimiter(limits);
  const admittedS: number[] = [];
  const take = (atS: number) => {
    const ok = limiter.take(Math.round(atS * 1000)).ok;
    if (ok) admittedS.push(atS);
    return ok;
  };
  const slotS = timeline.length > 1 ? timeline[1]!.t - timeline[0]!.t : 0.1;
  const probeAccepted = timeline.map((p) => {
    let accepted = 0;
    for (let i = 0; i < p.offered; i++) if (take(p.t + ((i + 0.5) / p.offered) * slotS)) accepted++;
    return accepted;
  });
  const replayed: ReplayedRound[] = [];
  for (const [i, r] of rounds.entries()) {
    const { round, refuted } = replayRound(r, take, needs[i] ?? {});
    replayed.push(round);
    if (refuted) return { probeAccepted, rounds: replayed, admittedS, refuted: i };
  }
  return { probeAccepted, rounds: replayed, admittedS };
}

/** One round's paced arrivals and its tail through `take`, until what `needs` reads is known. */
function replayRound(
  r: RoundRun,
  take: (atS: number) => boolean,
  needs: RoundNeeds,
): { round: ReplayedRound; refuted: boolean } {
  const sent = Math.floor(r.rps * r.durationS);
  let accepted = 0;
  let acceptedAfterFirst = 0;
  let firstRefusalS: number | null = null;
  let admittedAgainS: number | null = null;
  let lastRefusalS: number | null = null;
  let admittedNearRefusal = 0;
  let refusedArrivals = 0;
  const heldS = r.retryBudgetS === undefined ? Infinity : r.retryBudgetS + HELD_SLACK_S;
  const { firstRefusal, tooMany, firstRefusalOnly } = needs;
  const figures = () => ({
    firstRefusalS,
    sent,
    accepted,
    refusedArrivals,
    acceptedAfterFirst,
    tailAccepted,
    admittedAgainS,
    admittedNearRefusal,
  });
  // The tail's retries only follow refusals: a round refused nothing has no call left waiting.
  // They are the calls in flight when the arrivals stop, one per VU: never more than k6 holds. Each
  // keeps retrying until it gets through or the retry budget ends, so they are tried over the whole
  // budget until that many got through: a limit that reopens 11 s after the arrivals stop lets all
  // of them through (k6's goodput counts them), and a replay that gave up after 3 s of tries
  // under-counted it; where arrivals were dropped only that count refutes, so it must not fall short.
  const tail = Math.min(r.rps * r.tailS, maxInFlight(r.rps));
  let tailAccepted = 0;
  for (let k = 0; k < sent || (firstRefusalS !== null && k < sent + r.rps * r.tailS && tailAccepted < tail); k++) {
    const atS = k / r.rps;
    const ok = take(r.startS + atS);
    if (ok) accepted++;
    if (ok && k >= sent) tailAccepted++;
    if (!ok && k < sent) {
      lastRefusalS = atS;
      refusedArrivals++;
    }
    if (ok && k < sent && lastRefusalS !== null && atS - lastRefusalS <= heldS) admittedNearRefusal++;
    if (!ok && firstRefusalS === null && k < sent) {
      firstRefusalS = atS;
      if (firstRefusalOnly) return { round: figures(), refuted: false };
      if (firstRefusal && !firstRefusal.fits(atS)) return { round: figures(), refuted: true };
    }
    if (ok && firstRefusalS !== null) {
      acceptedAfterFirst++;
      admittedAgainS ??= atS;
    }
    // Admitted where a first refusal would already come too late: any later one does too.
    if (ok && firstRefusalS === null && firstRefusal && atS > firstRefusal.seenS && !firstRefusal.fits(atS))
      return { round: figures(), refuted: true };
    // Too many only without the tail's retries, which k6 may have given up (tailAccepted).
    if (ok && tooMany?.(accepted - tailAccepted)) return { round: figures(), refuted: true };
  }
  // None at all never explains a round whose refusals k6 saw.
  return { round: figures(), refuted: firstRefusal !== undefined && firstRefusalS === null };
}
