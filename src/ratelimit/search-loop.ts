// The paced search for the rate of a limiter no detector identified (rate-bracket.ts): the highest
// rate that holds over the proof's horizon, found in two steps so it fits a row's time budget.
// Scouting rounds, each as long as the probe saw the limit stay shut, climb from the bracket's low
// end and bisect below the first refusal: a limit that refuses a rate does so within that scale, so
// a whole horizon per guess (540 s on the real bench's HAProxy 50 per 10 s, budget 160 s) bought
// nothing a scout does not see. Then rounds over the whole horizon: just below the lowest refusal
// when that refusal was narrow, then the scouts' rate, then lower by bisection (or, refused after
// more requests than any scout sent, at that quota over its window), each cut once refused; a
// window's floor that held well below the lowest refusal is raised towards it. Only a
// hold over the whole horizon is the sustained rate reported, and the policy is given below it; a
// scout's hold is never the policy nor the headline. Pure: the proof run is injected, as in
// proof-loop.ts.

import {
  GIVEN_BAND_LOW,
  MIN_PROOF_RPS,
  QUOTA_AFTER_S,
  nextRecommendation,
  offeredLittle,
  proofHolds,
  proofRound,
  retried,
  sizedAgain,
  type ProofLoopOutcome,
  type RoundCutPlan,
  type RoundToRun,
  type Standing,
} from './proof-loop.js';
import {
  REACH_OVER_BURST,
  drawnStoreRound,
  inconclusiveRound,
  planRound,
  refusedOnceRound,
  shutRound,
  spentQuotaRound,
  unprovenBy,
  type ProofReach,
} from './proof-reach.js';
import { HEADROOM, roundedRate, roundedRateUp } from './recommend.js';
import { round } from './estimators.js';
import { AGAIN_LAG_S, letThroughSoon } from './stacked-inference.js';
import { heldOnStoreText, lineBelow, quotaLine, spreadingRps, type QuotaLine } from './quota-line.js';
import { HELD_BRACKET_RATIO, heldAtRps, sentArrivals } from './refuted.js';
import type { ProofRound } from '../report/model.js';
import type { ProbeHold, Proof, Recommendation } from './types.js';

/**
 * The policy given sits this share below the rate that held over the horizon: half an identified
 * limit's headroom (proof-loop.ts givenCap), as the hold was found by bisection to within
 * SCOUT_NARROW of a refusal. A hold at the limit itself (the real bench's HAProxy 50 per 10 s: 5 req/s,
 * the true rate, held over 120 s) held by a hair; a client paced there for hours is refused now and then.
 */
export const SEARCH_HEADROOM = HEADROOM / 2;

/**
 * Scouting stops once its highest hold is within this share of the lowest rate refused (the truth
 * lies between them). The policy is then at least SCOUT_NARROW × (1 − SEARCH_HEADROOM) = 81 % of
 * any rate the limit may sustain, above issue 35's 75 % (proof-loop.ts GIVEN_BAND_LOW) with room
 * for rounding a rate down (to whole req/s from 10 up: httprate's 43 held, 48 refused, gave 38
 * of 50 at 0.875).
 */
export const SCOUT_NARROW = 0.9;

/** The first round over the whole horizon runs this share of the lowest rate refused (aimed). */
export const SEARCH_AIM = 0.97;

/**
 * A scout runs this many times the longest the probe saw the limit stay shut (RateBracket.restS).
 * Once is enough: a scout above the limit met its refusals within it (virtual HAProxy 50 per 10 s,
 * shut 18 s: 5.1 req/s refused from 13.5 s; real, 6.2 req/s from 1.5 s), and a scout that missed
 * them costs time, not accuracy: only a hold over the whole horizon is reported. Twice (36 s) cost
 * the real bench's row 54 s over its three holds.
 */
export const SCOUT_SCALE = 1;

/**
 * A hold that offered at least 1 / SEARCH_HEADROOM times what the drain found stored (`store`, no
 * more than the limit held at rest): it proves its rate for a client running longer within that
 * share, whatever the limit (a store of S lets through S + R·D in D seconds, so H·D offered and
 * held gives R ≥ H − S/D). A hold offered less may have lived on the store (a bucket of 50 per
 * second, burst 50: 59 req/s held 5 s): the round after it is rested, and its refill read off the
 * rounds refused (settled in searchUntilHeld).
 */
const outlastedStore = (proof: Proof, store: number | null): boolean => !storeMatters(proof.arrivals ?? 0, store);

/**
 * Whether `offered` requests fall short of 1 / SEARCH_HEADROOM times `store` (what the drain found
 * stored), so what was stored moves their outcome by more than that share: the one rule behind a
 * hold that outlasted the store, what it proves past it, and how long a search's rounds rest.
 */
export const storeMatters = (offered: number, store: number | null): boolean =>
  store !== null && offered * SEARCH_HEADROOM < store;

/**
 * What a hold at `offered` requests over `heldS` seconds proves for a client running longer, when
 * it offered less than 1 / SEARCH_HEADROOM times `store` (what the drain found stored, as much as
 * the limit holds at rest): a store of S lets through S + R·D in D seconds, so the limit sustains
 * at least (offered − S) / D. Null when it offered that much (the hold proves its own rate within
 * SEARCH_HEADROOM) or the store is unknown (nothing to take off).
 */
export function sureRpsPastStore(offered: number, heldS: number, store: number | null): number | null {
  if (store === null || !storeMatters(offered, store) || !(heldS > 0)) return null;
  return pastStoreRps(offered, heldS, store);
}

const pastStoreRps = (requests: number, s: number, store: number): number =>
  round(Math.max(0, (requests - store) / s), 2);

/**
 * What a client running longer is sure of when the hold (`offered` over `heldS`) may have lived on
 * the store (sureRpsPastStore): the more that hold or the probe's own (`probeHold`, a run it let
 * through whole after the drain's refusal) proves by the same rule, with that run when it is the
 * one. Null when the hold outlasted the store or the store is unknown. A bucket of 110/s behind one
 * worker taking 125 a second, searched over `run`'s 5 s rounds: 110 req/s held on a store of 226
 * proved 64.8; the probe's second drain, 1,800 let through at 99.8 req/s, proves 86.8.
 */
export function surePastStore(
  offered: number,
  heldS: number,
  store: number | null,
  probeHold: ProbeHold | undefined,
): { sure_rps: number; probe_hold?: ProbeHold } | null {
  const own = sureRpsPastStore(offered, heldS, store);
  if (own === null || store === null) return null;
  const probe = probeHold && probeHold.s > 0 ? pastStoreRps(probeHold.requests, probeHold.s, store) : null;
  return probe !== null && probe > own ? { sure_rps: probe, probe_hold: probeHold! } : { sure_rps: own };
}

/**
 * One more round after `held`, when it offered too little to outlast the store and the rounds
 * refused cannot say whether it lived on it: paced to be refused early (quota-line.ts
 * spreadingRps), so a line read from it puts the refill a client running longer meets. Null
 * otherwise, and when that pace is above `topRps` (searchTop: the pace the drain was refused at,
 * or an announced limit): the line counts a round's requests at its pace, and past the pace a
 * service took the drain in at they reach the limit slower. A bucket of 110/s behind one worker
 * taking 125 a second: 146.3 req/s offered, refused after 1.9 s, put the line at 91.58 req/s, 17 %
 * under what held, and said a client at 110 was refused after about 6 s (`run`, 4 Dec).
 */
function spreadingRound(
  held: { rec: Recommendation; proof: Proof },
  rounds: readonly ProofRound[],
  store: number | null,
  topRps: number,
): Recommendation | null {
  const rps = outlastedStore(held.proof, store) ? null : spreadingRps(rounds, held.rec.target_rps);
  if (rps === null || rps > topRps) return null;
  const why = `${rps} req/s once, rested, to be refused early: ${held.rec.target_rps} req/s held, but offered less than ${Math.round(1 / SEARCH_HEADROOM)} times the ${store} requests the drain found stored, and the rounds refused above it are too few or too close in time to read the refill it may have lived on`;
  return retried(held.rec, held.proof, rps, why);
}

/** A scout runs at least this long, seconds: a limit seen shut only briefly still gets a few of its periods. */
export const SCOUT_MIN_S = 10;

/** At most this many scouts: a climb of three steps, a refusal and two bisections. */
export const MAX_SCOUTS = 6;

/**
 * How many climbing rounds a search whose every round covers the whole horizon (`run`'s 5 s) may
 * run: as many as its scouts' time would buy, MAX_SCOUTS of SCOUT_MIN_S. Six 5 s rounds climbing at
 * 25 % a hold reach only 3 times the guess they start from: a sliding log of 50 per 1 s across a
 * network, the search begun at 4.9 req/s (what a probe that waited most of its run got through),
 * would have ended "held 14.9, the limit may lie well above it" (CI land34b).
 */
export const shortRounds = (maxScouts: number, roundS: number): number =>
  Math.max(maxScouts, Math.floor((maxScouts * SCOUT_MIN_S) / roundS));

/** At most this many rounds over the whole horizon: aimed below the lowest refusal, the scouts' rate, one bisected below. */
export const MAX_SEARCH_PROOFS = 3;

/**
 * Every round of a search ends once its refusals break the promise: what the limit lets through
 * after them bounds no hold of a limiter of no known kind (proof-loop.ts quotaCeilingRps), so the
 * rest of the round would only cost its time (the proof loop's cut, 65 s past the first refusal,
 * outlasts a whole scout).
 */
export const SEARCH_CUT: RoundCutPlan = { afterRefusalsS: 0, atOnceAfterS: 0 };

/** How long a scout runs: a few times the limit's shut spell, never longer than the horizon. */
export const scoutLengthS = (restS: number, horizonS: number): number =>
  Math.min(horizonS, Math.max(SCOUT_MIN_S, Math.ceil(SCOUT_SCALE * restS)));

export interface SearchOptions {
  /** The rounds' reach over the burst; `roundS` is the horizon, the full rounds' length. */
  reach: ProofReach;
  /** The probe's own run let through whole after the drain's refusal (RateBracket.probeHold). */
  probeHold?: ProbeHold;
  /** A scout's length, seconds (scoutLengthS). */
  scoutS: number;
  /**
   * The longest a round over the horizon may run to outlast the burst it starts with once no rate
   * a horizon's round may try outlasts it (outlastingAgain): the probe's budget, seconds. Absent: never past `reach.maxRoundS`.
   */
  outlastS?: number;
  /** The estimate the rounds so far leave standing: each round after the first is sized again from it. */
  standing?: (rounds: readonly ProofRound[]) => Standing;
  maxScouts?: number;
  maxProofs?: number;
}

/** What the rounds so far know: the scouts' holds, the lowest refusal and its proof, and the rounds. */
interface Search {
  rounds: ProofRound[];
  failedRps: number | null;
  failedProof: Proof | null;
  /** The rates scouts held, in the order run (each above the last: a scout climbs from a hold). */
  scoutHolds: Recommendation[];
  lastProof: Proof | null;
  afterHold: boolean;
  /** The next round rests this long first (restedRetry); null: the runner's own rest. */
  restS: number | null;
  /**
   * The climb is on (searchUntilHeld's first loop, when its rounds are as long as the horizon, no
   * scouts): a round after one that held on the store rests as after any hold, and is run again
   * rested if refused (drewStore).
   */
  climbing: boolean;
  /** The last round held, in the climb, on what the limit stored: it may have left it drawn down. */
  drewStore: boolean;
  /** A round was tried again after a rest (restedRetry): once a search. */
  rested: boolean;
  /** The last round held within the burst it started with: the least rate whose round would outlast it. */
  reachRps: number | null;
  /** Rounds over the horizon run as long as outlasting the burst takes, up to `outlastS` (outlastingAgain). */
  pastHorizon: boolean;
  unproven: ProofLoopOutcome['unproven'];
}

const newSearch = (): Search => ({
  rounds: [],
  failedRps: null,
  failedProof: null,
  scoutHolds: [],
  lastProof: null,
  afterHold: false,
  restS: null,
  climbing: false,
  drewStore: false,
  rested: false,
  unproven: null,
  reachRps: null,
  pastHorizon: false,
});

/**
 * Scouts, then the rounds over the whole horizon (see the file's head). `topRps`: a rate known
 * refused or never to be passed (searchTop). The outcome is the proof loop's: `proven` is the
 * policy given, SEARCH_HEADROOM below the rate that held over the horizon (`provenProof`'s round).
 */
export async function searchUntilHeld(
  first: Recommendation,
  topRps: number,
  runProof: (rec: Recommendation, plan: RoundToRun) => Promise<Proof | null>,
  options: SearchOptions,
): Promise<ProofLoopOutcome> {
  const { maxScouts = MAX_SCOUTS, maxProofs = MAX_SEARCH_PROOFS, standing } = options;
  const s = newSearch();
  const sized = (r: Recommendation | null) => (r !== null && standing ? sizedAgain(r, standing(s.rounds)) : r);
  const outcome = (cutShort: boolean, held: { rec: Recommendation; proof: Proof } | null = null): ProofLoopOutcome => ({
    proven: held ? sized(givenFrom(held, s.rounds, options.reach.burst, options.probeHold)) : null,
    rounds: s.rounds,
    lastProof: s.lastProof,
    provenProof: held?.proof ?? null,
    cutShort,
    failedRps: s.failedRps,
    quotaCeilingRps: null,
    unproven: s.unproven,
    identifiedRps: null,
  });
  const run = (rec: Recommendation, scoutS: number | null) => runRound(s, rec, scoutS, runProof, reachOf(s, options));

  // A hold that may have lived on the store gets one more round, rested (spreadingRound); then the
  // outcome reads the line from all of them, or none when that round's refusal strays from it.
  const settled = async (held: Held | null): Promise<ProofLoopOutcome> => {
    const spread = held ? spreadingRound(held, s.rounds, options.reach.burst, topRps) : null;
    if (spread) {
      s.afterHold = false;
      await run(spread, null);
    }
    return outcome(false, held);
  };

  // A scout no shorter than the horizon (`run`'s short rounds) is a round over it: its hold is a
  // proof. So is one within SCOUT_NARROW of it, for that much more time: the probe's own stream held
  // a counter counting refused requests shut for 118 s, and six 119 s scouts climbed a quarter each
  // from 0.71 req/s to 1.7 of 4, where rounds over the horizon climb at pace (nextScout).
  const scoutS = options.scoutS < SCOUT_NARROW * options.reach.roundS ? options.scoutS : null;
  let scoutHeld: Held | null = null;
  let full: Recommendation | null = null;
  let rec: Recommendation | null = first;
  // The scout whose hold would end the scouting ran: no round aims above the rate it tried.
  let lastScouted = false;
  const rounds = scoutS === null ? shortRounds(maxScouts, options.reach.roundS) : maxScouts;
  // The scout refused just before, for the next to be read against (quotaRetry); null after a hold.
  let refusedBefore: RefusedScout | null = null;
  // Each rate refused after a hold on the store runs once more, rested (drewStore): no more.
  const rerunDrawn = new Set<number>();
  s.climbing = scoutS === null;
  for (let n = 0; rec !== null && n < rounds && rec.target_rps >= MIN_PROOF_RPS; n++) {
    lastScouted = scoutS !== null && scoutHeld !== null && rec.target_rps >= SCOUT_NARROW * (s.failedRps ?? topRps);
    // A scout whose hold would end the scouting runs over the whole horizon at once when a round
    // aimed below the refusal comes first (its rest is owed anyway); else it is scouted, the last:
    // refused, it is cut after a few refusals where a round over the horizon needs many (real bench:
    // 5.6 req/s, cut after 32 s of 120 s), and held, it cost its length less the rest it saves.
    if (lastScouted && s.failedProof && aimed(rec, s.failedRps!, s.failedProof)) {
      full = rec;
      lastScouted = false;
      break;
    }
    const failedBefore = [s.failedRps, s.failedProof] as const;
    const drewBefore = s.drewStore;
    const proof = await run(rec, scoutS);
    if (proof === null) return outcome(true);
    if (proof === 'inconclusive') {
      rec = sized(pastTheBurst(rec, s, Math.min(s.failedRps ?? topRps, topRps)) ?? outlastingAgain(rec, s, options));
      continue;
    }
    if (drewBefore && !proofHolds(proof).holds && !rerunDrawn.has(rec.target_rps)) {
      rerunDrawn.add(rec.target_rps);
      againRested(s, failedBefore);
      n--;
      continue;
    }
    if (proofHolds(proof).holds) scoutHeld = { rec, proof };
    if (lastScouted) break;
    const again: RestedRetry | null =
      scoutHeld === null ? retryShutScout(s, { rec, proof }, refusedBefore, failedBefore, options.reach.roundS) : null;
    // Nor is a scout refused by a shut window one of the scouts: they climb from the retry as they would have from it.
    if (again) n--;
    refusedBefore = again || proofHolds(proof).holds ? null : { rec, proof };
    const climb = {
      upperRps: s.failedRps ?? topRps,
      topRps,
      holds: scoutS === null ? s.rounds.filter(heldRound).length : 0,
    };
    rec = again?.rec ?? sized(nextScout(rec, proof, scoutHeld?.rec ?? null, climb));
  }
  s.climbing = false;
  if (scoutS === null) return settled(scoutHeld);
  const queue = horizonQueue(full ?? scoutHeld?.rec ?? null, scoutHeld?.rec ?? null, lastScouted ? null : s, sized);
  const ended = await overTheHorizon(queue, { s, run, sized, maxProofs, horizonS: options.reach.roundS });
  return ended === 'cut' ? outcome(true) : settled(ended);
}

type Held = { rec: Recommendation; proof: Proof };

/**
 * One round of a search (a scout when `scoutS` is its length, else over the whole horizon): run,
 * entered in the rounds, and what it leaves for the next (its rest, the lowest refusal, the scouts'
 * holds); 'inconclusive' when it held within the burst it started with, null when it produced no figures.
 */
async function runRound(
  s: Search,
  rec: Recommendation,
  scoutS: number | null,
  runProof: (rec: Recommendation, plan: RoundToRun) => Promise<Proof | null>,
  horizonReach: ProofReach,
): Promise<Proof | null | 'inconclusive'> {
  const reach = scoutS === null ? horizonReach : { ...horizonReach, roundS: scoutS };
  const plan = planRound(rec.target_rps, reach, !s.afterHold);
  const proof = await runProof(rec, {
    round: s.rounds.length + 1,
    durationS: plan.durationS,
    cut: SEARCH_CUT,
    ...(s.afterHold ? { afterHold: true as const } : {}),
    ...(s.restS !== null ? { restAtLeastS: s.restS } : {}),
  });
  s.restS = null;
  if (proof === null) return null;
  s.lastProof = proof;
  const holds = proofHolds(proof).holds;
  // A scout's hold owes the next round no rest (it proves nothing, and a round it leaves drawn
  // down fails sooner, never holds wrongly); a round's over the horizon only when it outlasted the
  // store, or in the climb, where a refusal after one that drew on the store runs again rested.
  const outlasted = outlastedStore(proof, horizonReach.burst);
  s.drewStore = holds && s.climbing && !outlasted;
  s.afterHold = holds && (scoutS !== null || outlasted || s.drewStore);
  const ran = { ...proofRound(rec, proof), ...(scoutS !== null ? { scout_s: plan.durationS } : {}) };
  // A hold within the burst it started with proves nothing, scout or not (proof-reach.ts).
  if (holds && !plan.reaches) {
    s.reachRps = ((reach.overBurst ?? REACH_OVER_BURST) * plan.startBurst) / plan.durationS;
    s.rounds.push(inconclusiveRound(ran, plan, rec.target_rps));
    if (scoutS === null) s.unproven = { rec, why: unprovenBy(rec, plan, reach) };
    return 'inconclusive';
  }
  s.rounds.push(ran);
  if (!holds && rec.target_rps < (s.failedRps ?? Infinity)) {
    s.failedRps = rec.target_rps;
    s.failedProof = proof;
  }
  if (holds && scoutS !== null) s.scoutHolds.push(rec);
  return proof;
}

/**
 * After a round that held within the burst it started with (inconclusive: it proves no rate), the
 * round at the least rate that outlasts that burst over the same length, when that stays below
 * `upperRps` (a refusal, or the pace the drain was refused at); null otherwise. Its hold showed
 * nothing refused at its own rate, so the climb goes on from it. Before, the search ended there:
 * `run`'s 5 s rounds under CI's load began at 13 req/s (the probe's throughput), 65 requests
 * within a burst of 83, and nothing was sized; the emulator's bucket of 50 per second was "not
 * tested", exit 1 (CI 48a, 49a: profiles connection-close, …).
 */
function pastTheBurst(rec: Recommendation, s: Search, upperRps: number): Recommendation | null {
  const reach = s.reachRps;
  if (reach === null || s.lastProof === null) return null;
  // Rounded up: a rate floored may fall short of reaching.
  const target = roundedRateUp(reach);
  if (target <= rec.target_rps || target >= SCOUT_NARROW * upperRps) return null;
  return retried(
    rec,
    s.lastProof,
    target,
    `${target} req/s: ${rec.target_rps} req/s held within the burst it started with, which proves no rate; the least rate whose round outlasts that burst`,
  );
}

/** How many times the burst a round past the horizon offers (reachOf). */
export const PAST_HORIZON_OVER_BURST = 2;

/**
 * After a round that held within the burst it started with, when no round over the horizon at a
 * rate it may try outlasts that burst (pastTheBurst: the rate it would take lies past the refusal):
 * the same rate again, its rounds from now on as long as outlasting the burst takes, up to
 * `outlastS`; null when even that is too short, or the rounds already may. A longer round proves
 * the rate over more than the horizon, never less. Before, the search ended there: a drain starved
 * to 62.68 req/s let 259 through a bucket of 50 per second (four seconds of its refill), `run`'s 5 s
 * round at 31 req/s fitted in it, the least rate whose 5 s round would not (62) lay past the drain's
 * pace, and a conformant service was "not tested", exit 1 (ci-62F: profiles, connection-close).
 */
function outlastingAgain(rec: Recommendation, s: Search, options: SearchOptions): Recommendation | null {
  const { reach, outlastS } = options;
  if (s.pastHorizon || s.lastProof === null || outlastS === undefined || outlastS <= reach.maxRoundS) return null;
  const plan = planRound(rec.target_rps, pastHorizonReach(reach, outlastS), false);
  if (!plan.reaches) return null;
  s.pastHorizon = true;
  return retried(
    rec,
    s.lastProof,
    rec.target_rps,
    `${rec.target_rps} req/s again, over ${plan.durationS} s: its ${reach.roundS} s round held within the burst it started with, and no rate a round of the horizon may try outlasts that burst; the rounds run as long as outlasting it takes, up to the probe's ${outlastS} s`,
  );
}

/**
 * The rounds' reach over the horizon: once they must outlast the burst past it (outlastingAgain), its
 * cap raised to `outlastS`, and each round offering PAST_HORIZON_OVER_BURST times the burst. That
 * burst is what a drain too slow to empty the limit let through, its refill with it (259 of a
 * bucket's 50): a round offering 1.2 times it held at 58 req/s over 6 s on that store, and proved
 * 14 req/s past it; offering twice, any hold proves at least half its rate past the store.
 */
const reachOf = (s: Search, options: SearchOptions): ProofReach =>
  s.pastHorizon && options.outlastS !== undefined ? pastHorizonReach(options.reach, options.outlastS) : options.reach;

/** The reach of rounds past the horizon (reachOf): up to `outlastS` long, offering PAST_HORIZON_OVER_BURST times the burst. */
const pastHorizonReach = (reach: ProofReach, outlastS: number): ProofReach => ({
  ...reach,
  maxRoundS: Math.max(reach.maxRoundS, outlastS),
  overBurst: PAST_HORIZON_OVER_BURST,
});

/** What the rounds over the whole horizon are run with: the search so far, its runner, its resizing. */
interface HorizonRun {
  s: Search;
  run: (rec: Recommendation, scoutS: number | null) => Promise<Proof | null | 'inconclusive'>;
  sized: (r: Recommendation | null) => Recommendation | null;
  maxProofs: number;
  horizonS: number;
}

/**
 * The rounds over the whole horizon, from `queue` (horizonQueue) and lower (lowered), then the
 * floors once every one was refused: the hold that ends them, 'cut' when a proof run produced no
 * figures, null when none held.
 */
async function overTheHorizon(queue: Recommendation[], h: HorizonRun): Promise<Held | 'cut' | null> {
  const { s, run, sized } = h;
  let full = queue.shift() ?? null;
  let last: Held | null = null;
  // Each rate a round over the horizon ran shut (restedRetry) runs once more, rested: no more.
  const rerun = new Set<number>();
  // The rounds at a window's floor (pastTheScouts): a bound the quotas imply, not a rate bisected to.
  const floors = new Set<Recommendation>();
  for (let n = 0; full !== null && n < h.maxProofs && full.target_rps >= MIN_PROOF_RPS; n++) {
    const failedBefore = [s.failedRps, s.failedProof] as const;
    const proof = await run(full, null);
    if (proof === null) return 'cut';
    if (proof === 'inconclusive') return null;
    if (proofHolds(proof).holds)
      return floors.has(full) ? raisedFromFloor({ rec: full, proof }, h) : { rec: full, proof };
    const again = rerun.has(full.target_rps) ? null : restedRetry(full, proof, h.horizonS);
    if (again) {
      rerun.add(full.target_rps);
      markShut(s, again, failedBefore);
      full = again.rec;
      n--;
      continue;
    }
    last = { rec: full, proof };
    // A quota no scout could have met: the rates queued from the scouts' holds prove nothing of it.
    const past = sized(pastTheScouts(full, proof, s.rounds, h.horizonS / 2)?.rec ?? null);
    if (past !== null) {
      queue.length = 0;
      floors.add(past);
    }
    full = past ?? queue.shift() ?? sized(lowered(full, proof, s.scoutHolds));
  }
  // Every round over the horizon refused: once more, at what they let through after their quota;
  // refused too, or none measured, once more at the least a window's quota they met sustains
  // (quotaBoundFloor).
  const maxWindowS = h.horizonS / 2;
  for (const floorOf of [afterQuotaFloor, quotaBoundFloor]) {
    const found = last ? floorOf(last.rec, last.proof, s.rounds, maxWindowS) : null;
    const floor = sized(found?.rec ?? null);
    if (found === null || floor === null) continue;
    // The bound holds for a client starting from rest: the rounds refused before left the window spent.
    if (floorOf === quotaBoundFloor) s.restS = maxWindowS;
    const proof = await run(floor, null);
    if (proof === null) return 'cut';
    if (proof === 'inconclusive') return null;
    if (proofHolds(proof).holds)
      return found.bound === 'window' ? raisedFromFloor({ rec: floor, proof }, h) : { rec: floor, proof };
    last = { rec: floor, proof };
  }
  return null;
}

/**
 * A window's floor that held over the whole horizon (Floor `window`: pastTheScouts, quotaBoundFloor,
 * afterQuotaFloor from a window's quota; never a measured refill) is a bound the refused rounds'
 * quotas imply for a window they did not time, not a rate bisected to: the limit may sustain up to
 * the lowest rate refused. While the hold is below GIVEN_BAND_LOW of that
 * refusal (as the proof loop bisects: above it, a policy is within issue 35's band whatever the
 * truth), a round SCOUT_NARROW below the refusal (held, the search is as narrow as a scouting one),
 * and, refused, one halfway between the floor and it (issue 35: bisect between the last rate refused
 * and the last that held). A counter of 50 per 10 s counting refused requests (true 5 req/s):
 * rounds at 5.6, 5.3 and 5.0 refused after 50-69 requests, k6's VUs waiting out its 10 s
 * Retry-After; the floor over a minute, 1.15 req/s, held, 4.3 times below, "a floor, not the
 * limit's rate", nothing sized; at another phase 3.38 held and 2.9 was given (58 %); now 4.5 holds
 * at both, 4 given. A raise refused costs its round to its first refusal and leaves the floor
 * standing (Flask-Limiter's 100 per 60 s: 1.66 held, 2.1 refused 3.3 s into the minute the hold
 * filled, and 1.66 is within the band of it). The first runs straight after the hold, as a client
 * paced there for hours meets what the hold left; the second after the rest a refused round gets.
 */
async function raisedFromFloor(floor: Held, h: HorizonRun): Promise<Held | 'cut'> {
  let upperRps = h.s.failedRps;
  for (const step of ['narrow', 'halfway'] as const) {
    const up = h.sized(raised(floor, upperRps, step));
    if (up === null) break;
    const proof = await h.run(up, null);
    if (proof === null) return 'cut';
    upperRps = Math.min(upperRps!, up.target_rps);
    if (proof === 'inconclusive' || !proofHolds(proof).holds) continue;
    const began = proof.refusals_began_s;
    if (began === undefined) return { rec: up, proof };
    // Within the promise, yet refused once: above a floor, a raise stands only with no 429 at all.
    // A bucket of 4 per second with a store of 60 behind a counter: 4.5 req/s, raised from a floor of
    // 3.38, met its first 429 after 118 s of 120, its store spent (unidentified-search-virtual).
    h.s.rounds[h.s.rounds.length - 1] = refusedOnceRound(h.s.rounds.at(-1)!, began);
  }
  return floor;
}

/** The round above a floor that held (raisedFromFloor); null once the floor is within GIVEN_BAND_LOW of `upperRps`, the lowest rate refused. */
function raised(floor: Held, upperRps: number | null, step: 'narrow' | 'halfway'): Recommendation | null {
  const rps = floor.rec.target_rps;
  if (upperRps === null || rps >= GIVEN_BAND_LOW * upperRps) return null;
  const target = roundedRate(step === 'narrow' ? SCOUT_NARROW * upperRps : (rps + upperRps) / 2);
  if (target <= rps || target >= upperRps) return null;
  const where = step === 'narrow' ? `${Math.round((1 - SCOUT_NARROW) * 100)} % below it` : 'halfway between them';
  return retried(
    floor.rec,
    floor.proof,
    target,
    `raised to ${target} req/s: ${rps} req/s held over the whole horizon, a floor the refused rounds' quotas imply, less than ${Math.round(GIVEN_BAND_LOW * 100)} % of ${upperRps} req/s, the lowest rate refused; ${where}, the floor standing if it is refused`,
  );
}

/**
 * A round refused by a window the rounds before left spent (restedRetry, quotaRetry) is not refused
 * at its rate: marked so, the lowest refusal it set undone, and the next round rested.
 */
function markShut(s: Search, again: RestedRetry, failedBefore: readonly [number | null, Proof | null]): void {
  [s.restS, s.failedRps, s.failedProof] = [again.restS, ...failedBefore];
  const last = s.rounds.at(-1)!;
  s.rounds[s.rounds.length - 1] = again.marked?.(last) ?? shutRound(last, again.restS);
}

/**
 * The round just refused began a second or less after one that held on the store (Search.drewStore):
 * marked so (drawnStoreRound), the lowest refusal it set undone, and its rate runs again after the rest a
 * refused round gets, until the store is back. Before, every round after such a hold waited for the
 * whole store to come back at the search's first rate: the cutover's sandbox starved in CI (ci-61D),
 * its drain letting 159 through, was searched from 5 req/s with 32 s of rest before each round that
 * held, and was still climbing when killed at 360 s. A round that holds on what a hold left proves
 * as much as one from rest; only a refusal needs the rest, and gets it here.
 */
function againRested(s: Search, failedBefore: readonly [number | null, Proof | null]): void {
  [s.failedRps, s.failedProof] = failedBefore;
  s.afterHold = false;
  s.rounds[s.rounds.length - 1] = drawnStoreRound(s.rounds.at(-1)!);
}

/**
 * A scout refused by a window the rounds before left spent, not at its rate: from its start
 * (restedRetry), or after no more requests than the faster one before it (quotaRetry). Marked so,
 * the lowest refusal it set undone, and its rate again after a rest, once a search; null otherwise.
 */
function retryShutScout(
  s: Search,
  ran: Held,
  before: RefusedScout | null,
  failedBefore: readonly [number | null, Proof | null],
  horizonS: number,
): RestedRetry | null {
  if (s.rested) return null;
  const again = restedRetry(ran.rec, ran.proof, horizonS) ?? quotaRetry(before, ran, horizonS);
  if (again === null) return null;
  s.rested = true;
  markShut(s, again, failedBefore);
  return again;
}

/** A scout refused: its policy and proof. */
type RefusedScout = Held;

/**
 * A scout refused after no more requests than the refused scout just before it let through (at most
 * SAME_QUOTA_COUNT times as many), at a slower pace (at most SAME_QUOTA_RATE of its rate), neither
 * from its start and none held yet: what a longer window the rounds before left spent (a minute's,
 * behind the second the probe read) still had, not a rate, and the rest between them (the probe's
 * shut spell) did not bring it back. A rate refused is refused later at a slower pace, after more
 * requests: a bucket of S refilling at R refuses a pace of r after S·r / (r − R) of them. The same
 * rate again after half the horizon's rest, once a search, as restedRetry. Lowering on crawled down
 * from what each got through: 20 per 1 s and a counter of 300 per 60 s (true 5 req/s), the minute 15
 * or 20 s into the probe, 13 req/s refused after 56-84 requests, then 6.6-7.9 after 8-22 and
 * slower ones after 19 each, and 0.46 req/s given, or nothing ("not tested"). Null otherwise.
 */
function quotaRetry(before: RefusedScout | null, after: Held, horizonS: number): RestedRetry | null {
  const [b1, b2] = [before?.proof.refusals_began_s, after.proof.refusals_began_s];
  if (before === null || b1 === undefined || b2 === undefined || b1 < QUOTA_AFTER_S || b2 < QUOTA_AFTER_S) return null;
  const [r1, r2] = [before.rec.target_rps, after.rec.target_rps];
  const [n1, n2] = [Math.round(r1 * b1), Math.round(r2 * b2)];
  if (r2 > SAME_QUOTA_RATE * r1 || n2 > SAME_QUOTA_COUNT * n1) return null;
  const restS = horizonS / 2;
  const reason = `${r2} req/s again after ${restS} s at rest: it was refused after ${n2} requests, where ${r1} req/s just before was refused after ${n1}, no more at a slower pace, as by what a longer window the rounds before left spent still had, which refuses any rate until it turns`;
  return {
    rec: retried(after.rec, after.proof, r2, reason),
    restS,
    marked: (round) => spentQuotaRound(round, n2, restS),
  };
}

/** At most this share of the scout before's rate: slower by more than a rate's noise. */
const SAME_QUOTA_RATE = 0.8;
/** At most this many times the scout before's requests before the first refusal: no more, within their noise. */
const SAME_QUOTA_COUNT = 1.2;

/**
 * The last round once even the after-quota floor was refused: at the most N / (b + W) of the rounds
 * over the horizon refused after b seconds and N requests (b ≥ QUOTA_AFTER_S), W the longest window
 * the horizon tests. A client paced from rest at more than a window's quota Q per W (W or less: a
 * sliding log, a sliding counter weighing the window before, a fixed window met at under twice its
 * rate) gets no more than Q × (b / W + 1) through by b, so Q / W ≥ N / (b + W), a round's start
 * on a window left part spent only lowering N. A fixed window met faster may let 2 Q through across
 * one edge, and the bound overshoot: the round over the horizon is what proves a rate, and one the
 * limit does not sustain is refused there, never given. (A minute's counter behind 20 per 1 s,
 * true 5 req/s: 5.66 req/s, the most a round let through before its refusal over 60 s, was refused
 * after 74 s, a counter letting more than its quota through as the window before it weighs less;
 * 325 let through in 32.5 s bound it at 3.51.) Null when none was refused so, or that rate is no
 * lower than the last one tried.
 */
function quotaBoundFloor(
  rec: Recommendation,
  proof: Proof,
  rounds: readonly ProofRound[],
  maxWindowS: number,
): Floor | null {
  const bounds = lateRefusals(refusedOverHorizon(rounds)).map(
    ({ rps, beganS }) => (rps * beganS) / (beganS + maxWindowS),
  );
  if (bounds.length === 0) return null;
  return floorRound(
    rec,
    proof,
    Math.max(...bounds),
    'window',
    `every round over it was refused, the last at what they let through after their quota too, and a window of ${maxWindowS} s or less that let a round's requests through until its refusal sustains at least this`,
  );
}

/**
 * The round after `rec`, refused over the whole horizon once N requests had passed (a quota met, not
 * let through again soon: a window's, not a bucket's refill), when every scout that held sent fewer
 * than N: their holds say nothing of that quota, and bisecting down to them spends a round over the
 * horizon on each (Flask-Limiter's moving windows, 10 per 1 s and 100 per 60 s, true 1.67 req/s:
 * 35 s scouts held 2.1 and 2.3 on 73 and 80 requests, then 2.4 and 2.3 were each refused after
 * 100, and only then was the floor at 100 per minute tried). At N over the window that refused it,
 * as long as its shut lasted: from the round's start to the first call let through again, less what
 * k6 may see late (AGAIN_LAG_S), within the refusal's start and the longest window the horizon
 * tests; a window from rest lets at least its quota through, so a longer one sustains less. Null
 * otherwise, or when that rate is no lower than `rec`'s.
 */
function pastTheScouts(
  rec: Recommendation,
  proof: Proof,
  rounds: readonly ProofRound[],
  maxWindowS: number,
): Floor | null {
  // Not from a round k6 fell behind in: a counter met by most of its arrivals dropped let more than
  // its quota through as the minute before weighed less (20 per 1 s and a counter of 300 per 60 s:
  // 325 passed 10 req/s, 5.41 was refused after 80 s, and the round after it on a spent minute).
  const [late] = lateRefusals(refusedOverHorizon(rounds.slice(-1)).filter((r) => !offeredLittle(r)));
  if (late === undefined || !stayedShut(late)) return null;
  const quota = late.rps * late.beganS;
  const scoutHolds = rounds.filter((r) => r.scout_s !== undefined && r.verdict === 'holds');
  if (scoutHolds.some((r) => (r.arrivals ?? r.target_rps * r.scout_s!) >= quota)) return null;
  const windowS = Math.min(maxWindowS, Math.max(late.beganS, (late.againS ?? Infinity) - AGAIN_LAG_S));
  return floorRound(
    rec,
    proof,
    quota / windowS,
    'window',
    `${rec.target_rps} req/s was refused over the whole horizon after about ${Math.round(quota)} requests, more than any scout that held sent, so their holds bound nothing; a window that let that many through and stayed shut ${round(windowS, 1)} s from the round's start sustains this`,
  );
}

/** The rounds over the whole horizon that were refused (a scout's refusal is no round over it). */
const refusedOverHorizon = (rounds: readonly ProofRound[]): ProofRound[] =>
  rounds.filter((r) => r.scout_s === undefined && r.verdict === 'fails');

/**
 * The last round at `floorRps` (measuredRate) once every round over the horizon was refused, `why`
 * said; null when that rate is no lower than the last one tried, or below what a round may pace.
 */
function floorRound(
  rec: Recommendation,
  proof: Proof,
  floorRps: number,
  bound: Floor['bound'],
  why: string,
): Floor | null {
  const target = measuredRate(floorRps);
  if (target >= rec.target_rps || target < MIN_PROOF_RPS) return null;
  return { rec: retried(rec, proof, target, `tried ${target} req/s over the whole horizon: ${why}`), bound };
}

/**
 * A last round's rate once rounds over the horizon were refused, and what bounds it: `window`, a
 * window's quota over a length the rounds did not time (the longest the horizon tests, or as long as
 * a round stayed shut), so the limit may sustain more (raisedFromFloor); `refill`, what rounds let
 * through once their quota ran out, a limit's refill as measured (below it by k6's own waits: two
 * buckets, the slower 2 per second with a store of 150, let 1.6-1.82 through), above which a hold
 * may live on a store the drain did not see.
 */
interface Floor {
  rec: Recommendation;
  bound: 'window' | 'refill';
}

/**
 * The rounds over the whole horizon, in order: first just below the lowest refusal when it was
 * narrow (`s`: null when the scout that ended the scouting ran at it), then `base`, the scouts'
 * rate, then the scouts' own hold before any step down: a rate bisected to (`base`, never scouted)
 * may be refused where it held (real bench, HAProxy 50 per 10 s: 5 held a scout, 6.2 refused one,
 * 6 and 5.6 refused over the horizon, and a step down to what 5.6 let through gave 4.1 of 5).
 */
function horizonQueue(
  base: Recommendation | null,
  scoutHeld: Recommendation | null,
  s: Pick<Search, 'failedRps' | 'failedProof'> | null,
  sized: (r: Recommendation | null) => Recommendation | null,
): Recommendation[] {
  const aim =
    base !== null && s !== null && s.failedRps !== null && s.failedProof
      ? sized(aimed(base, s.failedRps, s.failedProof))
      : null;
  const held = scoutHeld !== null && base !== null && scoutHeld.target_rps < base.target_rps ? scoutHeld : null;
  return [aim, base, held].filter((r): r is Recommendation => r !== null);
}

/**
 * The last round over the whole horizon, once every one was refused: at what the refused rounds say
 * the limit sustains past their quota, the higher of two readings (measuredRate: a measurement, not
 * a policy a person types; a bucket of 100 per second and a window of 200 per 10 s let 19.64 through,
 * and 19 held, 5 % under):
 * - what any of them let through per second after its quota ran out, the least of them, unless
 *   the round stayed shut and was cut as the limit opened again (partWindowAfter): a limit
 *   that refills as it refuses (two buckets, 50 per second and 5 with a burst of 100, true 5 req/s:
 *   scouts held 5.7 and 7.1 inside the burst, rounds at 7.6, 7.5 and 7.1 were refused after
 *   3.4-3.9 s, then 4.85-4.99 req/s passed); not of a round k6 dropped most arrivals of (Kong's
 *   counters of 10 per 1 s and 300 per 60 s: 0.47 req/s passed a round that dropped 414, 4.78 the others);
 * - the most any of them let through before its first refusal, over the longest window the horizon
 *   tests (windowFloorRps): a window that stays shut past the cut lets next to nothing through
 *   after its quota (Flask-Limiter's moving windows, 10 per second and 100 per minute, true 1.67
 *   req/s: rounds at 2.4 and 2.3 were refused after 100 requests, then 0.1-0.2 req/s passed
 *   before the cut, and a hold at 0.1 sized nothing).
 * Null when no round over the horizon met a quota, or that rate is no lower than the last one tried.
 */
function afterQuotaFloor(
  rec: Recommendation,
  proof: Proof,
  rounds: readonly ProofRound[],
  maxWindowS: number,
): Floor | null {
  const refused = refusedOverHorizon(rounds);
  // A round in which k6 dropped most of its arrivals has no after-quota rate (prove.ts afterQuota).
  const after = refused.flatMap((r) =>
    r.after_quota_rps !== undefined && !partWindowAfter(r) ? [r.after_quota_rps] : [],
  );
  const leastAfter = after.length > 0 ? Math.min(...after) : null;
  const floors = [leastAfter, windowFloorRps(refused, maxWindowS)].filter(
    (x): x is number => x !== null && x < rec.target_rps,
  );
  if (floors.length === 0) return null;
  const floor = Math.max(...floors);
  return floorRound(
    rec,
    proof,
    floor,
    floor === leastAfter ? 'refill' : 'window',
    floor === leastAfter
      ? 'every round over it was refused, and none let more through per second once its quota ran out'
      : `every round over it was refused, and the most one let through before its first refusal, over ${maxWindowS} s (the longest window the horizon tests), as a window that stays shut past a round's cut would let it through`,
  );
}

/**
 * Whether a round's after-quota stretch read part of a window, not a refill: its limit stayed shut
 * past RETRIED_LAG_S after the first refusal, and the round was cut before it had run as long again
 * once let through. Such a stretch is a spent window and the start of the next (an nginx queue of
 * 5 r/s in front of a fixed 100 per 60 s, true 1.67 req/s: rounds at 2.3, 2.1 and 1.9 stayed shut
 * 16-17 s, were cut 1-2 s after the next window opened, and read 0.27 req/s; that held, and nothing
 * was sized). A bucket lets a call through again within its refill interval.
 */
function partWindowAfter(r: ProofRound): boolean {
  const { refusals_began_s: began, admitted_again_s: again, cut_at_s: cut } = r;
  if (began === undefined || cut === undefined) return false;
  const shutS = (again ?? cut) - began;
  return !letThroughSoon(began, again) && cut - (again ?? cut) < shutS;
}

/**
 * A measured rate as a round runs it: rounded down to three significant figures, finer than a
 * policy's (recommend.ts roundedRate), as what passed was measured: 19.64 req/s runs at 19.6, and
 * Flask-Limiter's 100 per 60 s, read as 1.651, at 1.65 (one decimal, 1.6, is 4 % under the 1.67).
 */
function measuredRate(rps: number): number {
  const decimals = Math.max(0, 2 - Math.floor(Math.log10(rps)));
  // The epsilon keeps a figure such as 4.85 (484.999… hundredths in binary) from flooring a step low.
  return round(Math.floor(rps * 10 ** decimals + 1e-9) / 10 ** decimals, decimals);
}

/**
 * The most that refused rounds let through before their first refusal, per second of the longest
 * window the horizon tests (`maxWindowS`): a window of that length or shorter admits at least its
 * quota in every window, so a client paced at this rate sends no more than a window let through.
 * Only rounds refused late that were not let through again soon after (RETRIED_LAG_S): a limit
 * that lets calls through again at once refills as it refuses (a bucket), and its quota was a
 * burst, not a window's count. Null when no round was refused so.
 */
function windowFloorRps(refused: readonly ProofRound[], maxWindowS: number): number | null {
  const quotas = lateRefusals(refused)
    .filter(stayedShut)
    .map(({ rps, beganS }) => rps * beganS);
  return quotas.length > 0 && maxWindowS > 0 ? Math.max(...quotas) / maxWindowS : null;
}

/**
 * A late refusal not let through again soon after (RETRIED_LAG_S): a window's quota met, not a
 * bucket refilling as it refuses.
 */
const stayedShut = ({ beganS, againS }: { beganS: number; againS?: number }): boolean =>
  !letThroughSoon(beganS, againS);

/**
 * The rounds refused late (a quota met, not a rate refused from the start): each one's rate, when
 * its refusals began, and when a call was let through again after them, if one was.
 */
const lateRefusals = (refused: readonly ProofRound[]): Array<{ rps: number; beganS: number; againS?: number }> =>
  refused.flatMap((r) => {
    const began = r.refusals_began_s;
    if (began === undefined || began < QUOTA_AFTER_S) return [];
    return [
      { rps: r.target_rps, beganS: began, ...(r.admitted_again_s !== undefined ? { againS: r.admitted_again_s } : {}) },
    ];
  });

interface RestedRetry {
  rec: Recommendation;
  restS: number;
  /** The round it runs again, as the table shows it (markShut); absent: refused from its start (shutRound). */
  marked?: (round: ProofRound) => ProofRound;
}

/** A round refused from its start with at least this share of its requests: shut, not paced above a rate. */
const SHUT_SHARE = 0.5;

/**
 * A scout refused from its start (most of its requests) after a refused round or the probe, with
 * none held yet: a longer window they spent (a minute's, behind the second the probe read) may still
 * be shut, and no rate gets through until it turns. The same rate again after half the horizon's rest
 * (the longest window a proof tests), once a search. Lowering instead lowered to what got through a
 * shut window (httprate's counter of 20 per 1 s and a fixed 300 per 60 s, true 5 req/s: 9.3 met the
 * minute's quota, 2 was refused from its start, 0.09 got through, and nothing was sized). Null
 * otherwise.
 */
function restedRetry(rec: Recommendation, proof: Proof, horizonS: number): RestedRetry | null {
  const began = proof.refusals_began_s;
  if (proofHolds(proof).holds || began === undefined || began >= QUOTA_AFTER_S) return null;
  // Most of its requests refused, or most of its arrivals never sent: k6's VUs all held by calls
  // waiting out a long Retry-After (a minute's counter: 611 of 640 dropped, 37 % of the few sent refused).
  if (proof.rate_429 < SHUT_SHARE && !offeredLittle(proof)) return null;
  const restS = horizonS / 2;
  const how =
    proof.rate_429 >= SHUT_SHARE
      ? `${Math.round(proof.rate_429 * 100)} % of its requests`
      : `${proof.dropped_arrivals} of its ${proof.arrivals} arrivals dropped while calls waited out refusals`;
  const reason = `${rec.target_rps} req/s again after ${restS} s at rest: it was refused from its start (${how}), as by a longer window the rounds before left spent, which refuses any rate until it turns`;
  return { rec: retried(rec, proof, rec.target_rps, reason), restS };
}

/**
 * The first round over the whole horizon once a scout was refused at `failedRps`: SEARCH_AIM below
 * it, where a hold puts the sustained rate reported within a few per cent of the limit; null when
 * that is no higher than `base`, the rate the scouts leave, or when that refusal was not narrow.
 * (HAProxy 50 per 10 s, true 5 req/s: scouts 4.1 held, 5.1 refused, 4.6 held, so 4.6 was the
 * sustained rate, 8 % low.) Narrow: at most 1 − SCOUT_NARROW of its requests refused before it was
 * cut. A round well above the limit meets its refusals early and is cut after a few requests, so
 * they weigh more (real bench: 6.2 req/s after a hold at the true 5, 31 %; virtual, a 5.1 scout 3–6
 * %, a 5.7 one 8–9 %); the aim below it would be refused over the horizon, a rest and a cut round
 * for nothing (real: 6.0 req/s, 40 s).
 */
function aimed(base: Recommendation, failedRps: number, failed: Proof): Recommendation | null {
  const target = roundedRate(SEARCH_AIM * failedRps);
  if (target <= base.target_rps || target >= failedRps || 1 - failed.rate_429 < SCOUT_NARROW) return null;
  return retried(
    base,
    failed,
    target,
    `tried ${target} req/s over the whole horizon: ${Math.round((1 - SEARCH_AIM) * 100)} % below ${failedRps} req/s, the lowest rate a round refused; ${base.target_rps} req/s (the scouts' rate) follows if it is refused`,
  );
}

/** A round that held, counted by the climb (nextScout). */
const heldRound = (r: ProofRound): boolean => r.verdict === 'holds';

/**
 * The scout after `rec`: before any hold, lower from what it let through (nextRecommendation);
 * after one, the headroom's climb from the highest hold or halfway to `upperRps` (the lowest rate
 * refused, else the bracket's top), whichever is lower; null once the hold is within SCOUT_NARROW
 * of a refusal, or the next rate rounds onto an end. `holds`: the holds so far of rounds that each
 * covered the whole horizon (`run`'s short rounds), 0 for scouts. Such holds are proofs, so before
 * any refusal their climb gathers pace from the third on, its factor squared at each (× 1.25, 1.25,
 * 1.56, 2 …), up to halfway to the top on a log scale and at most HELD_BRACKET_RATIO times the hold:
 * at 25 % a hold, a log of 50 per 1 s searched from 4.9 req/s was left at 14.9 after six (CI
 * land34b); unbounded, the sixth of six 120 s rounds from 0.6 req/s jumped from 3.4 held to 20,
 * refused, and the hold was a floor, not a rate, not tested after 1,530 s (a counter of 50 per 10 s
 * counting refused requests before a bucket of 4.2 per second, the probe's own stream holding the
 * counter shut for its whole budget). Bounded so, a refusal right after a step lies within that
 * ratio of the hold, so the two bracket the limit whatever round it comes at. A scout's hold proves nothing past its
 * length (a minute's quota may wait behind it: 1 s and 60 s limits, true 5 req/s, held 6.3 and 7.8
 * in 10 s scouts when they climbed so), so scouts climb at the headroom's pace.
 */
function nextScout(
  rec: Recommendation,
  proof: Proof,
  held: Recommendation | null,
  { upperRps, topRps, holds }: { upperRps: number; topRps: number; holds: number },
): Recommendation | null {
  // What a scout let through once refused bounds no rate: it ran a few seconds of a window no
  // detector measured, and may have met one the probe left spent (httprate's 30 per 1 s and 600 per
  // 60 s, true 10 req/s: 11 got 0.33 req/s through after its quota, and scouts crawled up from 0.26
  // to 0.62 req/s over 626 s). What got through over the whole scout, its goodput, does not overstate.
  if (held === null) return nextRecommendation(rec, withoutAfterQuota(proof), topRps);
  if (held.target_rps >= SCOUT_NARROW * upperRps) return null;
  const climbing = upperRps === topRps;
  const mid = (held.target_rps + upperRps) / 2;
  // Divided, not multiplied by its inverse: roundedRate floors, and 7.76 × 1.25 is a hair under 9.7.
  const stepped = held.target_rps / (1 - HEADROOM);
  const paced = climbing && holds > 2 ? held.target_rps / (1 - HEADROOM) ** (2 ** (holds - 2)) : stepped;
  // Never past halfway to the top on a log scale nor HELD_BRACKET_RATIO times the hold, never below the headroom's step.
  const climbed = Math.max(
    stepped,
    Math.min(paced, HELD_BRACKET_RATIO * held.target_rps, Math.sqrt(held.target_rps * topRps)),
  );
  const target = roundedRate(Math.min(climbed, mid));
  if (target <= held.target_rps || target >= upperRps) return null;
  const why =
    climbing && climbed <= mid
      ? `climbed to ${target} req/s: ${held.target_rps} req/s held ${holds > 0 ? 'a round over the whole horizon' : 'a scouting round'}, and none has been refused yet`
      : `scouted ${target} req/s, between ${held.target_rps} req/s (held) and ${upperRps} req/s (refused)`;
  return retried(held, proof, target, why);
}

const withoutAfterQuota = ({ after_quota_rps: _, ...proof }: Proof): Proof => proof;

/**
 * After every round the scouts left was refused over the whole horizon: halfway down to the highest
 * rate a scout held below it (issue 35: lower by bisection between the last rate refused and the
 * last that held), that scout's rate itself once within SCOUT_NARROW of the refusal; SCOUT_NARROW
 * below the refusal when no scout held below it. Not at what it let through: against a limit that
 * counts refused requests that reads low (5.6 req/s let 4.1 through a true 5).
 */
function lowered(rec: Recommendation, proof: Proof, scoutHolds: readonly Recommendation[]): Recommendation | null {
  const refused = rec.target_rps;
  const held = Math.max(0, ...scoutHolds.map((h) => h.target_rps).filter((r) => r < refused));
  const half = roundedRate((held + refused) / 2);
  const target =
    held === 0 ? roundedRate(refused * SCOUT_NARROW) : held >= SCOUT_NARROW * refused || half <= held ? held : half;
  if (target >= refused || target < MIN_PROOF_RPS) return null;
  const between =
    held === 0
      ? `${Math.round((1 - SCOUT_NARROW) * 100)} % below it, no scout having held lower`
      : target === held
        ? `${held} req/s held a scouting round, within ${Math.round((1 - SCOUT_NARROW) * 100)} % of it`
        : `halfway to ${held} req/s, the highest rate below it a scouting round held`;
  return retried(
    rec,
    proof,
    target,
    `lowered to ${target} req/s: ${refused} req/s was refused over the whole horizon (${proofHolds(proof).why}); ${between}`,
  );
}

/**
 * The policy given from the hold over the whole horizon: below the refill of a line the rounds
 * refused lie on, when it binds below the hold; below the hold when the line does not (its refill
 * proves the hold past the store); with no line, no more than the hold proves past the store.
 */
function givenFrom(
  paced: { rec: Recommendation; proof: Proof },
  rounds: readonly ProofRound[],
  store: number | null,
  probeHold: ProbeHold | undefined,
): Recommendation {
  // The hold as sent: one k6 could not pace at its target proves what it sent (heldAtRps).
  const sent = heldAtRps({ target_rps: paced.rec.target_rps, ...paced.proof });
  const held = sent < paced.rec.target_rps ? { ...paced, rec: { ...paced.rec, target_rps: sent } } : paced;
  const line = quotaLine(rounds);
  const below = givenOnLine(held, lineBelow(rounds, held.rec.target_rps));
  return below ?? (line === null ? givenPastStore(held, store, probeHold) : null) ?? givenBelow(held.rec, held.proof);
}

/**
 * The policy given when the hold offered too little to outlast what the drain found stored, and no
 * line read the refill (sureRpsPastStore): at most what it proves for a client running longer. A
 * bucket of 5 per second with a burst of 50 holds 14 req/s for 5 s, and proves 3.8 past it. Null
 * when it outlasted the store, or that gives no less than SEARCH_HEADROOM below the hold.
 */
function givenPastStore(
  held: { rec: Recommendation; proof: Proof },
  store: number | null,
  probeHold: ProbeHold | undefined,
): Recommendation | null {
  // The hold as sent (givenFrom): its rate and the arrivals k6 did not drop.
  const rps = held.rec.target_rps;
  const offered = sentArrivals(held.proof);
  const past = surePastStore(offered, offered / rps, store, probeHold);
  if (past === null) return null;
  const target = Math.max(MIN_PROOF_RPS, roundedRate(Math.min(past.sure_rps, rps * (1 - SEARCH_HEADROOM))));
  if (target >= roundedRate(rps * (1 - SEARCH_HEADROOM))) return null;
  const over = past.probe_hold
    ? `the probe's own ${past.probe_hold.requests} requests let through over ${past.probe_hold.s} s, none refused, less the store`
    : `the hold less the store over its ${round(offered / rps, 1)} s`;
  return retried(
    held.rec,
    held.proof,
    target,
    `given at ${target} req/s: ${rps} req/s held over the proof's whole horizon, but offered ${offered} requests, less than ${Math.round(1 / SEARCH_HEADROOM)} times the ${store} the drain found stored, so it may have lived on them: a client running longer is sure of ${past.sure_rps} req/s only (${over}); a longer horizon (--horizon) reads more`,
  );
}

/**
 * The policy given from `held`, the rate that held over the whole horizon: SEARCH_HEADROOM below
 * it. A client paced lower sends less in every window, so that hold proves the policy too.
 */
function givenBelow(held: Recommendation, proof: Proof): Recommendation {
  const target = roundedRate(held.target_rps * (1 - SEARCH_HEADROOM));
  if (target >= held.target_rps || target < MIN_PROOF_RPS) return held;
  return retried(
    held,
    proof,
    target,
    `given at ${target} req/s: ${held.target_rps} req/s held over the proof's whole horizon, the highest rate the search found that does; ${Math.round(SEARCH_HEADROOM * 100)} % below it, so a client paced for hours keeps room for its jitter (the hold at ${held.target_rps} req/s proves the lower rate too)`,
  );
}

/**
 * The policy given when the refused rounds' quotas lie on a line whose refill is below the rate
 * that held (quota-line.ts lineBelow): that hold lasted on what the limit stored, so the policy sits
 * SEARCH_HEADROOM below the refill instead. The hold proves it over the horizon (a lower rate), the
 * line past it. Null when there is no such line, or it gives no less.
 */
function givenOnLine(held: { rec: Recommendation; proof: Proof }, line: QuotaLine | null): Recommendation | null {
  if (line === null) return null;
  const target = roundedRate(line.refill_rps * (1 - SEARCH_HEADROOM));
  if (target >= roundedRate(held.rec.target_rps * (1 - SEARCH_HEADROOM)) || target < MIN_PROOF_RPS) return null;
  return retried(
    held.rec,
    held.proof,
    target,
    `given at ${target} req/s: ${held.rec.target_rps} req/s held over the proof's whole horizon, but ${heldOnStoreText(line, held.rec.target_rps)}; ${Math.round(SEARCH_HEADROOM * 100)} % below the refill, so a client paced for hours keeps room for its jitter (the hold proves the lower rate over the horizon)`,
  );
}
