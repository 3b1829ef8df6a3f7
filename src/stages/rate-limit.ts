// The rate-limit stage of `ces-harness ratelimit` (and the last of `run`): discover the target's
// rate limit by measurement, turn it into a client policy, prove the policy with k6, and hand the
// report its `rate_limit` section. Progress goes to the run's lines while the probe runs; a few
// closing lines give the estimate, the recommendation and the proof.

import { existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { RateLimitedError } from '../http/rate-limit-wait.js';
import { ServiceClient } from '../http/service-client.js';
import { locateK6 } from '../k6/locate.js';
import { findProjectRoot } from '../fs/project-root.js';
import type { FleetResult, RateLimitResult } from '../report/model.js';
import type { Credentials } from '../spec/credentials.js';
import type { RateLimitEndpoint } from '../spec/endpoints.js';
import { gapsInStream, unusableProbe } from '../ratelimit/answers.js';
import { AnswerOverCap, ProbeSetupError, probeCalls } from '../ratelimit/calls.js';
import { DISCOVER_DEFAULTS, STOPPED_ON_ERRORS, STOPPED_SHORT, discover, latencyBound } from '../ratelimit/discover.js';
import { NOT_IDENTIFIED } from '../ratelimit/evidence.js';
import { LONG_WINDOW_S, announcedPastBudget } from '../ratelimit/probe/advertised.js';
import { cutAfterRefusalsS, prove } from '../ratelimit/prove.js';
import {
  DEFAULT_HORIZON_S,
  HORIZON_MAX_S,
  RUN_HORIZON_S,
  RUN_PROBE_CAP_S,
  longestKnownWindow,
  probeBudgetS,
  proofHorizon,
  retryAfterPastProbe,
  shutPastProof,
  underRunHowTo,
  withShutSpan,
} from '../ratelimit/horizon.js';
import { HELD_BRACKET_RATIO, withoutRefuted } from '../ratelimit/refuted.js';
import { searchBurst, searchRestS, searchSaid, searchStart, searchTop } from '../ratelimit/rate-bracket.js';
import { scoutLengthS, searchUntilHeld } from '../ratelimit/search-loop.js';
import { bindingRps, recommend, waitsHold } from '../ratelimit/recommend.js';
import { belowK6Pace, edgelessBehind, proofHolds, proveUntilHeld, type RoundToRun } from '../ratelimit/proof-loop.js';
import { proofTiming, roundLengthS, settleBeforeRoundS } from '../ratelimit/proof-timing.js';
import { quotaRestS, quotaRestText } from '../ratelimit/proof-quota.js';
import { provingVerdict } from '../ratelimit/proof-reach.js';
import { replayTimeline, stackTracker, withIdentifiedWindow } from '../ratelimit/stacked-inference.js';
import { sizeFleet, type FleetSizingInput } from '../ratelimit/fleet/size.js';
import { fleetProofOf, fleetProofRun, type FleetProof } from '../ratelimit/fleet/prove-fleet.js';
import { runFleetK6 } from '../ratelimit/fleet/k6-proof.js';
import {
  noLimitUntested,
  notProbed,
  standingAfterProof,
  summaryLines,
  toRateLimitResult,
  type Proving,
} from '../ratelimit/result.js';
import type { Estimate, Proof, RateBracket, Recommendation } from '../ratelimit/types.js';
import { businessForLoad, businessOfRateLimit, refuseProductionLoad } from '../runner/production-load.js';
import { isProduction } from '../config/target.js';
import { productionGateFor } from '../runner/context.js';
import type { RunIo, Stage, StageTarget } from './run-io.js';
import type { TargetSettings } from '../config/resolve.js';

export interface RateLimitStageOptions {
  /**
   * The command's proof horizon: seconds of steady k6 load at the recommended rate per round
   * (`--horizon` overrides it); 0 skips the proof.
   */
  proofS?: number;
  /** Wall-clock cap of the discovery probe, seconds. */
  maxDurationS?: number;
  /** Why the command keeps its horizon short unless asked (`run`), said beside the horizon. */
  shortHorizon?: string;
  /**
   * k6 rounds run only to search for a limit the probe did not identify; an identified one is
   * given unproven. For a caller that needs a rate but no proof (cutover's sandbox side): a loose
   * reading of a conformant bucket under a loaded runner left it with no rate at all (CI land40).
   */
  searchOnly?: boolean;
}

/**
 * What a limit that refused the probe's set-up past the client's wait budget (429 from the first
 * request, whatever its Retry-After) leaves to say: no limit of 0 measured, nothing passed, and what to do.
 */
const SPENT_BEFORE_PROBE =
  '; every set-up request was refused: the limit is spent (by earlier traffic on these credentials?) or does not lift (`ces-harness check` judges that: ratelimit.recovers); run again once it has lifted';

export function makeRateLimitStage(stageOptions: RateLimitStageOptions = {}): Stage<RateLimitResult> {
  const allowed = (settings: TargetSettings) => {
    refuseProductionLoad(settings, 'rate-limit probing');
    return businessForLoad(settings, 'rate-limit probing', businessOfRateLimit(settings.rateLimit.endpoint));
  };
  const stage = async (on: StageTarget, io: RunIo): Promise<RateLimitResult> => {
    const { signal, redactor } = io;
    const { settings, reportDir } = on;
    const business = allowed(settings);
    // For the built-in emulator: an instance with 24 h tokens, so no token turns over mid-probe.
    const { target, secondClient: builtInSecond, sentBefore } = await on.probeTarget();
    const expect = settings.sizing.expect;
    const { endpoint, maxRps, maxRequests } = settings.rateLimit;
    // rate_limit.second_client; the built-in emulator brings one of its own.
    const secondClient = settings.rateLimit.secondClient ?? builtInSecond;
    if (secondClient) redactor.addSecret(secondClient.clientSecret, secondClient.clientId);

    const http = new ServiceClient(target, {
      redactor,
      clock: io.clock,
      connections: DISCOVER_DEFAULTS.maxInFlight,
      production: on.productionGate ?? productionGateFor(settings.production),
    });
    let result: RateLimitResult;
    try {
      let calls;
      try {
        calls = await probeCalls({
          http,
          endpoint,
          business,
          ...(secondClient ? { secondClient } : {}),
          ...(sentBefore ? { sentBefore } : {}),
        });
      } catch (err) {
        if (!(err instanceof ProbeSetupError) && !(err instanceof RateLimitedError)) throw err;
        const why = err instanceof RateLimitedError ? `${err.message}${SPENT_BEFORE_PROBE}` : err.message;
        io.untested('rate_limit', `the probe could not start: ${why}`);
        return notProbed(endpoint, why);
      }
      // Every answer of the paced stream, by status: a probe whose answers were not the endpoint
      // working (all 401, a redirect, 5xx) measured nothing and must not pass.
      const tally = new Map<number | string, number>();
      const primary = calls.primary;
      calls = {
        ...calls,
        primary: async () => {
          const count = (key: number | string) => tally.set(key, (tally.get(key) ?? 0) + 1);
          try {
            const ex = await primary();
            count(ex.status);
            return ex;
          } catch (err) {
            count(err instanceof AnswerOverCap ? err.tallied : 0);
            throw err;
          }
        },
      };
      // The horizon a client's life is proven for (horizon.ts): `--horizon`, else the command's own.
      const askedHorizonS = settings.rateLimit.horizonS;
      const horizonS = stageOptions.proofS === 0 ? 0 : (askedHorizonS ?? stageOptions.proofS ?? DEFAULT_HORIZON_S);
      const probeCapS = stageOptions.maxDurationS ?? settings.rateLimit.maxDurationS ?? probeBudgetS(horizonS);
      // The clock the rounds are placed on beside the probe's samples (stacked-inference.ts replays both).
      const probeStartMs = io.clock.now();
      const estimate = await discover({
        calls,
        maxRps,
        maxRequests,
        maxDurationS: probeCapS,
        maxRetryAfterS: settings.rateLimit.maxRetryAfterS,
        signal,
        progress: io.progress,
        // The clock the answers are stamped with: a Retry-After counts from their arrival.
        clock: http.clock,
      });
      const unusable = signal.aborted ? undefined : unusableProbe(tally);
      if (unusable) io.untested('rate_limit', `${calls.endpoint}: ${unusable}`);
      // A limiter refused but not identified: paced k6 rounds search its bracket (rate-bracket.ts)
      // for the highest rate that holds over the horizon, the kind unidentified; only where the
      // stage says so below (`run`'s announced window past its budget, say, is no search's case).
      let search: Recommendation | null = null;
      // Why the limiter was not identified, said as not tested unless the search sizes it (below).
      let unidentified: string | null = null;
      // A probe that spends its whole budget failed to pin the limiter down: never a pass. Said
      // first: a budget spent before the rate was measured is not a limit that never lifts.
      const stoppedOnErrors = estimate.notes.find((n) => n.startsWith(STOPPED_ON_ERRORS));
      if (!unusable && !signal.aborted && stoppedOnErrors) {
        // The service stopped answering mid-probe (a crash, a tarpit): what came before is no reading of its limit.
        io.untested(
          'rate_limit',
          `${calls.endpoint}: the probe ${stoppedOnErrors}: what it saw before measures no limit; make the service answer every request, then probe again`,
        );
      } else if (!signal.aborted && estimate.partial && estimate.requests_sent >= maxRequests) {
        io.untested(
          'rate_limit',
          `${calls.endpoint}: the probe spent all of rate_limit.max_requests (${maxRequests}) without pinning the limiter down; the estimate is partial`,
        );
      } else if (!unusable && !signal.aborted && estimate.limiting_status === null && gapsInStream(tally)) {
        io.untested('rate_limit', `${calls.endpoint}: ${gapsInStream(tally)}`);
      } else if (!unusable && !signal.aborted && noLimitUntested(calls.endpoint, estimate)) {
        // No limit met, but the probe never got near the rate it aimed at: "none" would claim more than it saw.
        io.untested('rate_limit', noLimitUntested(calls.endpoint, estimate)!);
      } else if (
        !unusable &&
        !signal.aborted &&
        latencyBound(estimate.latency_p95_ms, estimate.sustained_rps, estimate.limiter)
      ) {
        io.untested(
          'rate_limit',
          `${calls.endpoint}: ${latencyBound(estimate.latency_p95_ms, estimate.sustained_rps, estimate.limiter)}`,
        );
      } else if (!unusable && !signal.aborted && stageOptions.shortHorizon && announcedPastBudget(estimate)) {
        // `run`: a window longer than its short probe verifies is said beside the announcement
        // ("announced, not proven", and how to size it), never a failure of a conformant service.
        const ad = announcedPastBudget(estimate)!;
        const quota = ad.window_s !== null ? `${ad.limit} per ${ad.window_s} s` : `${ad.limit} per window`;
        io.progress(
          `${quota} announced (${ad.source_header}), not proven: longer than run's ${probeCapS} s probe verifies; ${ad.window_s !== null && ad.window_s > HORIZON_MAX_S / 2 ? `nor does \`ces-harness ratelimit\`'s longest probe (windows up to about ${HORIZON_MAX_S / 2} s): a client is sized by the announcement` : '`ces-harness ratelimit` sizes it'}`,
        );
      } else if (!unusable && !signal.aborted && estimate.notes.some((n) => n.startsWith(NOT_IDENTIFIED))) {
        // Refused, but too seldom to read a limiter from (evidence.ts). The kind stays unidentified,
        // but the rate a client relies on is what holds (issue 35 item 4): a search below that held
        // a rate over the whole horizon sizes the limit; without one, nothing passes as sized.
        search = searchStart(estimate);
        const why = estimate.notes.find((n) => n.startsWith(NOT_IDENTIFIED))!;
        unidentified = `${calls.endpoint}: ${stageOptions.shortHorizon ? underRunHowTo(why, probeCapS) : why}`;
        if (!search) io.untested('rate_limit', unidentified);
      } else if (!unusable && !signal.aborted && estimate.limiting_status !== null && estimate.sustained_rps === null) {
        // Limited, yet no steady rate got through: nothing was sized, so nothing may pass as sized.
        io.untested(
          'rate_limit',
          limitMetUnsized(calls.endpoint, estimate, {
            command: stageOptions.shortHorizon ? 'run' : 'ratelimit',
            capS: probeCapS,
          }),
        );
      }
      const bracket = search ? estimate.rate_bracket : undefined;
      const recommendation = unusable ? null : (recommend(estimate) ?? search);

      let proof: Proof | null = null;
      const proofNotes: string[] = [];
      // A recommendation is given only once a proof held it (proof-loop.ts); until then it is not run.
      let proving: Proving = { verdict: 'not run', rounds: [] };
      // A search's first rate is a guess, not a reading: given only once a round held it (or one above).
      let given = bracket ? null : recommendation;
      // The probe (or the round before) left the limit drained; a client adopting the policy starts on
      // a rested one, and a round spans the limit's refill, or it could not have failed (proof-timing.ts).
      // `run` keeps the short rounds it announced (unless --horizon): a search's rounds are not
      // lengthened to what the probe saw its limit stay shut, a lower bound only (shutPastProof).
      const shortRounds = stageOptions.shortHorizon !== undefined && askedHorizonS === undefined;
      // A limit not identified kept the probe out for the bracket's restS: its window is at least
      // that long (horizon.ts shutSpan), so `ratelimit`'s rounds span two of it, within the cap.
      // Not in longestKnownWindow itself: a later round sized from it (runRound) would stretch the
      // search's scouts, short by design (search-loop.ts SCOUT_SCALE), to the full rounds' length.
      const longest = withShutSpan(longestKnownWindow(estimate), shortRounds ? undefined : bracket);
      const timing = proofTiming(estimate.refill_s, horizonS, probeCapS, longest?.window_s ?? null);
      const { settleS } = timing;
      // The proof's cap (proofTiming's): a round lengthened for a span found later stays within it.
      const maxRoundS = Math.max(horizonS, probeCapS);
      // Two of the longest span, a refill read one request short included (horizon.ts coveringS).
      const proofS =
        timing.proofS > 0 && (bracket !== undefined || !stageOptions.searchOnly)
          ? roundLengthS(timing.proofS, longest, maxRoundS)
          : 0;
      let located: Awaited<ReturnType<typeof k6AndBundles>> | undefined;
      // Every k6 request against production counts in the production gate, each proof round's and the fleet's.
      const countK6Requests = (n: number) => {
        if (isProduction(target)) on.productionGate?.addK6Requests(n);
      };
      const guessed = partialGuess(estimate, bracket);
      if (recommendation && proofS > 0 && !signal.aborted && guessed) {
        // Said, so a reader of the policy knows why it carries "not proven": a partial estimate is
        // no ground to load the service with a proof of it.
        proofNotes.push(
          'proof not run: the estimate is partial (see the notes above), so the recommendation is not proven',
        );
      }
      const unpaced = recommendation ? belowK6Pace(recommendation.target_rps) : null;
      if (recommendation && proofS > 0 && !signal.aborted && !guessed && unpaced !== null) {
        // Not a failure of the service, and not a proof: said, so the policy carries "not proven".
        proofNotes.push(`proof not run: ${unpaced}`);
        io.untested('rate_limit', `proof not run: ${unpaced}`);
      }
      // `run`'s rounds, shorter than twice what the probe saw an unidentified limit stay shut, prove
      // nothing a client running for hours may rely on (a silent minute met late in its minute:
      // about 40 req/s held 5 s, true 10, 30 Nov). So none runs, and nothing is recommended, as
      // `run` treats a limit announced past its probe ("announced, not proven": recommendation
      // null, and how to size it): a policy flagged but still given is the figure a client adopts.
      const shutPast = bracket && shortRounds ? shutPastProof(bracket, proofS) : null;
      if (recommendation && proofS > 0 && !signal.aborted && !guessed && unpaced === null && shutPast) {
        proofNotes.push(`proof not run: ${shutPast}`);
        io.progress(`rate limit: ${shutPast}`);
      }
      if (recommendation && proofS > 0 && !signal.aborted && !guessed && unpaced === null && !shutPast) {
        located = await k6AndBundles();
        if (typeof located === 'string') {
          // The proof was asked for: a policy nobody could prove must not pass as a proven one.
          proofNotes.push(`proof not run: ${located}`);
          io.untested('rate_limit', `proof not run: ${located}`);
        } else {
          const k6 = located;
          // A round must outlast the burst to prove the rate (proof-reach.ts): `ratelimit` may
          // lengthen one up to the probe's budget, as proofTiming does for a refill; `run` keeps
          // the short rounds it announced, and a burst they cannot outlast leaves the policy unproven.
          const reach = {
            // A search's rounds outlast what the drain let through at once (no burst was read).
            ...(bracket ? searchBurst(bracket) : { burst: estimate.burst, burstFromIdle: estimate.burst_from_idle }),
            roundS: proofS,
            maxRoundS: shortRounds ? proofS : Math.max(proofS, probeCapS),
            settleS,
            refillRps: estimate.sustained_rps,
          };
          // A second limit behind the probe's reading, identified from the probe and every round.
          const maxWindowS = proofS / 2;
          // Every announced limit the probe left unproven is a candidate beside the detectors' windows.
          const unproven = (estimate.announced ?? (estimate.advertised ? [estimate.advertised] : [])).flatMap((a) =>
            a.agrees === null && a.window_s !== null ? [{ limit: a.limit, window_s: a.window_s }] : [],
          );
          const stack = stackTracker(
            estimate.limiter,
            replayTimeline(estimate),
            maxWindowS,
            probeStartMs / 1000,
            unproven,
          );
          const sinceProbeS = () => (io.clock.now() - probeStartMs) / 1000;
          // What the rounds so far left standing (refuted.ts): each later round is sized from it, and
          // run as sized (its calls waiting out a 429 held among its concurrency only when the limiter
          // that stands counts them).
          let standing: Estimate = estimate;
          // How long each round ran as planned, by round: the horizon proven is the held round's.
          const roundLengths: number[] = [];
          // Every limit the probe read, a set's or the one (what a round settles for, proof-timing.ts).
          const probedLimits = estimate.limiters ?? (estimate.limiter ? [estimate.limiter] : []);
          // What the rounds sent: it counts in an announced quota's window as the probe's requests do.
          let sentByRounds = 0;
          const runRound = async (
            rec: Recommendation,
            { round, durationS: plannedS = proofS, cut, afterHold, restAtLeastS = 0 }: RoundToRun,
          ): Promise<Proof | null> => {
            // A span the rounds so far identified (a second limit's window or refill) lengthens this
            // one; `run` keeps the short rounds it announced.
            const durationS = shortRounds
              ? plannedS
              : roundLengthS(plannedS, withIdentifiedWindow(longestKnownWindow(standing), stack.verdict()), maxRoundS);
            roundLengths[round - 1] = durationS;
            // Once a set is identified, a round waits for all of it to rest, as a new client meets it.
            // A search's round rests until the limit is as a new client meets it (searchRestS),
            // unless the round before held and left it so (RoundToRun.afterHold).
            // A fixed window on the clock settles at its next edge (proof-timing.ts settleBeforeRoundS).
            const settled = settleBeforeRoundS(probedLimits, settleS, sinceProbeS(), probeStartMs / 1000);
            const rested = Math.min(
              Math.max(
                restAtLeastS,
                bracket && afterHold
                  ? settled
                  : Math.max(settled, stack.restS(sinceProbeS()), bracket ? searchRestS(bracket, proofS) : 0),
              ),
              probeCapS,
            );
            // An announced quota the probe (and the rounds since) left short of what this round
            // sends is waited for whole: up to a window, twice the probe's cap at most (proof-quota.ts).
            const quotaRound = { rps: rec.target_rps, durationS, sentSince: sentByRounds };
            const quota = quotaRestS(estimate.quotas_left, quotaRound, sinceProbeS() * 1000, 2 * probeCapS);
            const quotaSaid = quotaRestText(quota, quotaRound);
            if (quotaSaid) io.progress(`proof round ${round}: ${quotaSaid}`);
            if (quota.tooLong) proofNotes.push(`round ${round}: ${quotaSaid}`);
            const restS = Math.max(rested, quota.restS);
            io.progress(
              `proof round ${round}: waiting ${restS.toFixed(1)} s for the limit to refill, then proving the policy with k6 at ${rec.target_rps} req/s for ${durationS} s`,
            );
            await io.clock.sleep(restS * 1000, signal);
            if (signal.aborted) return null;
            const startS = sinceProbeS();
            const run = await prove({
              k6Path: k6.k6Path,
              bundleDir: k6.bundleDir,
              workDir: join(reportDir, 'k6', 'ratelimit-proof', `round-${round}`),
              target: {
                baseUrl: target.baseUrl,
                credentials: target.credentials,
                ...(target.caFile ? { caFile: target.caFile } : {}),
              },
              endpoint: calls.endpoint,
              business,
              ...(calls.validateMethod ? { validateMethod: calls.validateMethod } : {}),
              recommendation: rec,
              durationS,
              ...(cut !== undefined ? { cut } : {}),
              ...(waitsHold(standing) ? { waitsHoldConcurrency: true } : {}),
              tokenLifetimeS: expect.tokenLifetimeS,
              clockToleranceS: expect.clockToleranceS,
              runId: randomUUID(),
              signal,
            });
            // The round is replayed from when k6's arrivals began, not from its spawn just above,
            // and for as long as they ran: a round cut short has no retry tail (k6 stopped them all).
            const beganS = run.arrivalsBeganMs !== undefined ? (run.arrivalsBeganMs - probeStartMs) / 1000 : undefined;
            if (beganS !== undefined)
              io.progress(
                `proof round ${round}: k6's arrivals began ${(beganS - startS).toFixed(2)} s after it was started`,
              );
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
            countK6Requests(run.scenario.requests);
            sentByRounds += run.scenario.requests;
            proofNotes.push(...run.notes.map((n) => `round ${round}: ${n}`));
            if (run.scenario.error !== undefined && !signal.aborted)
              io.untested('rate_limit', `proof run did not complete: ${run.scenario.error}`);
            return run.proof;
          };
          const cutAfter = cutAfterRefusalsS(maxWindowS);
          // A search scouts in short rounds and proves only the rate it gives over the horizon (search-loop.ts).
          const outcome = bracket
            ? await searchUntilHeld(recommendation, searchTop(estimate, bracket), runRound, {
                reach,
                scoutS: scoutLengthS(bracket.restS, proofS),
                standing: (rounds) => (standing = withoutRefuted(estimate, rounds, stack.verdict())),
              })
            : await proveUntilHeld(recommendation, bindingRps(estimate) ?? recommendation.target_rps, runRound, {
                reach,
                identifiedRps: stack.identifiedRps,
                cutAfterRefusalsS: cutAfter,
                edgeless: edgelessBehind(estimate.limiter),
                // A first round that let nothing through is tried again after half the horizon at
                // rest: the longest window the proof tests, which the probe may have left spent.
                shutRestS: horizonS / 2,
                // Each later round is sized from what the rounds so far left standing: a policy given
                // after a refuted reading carries none of its figures (refuted.ts).
                standing: (rounds) => (standing = withoutRefuted(estimate, rounds, stack.verdict())),
              });
          // The proof of the policy given: the round that held it, not a later one tried above it.
          proof = outcome.provenProof ?? outcome.lastProof;
          // A first proof that produced no figures refuted nothing: the policy stands, unproven (the
          // run already cannot pass: the failed run is untested). Rounds that all failed leave nothing
          // to give. A round within the burst leaves its policy unproven, which fails nothing.
          const { verdict, given: policy, refuted } = provingVerdict(outcome, recommendation);
          if (bracket) proofNotes.push(searchSaid(outcome.rounds, bracket));
          given = bracket && verdict !== 'proven' ? null : policy;
          proving = {
            verdict,
            ...(verdict === 'not proven within horizon' && outcome.unproven ? { unproven: outcome.unproven.why } : {}),
            rounds: outcome.rounds,
            stack: stack.verdict(),
            ...(outcome.rounds.length > 0
              ? {
                  horizon: proofHorizon(
                    heldRoundS(outcome.rounds, given, roundLengths) ?? proofS,
                    // The windows that stand: a refuted reading's is no limit left untested.
                    withShutSpan(
                      withIdentifiedWindow(
                        longestKnownWindow(withoutRefuted(estimate, outcome.rounds, stack.verdict())),
                        stack.verdict(),
                      ),
                      bracket,
                    ),
                    askedHorizonS === undefined ? stageOptions.shortHorizon : undefined,
                    estimate.announced ?? (estimate.advertised ? [estimate.advertised] : []),
                  ),
                }
              : {}),
          };
          // No round held: nothing is recommended, and the run cannot pass (exit 1).
          if (refuted && !signal.aborted)
            io.untested(
              'rate_limit',
              `${calls.endpoint}: not proven: no recommended policy kept its promise in ${outcome.rounds.length} k6 proof round${outcome.rounds.length === 1 ? '' : 's'} (${outcome.rounds.map((r) => `${r.target_rps} req/s: ${r.why}`).join('; ')})`,
            );
        }
      }
      result = toRateLimitResult(estimate, given, proof, proofNotes, proving);
      const unsized = search && unidentified !== null ? searchUntested(unidentified, result, proving) : null;
      if (unsized !== null) io.untested('rate_limit', unsized);
      // --fleet N: simulated in well under a second, so it adds nothing a user would wait for; the
      // choice is then proven by a k6 fleet run, like the single client's, before it is given.
      if (settings.rateLimit.fleet !== undefined) {
        // Sized on what the proofs left standing: a refuted reading sizes no fleet (refuted.ts).
        const shown = standingAfterProof(estimate, proving, result);
        const sizing = given && { estimate: shown, recommendation: given, instances: settings.rateLimit.fleet };
        let fleet = sizing && sizeFleet(sizing);
        if (
          sizing &&
          fleet?.recommendation &&
          proving.verdict === 'proven' &&
          located !== undefined &&
          typeof located !== 'string' &&
          !signal.aborted
        ) {
          const fleetProof = await proveFleetChoice(sizing, fleet, located, {
            proofS,
            settleS,
            io,
            reportDir,
            target,
            endpoint: calls.endpoint,
            tokenLifetimeS: expect.tokenLifetimeS,
            countK6Requests,
          });
          // Unproven: nothing is recommended to the fleet, and the run cannot pass (exit 1).
          if (fleetProof.verdict !== 'proven' && !signal.aborted)
            io.untested(
              'rate_limit',
              `fleet of ${fleet.instances}: ${fleetProof.policy} not proven by a k6 fleet run: ${fleetProof.why}`,
            );
          fleet = { ...fleet, proof: fleetProof, ...(fleetProof.verdict === 'proven' ? {} : { recommendation: null }) };
        }
        result = { ...result, fleet };
      }
    } finally {
      // The probe's tokens are the configured credentials' too: the ledger proves their expiry later.
      on.ledger.recordIssued(target, http.issuedTokens(), io.clock.now());
      on.ledger.save(io.clock.now());
      await http.close();
    }
    for (const line of summaryLines(result)) io.out(line);
    return result;
  };
  return Object.assign(stage, { refusesBeforeRequests: (settings: TargetSettings) => void allowed(settings) });
}

/**
 * Why a probe that met the limit sized nothing: a figure for what passed before the first refusal
 * only where one was measured (never a placeholder printed as is). `stopped`: the command and its
 * probe's cap, to name the probe that covers a Retry-After past it.
 */
/** How discover's note on a Retry-After past the wait budget begins (http/retry-after.ts beyondWaitBudget). */
const RETRY_AFTER_PAST_BUDGET = 'not tested: Retry-After ';

export function limitMetUnsized(
  endpoint: string,
  e: Pick<Estimate, 'burst' | 'duration_s' | 'requests_limited' | 'requests_sent'> &
    Partial<Pick<Estimate, 'notes' | 'retry_after_max_s'>>,
  stopped?: { command: 'run' | 'ratelimit'; capS: number },
): string {
  const after = e.burst !== null ? ` after ${e.burst} requests` : '';
  // A probe whose next wait (a Retry-After of 57 s, a window's period) ran past its cap did not see
  // the limit fail to lift: a longer probe is the how, said first (a silent 600 per 60 s under run, 30 Nov).
  const short = e.notes?.find((n) => n.startsWith(STOPPED_SHORT));
  const retryAfterS = e.retry_after_max_s ?? null;
  if (short && stopped && retryAfterS !== null && retryAfterS >= LONG_WINDOW_S) {
    // The service said when it lifts; the probe did not wait to see. Whether it does is check's ratelimit.recovers.
    const { why, how } = retryAfterPastProbe(retryAfterS, stopped.capS, stopped.command);
    return `${endpoint}: not sized: the limit was met${after}; ${why} (it stopped after ${e.duration_s.toFixed(0)} s): ${how}`;
  }
  const neverLifts = 'a limit that never lifts breaks §7, see ratelimit.recovers in `check`';
  // A Retry-After past the wait budget (10^9 s) is no wait a longer probe would see the end of.
  const pastBudget = e.notes?.find((n) => n.startsWith(RETRY_AFTER_PAST_BUDGET));
  const hint = pastBudget
    ? `${pastBudget.slice('not tested: '.length)}; ${neverLifts}`
    : short
      ? `the probe ${short.replace(/[:;] the estimate may be partial$/, '')}; a longer probe may size it, \`ces-harness ratelimit\` (--max-duration); ${neverLifts}`
      : neverLifts;
  return `${endpoint}: the limit was met${after} but no sustained rate could be measured in ${e.duration_s.toFixed(0)} s (${e.requests_limited} of ${e.requests_sent} answers limited; ${hint})`;
}

/**
 * Why a limit not identified is not tested after its search (`unidentified`: why the probe named no
 * kind), or null when the search sized it (result.sustained_held): then the rate it held heads the
 * report and the run may pass. Beside the why, what the search showed: a hold too far below the
 * lowest rate refused to be the limit's (rate-bracket.ts searchHeld), or no rate held over a whole
 * round; nothing more when no round ran (the proof's note says why), every round failed (the
 * stage's "not proven" says so) or the rounds identified a set of limits.
 */
export function searchUntested(
  unidentified: string,
  result: Pick<RateLimitResult, 'sustained_held' | 'limiter'>,
  proving: Pick<Proving, 'verdict' | 'rounds'>,
): string | null {
  if (result.sustained_held) return null;
  const full = proving.rounds.filter((r) => r.scout_s === undefined && r.verdict === 'holds');
  const rounds = `${proving.rounds.length} round${proving.rounds.length === 1 ? '' : 's'}`;
  if (result.limiter || proving.rounds.length === 0 || proving.verdict === 'not proven') return unidentified;
  if (full.length > 0 && proving.verdict === 'proven')
    return `${unidentified}; ${Math.max(...full.map((r) => r.target_rps))} req/s held over a whole round, more than ${HELD_BRACKET_RATIO} times below the lowest rate refused: a floor, not the limit's rate, so nothing was sized`;
  return `${unidentified}; paced k6 rounds held no rate over a whole round of the horizon (${rounds}), so nothing was sized`;
}

/** The stage as `ratelimit` uses it: discovery, recommendation, a proof over the horizon (120 s unless `--horizon`). */
export const rateLimitStage = makeRateLimitStage();

/** The stage as `run` uses it: the main job keeps the sizing short, a bounded probe and a brief proof, and says so. */
/** Why `run`'s proof is short, said beside its horizon. */
export const RUN_SHORT_HORIZON = `run keeps its proof short to stay quick; \`ratelimit\` proves ${DEFAULT_HORIZON_S} s, or give --horizon`;

export const runRateLimitStage = makeRateLimitStage({
  proofS: RUN_HORIZON_S,
  maxDurationS: RUN_PROBE_CAP_S,
  shortHorizon: RUN_SHORT_HORIZON,
});

interface FleetProofContext {
  io: Pick<RunIo, 'progress' | 'clock' | 'signal'>;
  reportDir: string;
  proofS: number;
  settleS: number;
  target: { baseUrl: string; credentials: Credentials; caFile?: string };
  endpoint: RateLimitEndpoint;
  tokenLifetimeS: number;
  countK6Requests: (n: number) => void;
}

/** `--fleet N`'s choice run by N k6 instances (prove-fleet.ts), after the limit refilled. */
async function proveFleetChoice(
  sizing: FleetSizingInput,
  fleet: FleetResult,
  k6: { k6Path: string; bundleDir: string },
  ctx: FleetProofContext,
): Promise<FleetProof> {
  const run = fleetProofRun(sizing, fleet, ctx.proofS);
  if (typeof run === 'string')
    return {
      instances: fleet.instances,
      policy: fleet.recommendation?.policy ?? '?',
      offered_rps: fleet.offered_rps,
      duration_s: ctx.proofS,
      verdict: 'not proven',
      why: `not run: ${run}`,
    };
  ctx.io.progress(
    `fleet proof: waiting ${ctx.settleS.toFixed(1)} s, then ${run.instances} k6 instances, policy ${run.policy.name}, ${run.offered_rps} req/s offered for ${run.duration_s} s`,
  );
  await ctx.io.clock.sleep(ctx.settleS * 1000, ctx.io.signal);
  const ran = await runFleetK6({
    k6Path: k6.k6Path,
    bundleDir: k6.bundleDir,
    workDir: join(ctx.reportDir, 'k6', 'ratelimit-fleet-proof'),
    target: {
      baseUrl: ctx.target.baseUrl,
      credentials: ctx.target.credentials,
      ...(ctx.target.caFile ? { caFile: ctx.target.caFile } : {}),
    },
    endpoint: ctx.endpoint,
    run,
    runId: randomUUID(),
    tokenLifetimeS: ctx.tokenLifetimeS,
    signal: ctx.io.signal,
  });
  ctx.countK6Requests(ran.scenario.requests);
  return fleetProofOf(run, ran.figures);
}

/** k6 and the rate-limit bundle, or why the proof cannot run (the estimate and recommendation still stand). */
async function k6AndBundles(): Promise<{ k6Path: string; bundleDir: string } | string> {
  try {
    const root = findProjectRoot();
    const k6 = await locateK6(process.env, root);
    const bundleDir = join(root, 'dist', 'scenarios');
    if (!existsSync(join(bundleDir, 'rate-limit.js')))
      return 'the k6 scenario bundles are not built; run `npm run build` in the ces-harness folder';
    return { k6Path: k6.path, bundleDir };
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
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

/**
 * Whether the policy rests on a partial estimate's figures, no ground to load the service with a
 * proof of them. A search's rounds rest on their own evidence, so a probe that only ran out of time
 * still brackets one (a bucket of 100 and a window of 200 per 10 s: the probe's 60 s ran out before
 * it told them apart, and no search ran: not tested, bench 1 Dec).
 */
export const partialGuess = (
  estimate: Pick<Estimate, 'partial' | 'out_of_time'>,
  bracket: RateBracket | undefined,
): boolean => estimate.partial && !(bracket !== undefined && estimate.out_of_time === true);
