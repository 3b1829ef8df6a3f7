// The rate-limit stage's proof: k6 rounds at the recommended rate (or, for a limiter the probe did
// not identify, a search's rounds) until one holds over the horizon, each later round sized from
// what the rounds so far left standing (refuted.ts), a second limit identified from the probe and
// every round together (stacked-inference.ts). What it hands back: the proof, the policy given and
// how it was proven; its notes go into the stage's.

import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { cutAfterRefusalsS, prove } from '../ratelimit/prove.js';
import { longestKnownWindow, proofHorizon, withShutSpan } from '../ratelimit/horizon.js';
import { withoutRefuted } from '../ratelimit/refuted.js';
import { searchBurst, searchRoundRestS, searchSaid, searchTop } from '../ratelimit/rate-bracket.js';
import { scoutLengthS, searchUntilHeld } from '../ratelimit/search-loop.js';
import { announcedCeiling, bindingRps, waitsHold } from '../ratelimit/recommend.js';
import { edgelessBehind, proofHolds, proveUntilHeld, type RoundToRun } from '../ratelimit/proof-loop.js';
import { roundLengthS, settleBeforeRoundS } from '../ratelimit/proof-timing.js';
import { quotaRestS, quotaRestText } from '../ratelimit/proof-quota.js';
import { provingVerdict } from '../ratelimit/proof-reach.js';
import { replayTimeline, stackTracker, withIdentifiedWindow } from '../ratelimit/stacked-inference.js';
import type { Proving } from '../ratelimit/result.js';
import type { Estimate, Proof, RateBracket, Recommendation } from '../ratelimit/types.js';
import type { ProbeCalls } from '../ratelimit/calls.js';
import type { RunIo, SizingTarget } from './run-io.js';

/** What the proof works from: the probe's estimate and the stage's timing, settings and outputs. */
export interface ProofContext {
  io: RunIo;
  reportDir: string;
  target: SizingTarget['target'];
  calls: Pick<ProbeCalls, 'endpoint' | 'validateMethod'>;
  business: Parameters<typeof prove>[0]['business'];
  expect: { tokenLifetimeS: number; clockToleranceS: number };
  k6: { k6Path: string; bundleDir: string };
  estimate: Estimate;
  /** A search's bracket (rate-bracket.ts): the probe identified no limiter. */
  bracket: RateBracket | undefined;
  /** A round's planned length, the longest it may grow to, the settle before the first, s. */
  proofS: number;
  maxRoundS: number;
  settleS: number;
  probeCapS: number;
  horizonS: number;
  /** `--horizon`, when asked; `run`'s short rounds (unless asked) and why they are short. */
  askedHorizonS: number | undefined;
  shortRounds: boolean;
  shortHorizon: string | undefined;
  /** When the probe began, on the run's clock: rounds are placed beside its samples. */
  probeStartMs: number;
  /** The stage's proof notes, appended to. */
  proofNotes: string[];
  countK6Requests: (n: number) => void;
}

/** What the rounds so far did: what they left standing, each round's planned length, what they sent. */
interface RoundBook {
  standing: Estimate;
  lengths: number[];
  sentByRounds: number;
}

export async function proveRecommendation(
  ctx: ProofContext,
  recommendation: Recommendation,
): Promise<{ proof: Proof | null; given: Recommendation | null; proving: Proving }> {
  const { estimate, bracket, proofS, probeCapS, io } = ctx;
  // A round must outlast the burst to prove the rate (proof-reach.ts): `ratelimit` may
  // lengthen one up to the probe's budget, as proofTiming does for a refill; `run` keeps
  // the short rounds it announced, and a burst they cannot outlast leaves the policy unproven.
  const reach = {
    // A search's rounds outlast what the drain let through at once (no burst was read).
    ...(bracket ? searchBurst(bracket) : { burst: estimate.burst, burstFromIdle: estimate.burst_from_idle }),
    roundS: proofS,
    maxRoundS: ctx.shortRounds ? proofS : Math.max(proofS, probeCapS),
    settleS: ctx.settleS,
    refillRps: estimate.sustained_rps,
  };
  // A second limit behind the probe's reading, identified from the probe and every round.
  const maxWindowS = proofS / 2;
  // Every announced limit the probe left unproven is a candidate beside the detectors' windows.
  const unproven = (estimate.announced ?? (estimate.advertised ? [estimate.advertised] : [])).flatMap((a) =>
    a.agrees === null && a.window_s !== null ? [{ limit: a.limit, window_s: a.window_s }] : [],
  );
  const stack = stackTracker(estimate.limiter, replayTimeline(estimate), maxWindowS, ctx.probeStartMs / 1000, unproven);
  // What the rounds so far left standing (refuted.ts): each later round is sized from it, and
  // run as sized (its calls waiting out a 429 held among its concurrency only when the limiter
  // that stands counts them).
  const book: RoundBook = { standing: estimate, lengths: [], sentByRounds: 0 };
  const runRound = roundRunner(ctx, book, stack);
  const standing = (rounds: Parameters<typeof withoutRefuted>[1]) =>
    (book.standing = withoutRefuted(estimate, rounds, stack.verdict()));
  // A search scouts in short rounds and proves only the rate it gives over the horizon (search-loop.ts).
  const outcome = bracket
    ? await searchUntilHeld(recommendation, searchTop(estimate, bracket), runRound, {
        reach,
        scoutS: scoutLengthS(bracket.restS, proofS),
        // `run`'s rounds keep to its horizon, unless none there could outlast the burst (outlastingAgain).
        outlastS: probeCapS,
        standing,
        ...(bracket.probeHold ? { probeHold: bracket.probeHold } : {}),
      })
    : await proveUntilHeld(recommendation, bindingRps(estimate) ?? recommendation.target_rps, runRound, {
        reach,
        identifiedRps: stack.identifiedRps,
        cutAfterRefusalsS: cutAfterRefusalsS(maxWindowS),
        edgeless: edgelessBehind(estimate.limiter),
        // A first round that let nothing through is tried again after half the horizon at
        // rest: the longest window the proof tests, which the probe may have left spent.
        shutRestS: ctx.horizonS / 2,
        // Each later round is sized from what the rounds so far left standing: a policy given
        // after a refuted reading carries none of its figures (refuted.ts).
        standing,
      });
  // The proof of the policy given: the round that held it, not a later one tried above it.
  const proof = outcome.provenProof ?? outcome.lastProof;
  // A first proof that produced no figures refuted nothing: the policy stands, unproven (the
  // run already cannot pass: the failed run is untested). Rounds that all failed leave nothing
  // to give. A round within the burst leaves its policy unproven, which fails nothing.
  const { verdict, given: policy, refuted } = provingVerdict(outcome, recommendation);
  if (bracket) ctx.proofNotes.push(searchSaid(outcome.rounds, bracket, announcedCeiling(ctx.estimate)));
  const given = bracket && verdict !== 'proven' ? null : policy;
  const proving: Proving = {
    verdict,
    ...(verdict === 'not proven within horizon' && outcome.unproven ? { unproven: outcome.unproven.why } : {}),
    rounds: outcome.rounds,
    stack: stack.verdict(),
    ...(outcome.rounds.length > 0
      ? {
          horizon: proofHorizon(
            heldRoundS(outcome.rounds, given, book.lengths) ?? proofS,
            // The windows that stand: a refuted reading's is no limit left untested.
            withShutSpan(
              withIdentifiedWindow(
                longestKnownWindow(withoutRefuted(estimate, outcome.rounds, stack.verdict())),
                stack.verdict(),
              ),
              bracket,
            ),
            ctx.askedHorizonS === undefined ? ctx.shortHorizon : undefined,
            estimate.announced ?? (estimate.advertised ? [estimate.advertised] : []),
          ),
        }
      : {}),
  };
  // No round held: nothing is recommended, and the run cannot pass (exit 1).
  if (refuted && !io.signal.aborted)
    io.untested(
      'rate_limit',
      `${ctx.calls.endpoint}: not proven: no recommended policy kept its promise in ${outcome.rounds.length} k6 proof round${outcome.rounds.length === 1 ? '' : 's'} (${outcome.rounds.map((r) => `${r.target_rps} req/s: ${r.why}`).join('; ')})`,
    );
  return { proof, given, proving };
}

/** One proof round: rest as a new client meets the limit, then k6 at the policy's rate; what it ran is booked. */
function roundRunner(ctx: ProofContext, book: RoundBook, stack: ReturnType<typeof stackTracker>) {
  const { io, probeStartMs } = ctx;
  const sinceProbeS = () => (io.clock.now() - probeStartMs) / 1000;
  return async (
    rec: Recommendation,
    { round, durationS: plannedS = ctx.proofS, cut, afterHold, restAtLeastS = 0 }: RoundToRun,
  ): Promise<Proof | null> => {
    // A span the rounds so far identified (a second limit's window or refill) lengthens this
    // one; `run` keeps the short rounds it announced.
    const durationS = ctx.shortRounds
      ? plannedS
      : roundLengthS(plannedS, withIdentifiedWindow(longestKnownWindow(book.standing), stack.verdict()), ctx.maxRoundS);
    book.lengths[round - 1] = durationS;
    const restS = restBeforeRoundS(ctx, book, stack, { rec, round, durationS, afterHold, restAtLeastS }, sinceProbeS());
    io.progress(
      `proof round ${round}: waiting ${restS.toFixed(1)} s for the limit to refill, then proving the policy with k6 at ${rec.target_rps} req/s for ${durationS} s`,
    );
    await io.clock.sleep(restS * 1000, io.signal);
    if (io.signal.aborted) return null;
    const startS = sinceProbeS();
    const run = await prove({
      k6Path: ctx.k6.k6Path,
      bundleDir: ctx.k6.bundleDir,
      workDir: join(ctx.reportDir, 'k6', 'ratelimit-proof', `round-${round}`),
      target: {
        baseUrl: ctx.target.baseUrl,
        credentials: ctx.target.credentials,
        ...(ctx.target.caFile ? { caFile: ctx.target.caFile } : {}),
      },
      endpoint: ctx.calls.endpoint,
      business: ctx.business,
      ...(ctx.calls.validateMethod ? { validateMethod: ctx.calls.validateMethod } : {}),
      recommendation: rec,
      durationS,
      ...(cut !== undefined ? { cut } : {}),
      ...(waitsHold(book.standing) ? { waitsHoldConcurrency: true } : {}),
      tokenLifetimeS: ctx.expect.tokenLifetimeS,
      clockToleranceS: ctx.expect.clockToleranceS,
      runId: randomUUID(),
      signal: io.signal,
    });
    // The round is replayed from when k6's arrivals began, not from its spawn just above,
    // and for as long as they ran: a round cut short has no retry tail (k6 stopped them all).
    const beganS = run.arrivalsBeganMs !== undefined ? (run.arrivalsBeganMs - probeStartMs) / 1000 : undefined;
    if (beganS !== undefined)
      io.progress(`proof round ${round}: k6's arrivals began ${(beganS - startS).toFixed(2)} s after it was started`);
    const cutAtS = run.proof?.cut_at_s;
    io.progress(
      `proof round ${round}: ${run.proof === null ? 'no figures' : proofHolds(run.proof).holds ? 'held' : 'failed'}${cutAtS !== undefined ? `, cut short after ${cutAtS} s` : ''}; ${(sinceProbeS() - startS).toFixed(1)} s from k6's start to its summary`,
    );
    stack.ran({
      rps: rec.target_rps,
      startS: beganS ?? startS,
      durationS: cutAtS ?? durationS,
      tailS: cutAtS !== undefined ? 0 : rec.retry_budget_s,
      retryBudgetS: rec.retry_budget_s,
      ...(beganS !== undefined ? { startMeasured: true } : {}),
    });
    ctx.countK6Requests(run.scenario.requests);
    book.sentByRounds += run.scenario.requests;
    ctx.proofNotes.push(...run.notes.map((n) => `round ${round}: ${n}`));
    if (run.scenario.error !== undefined && !io.signal.aborted)
      io.untested('rate_limit', `proof run did not complete: ${run.scenario.error}`);
    return run.proof;
  };
}

/** How long a round waits before k6 starts, s: until the limit is as a new client meets it, and an announced quota whole. */
function restBeforeRoundS(
  ctx: ProofContext,
  book: RoundBook,
  stack: ReturnType<typeof stackTracker>,
  next: { rec: Recommendation; round: number; durationS: number; afterHold?: boolean; restAtLeastS: number },
  sinceProbeS: number,
): number {
  const { bracket, probeCapS, io } = ctx;
  // Once a set is identified, a round waits for all of it to rest, as a new client meets it.
  // A search's round rests until the limit is as a new client meets it (searchRestS),
  // unless the round before held and left it so (RoundToRun.afterHold).
  // A fixed window on the clock settles at its next edge (proof-timing.ts settleBeforeRoundS).
  // Every limit the probe read, a set's or the one (what a round settles for, proof-timing.ts).
  const probedLimits = ctx.estimate.limiters ?? (ctx.estimate.limiter ? [ctx.estimate.limiter] : []);
  // The first round (no round's requests to replay yet) waits no longer than the probe's own
  // requests, replayed through the limits it read, say a client at the policy's rate needs.
  const paced = next.round === 1 ? { rps: next.rec.target_rps, timeline: replayTimeline(ctx.estimate) } : undefined;
  const settled = settleBeforeRoundS(probedLimits, ctx.settleS, sinceProbeS, ctx.probeStartMs / 1000, paced);
  const afterHold = next.afterHold === true;
  const rested = Math.min(
    Math.max(
      next.restAtLeastS,
      bracket
        ? Math.max(
            searchRoundRestS(bracket, { settledS: settled, afterHold, roundS: ctx.proofS }),
            afterHold ? 0 : stack.restS(sinceProbeS),
          )
        : Math.max(settled, stack.restS(sinceProbeS)),
    ),
    probeCapS,
  );
  // An announced quota the probe (and the rounds since) left short of what this round
  // sends is waited for whole: up to a window, twice the probe's cap at most (proof-quota.ts).
  // What the rounds sent counts in an announced quota's window as the probe's requests do.
  const quotaRound = { rps: next.rec.target_rps, durationS: next.durationS, sentSince: book.sentByRounds };
  const quota = quotaRestS(ctx.estimate.quotas_left, quotaRound, sinceProbeS * 1000, 2 * probeCapS);
  const quotaSaid = quotaRestText(quota, quotaRound);
  if (quotaSaid) io.progress(`proof round ${next.round}: ${quotaSaid}`);
  if (quota.tooLong) ctx.proofNotes.push(`round ${next.round}: ${quotaSaid}`);
  return Math.max(rested, quota.restS);
}

/**
 * How long the round that proved `given` ran as planned (a later round may have run longer than the
 * first); null when none did. That round held at `given`'s rate or, once the loop gives a policy
 * below a hold (givenFromHold), at the nearest rate above it: a client paced lower sends less in
 * every window, so that hold is its proof.
 */
export function heldRoundS(
  rounds: readonly { target_rps: number; verdict: string; scout_s?: number }[],
  given: { target_rps: number } | null,
  lengths: readonly number[],
): number | null {
  if (given === null) return null;
  let best: number | null = null;
  rounds.forEach((r, i) => {
    // A search's scout is no proof of the policy (search-loop.ts): its short hold states no horizon.
    if (r.verdict !== 'holds' || r.scout_s !== undefined || r.target_rps < given.target_rps) return;
    if (best === null || r.target_rps < rounds[best]!.target_rps) best = i;
  });
  return best === null ? null : (lengths[best] ?? null);
}
