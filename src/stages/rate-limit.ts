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
import { AnswerOverCap, ProbeSetupError, probeCalls, type ProbeCalls } from '../ratelimit/calls.js';
import { DISCOVER_DEFAULTS, STOPPED_ON_ERRORS, STOPPED_SHORT, discover, latencyBound } from '../ratelimit/discover.js';
import { NOT_IDENTIFIED } from '../ratelimit/evidence.js';
import { LONG_WINDOW_S, announcedPastBudget } from '../ratelimit/probe/advertised.js';
import {
  DEFAULT_HORIZON_S,
  HORIZON_MAX_S,
  RUN_HORIZON_S,
  RATELIMIT_PROBES,
  RUN_PROBE_CAP_S,
  longestKnownWindow,
  probeBudgetS,
  retryAfterPastProbe,
  shutPastProof,
  underRunHowTo,
  withShutSpan,
} from '../ratelimit/horizon.js';
import { HELD_BRACKET_RATIO, heldAtRps } from '../ratelimit/refuted.js';
import { searchStart } from '../ratelimit/rate-bracket.js';
import { recommend } from '../ratelimit/recommend.js';
import { belowK6Pace } from '../ratelimit/proof-loop.js';
import { proofTiming, roundLengthS } from '../ratelimit/proof-timing.js';
import { sizeFleet, type FleetSizingInput } from '../ratelimit/fleet/size.js';
import { fleetProofOf, fleetProofRun, type FleetProof } from '../ratelimit/fleet/prove-fleet.js';
import { runFleetK6 } from '../ratelimit/fleet/k6-proof.js';
import {
  lineTimedOut,
  noLimitUntested,
  notProbed,
  standingAfterProof,
  summaryLines,
  toRateLimitResult,
  type Proving,
} from '../ratelimit/result.js';
import type { Estimate, Proof, RateBracket, Recommendation } from '../ratelimit/types.js';
import { acceptedIn } from '../ratelimit/timeline.js';
import { businessForLoad, businessOfRateLimit, refuseProductionLoad } from '../runner/production-load.js';
import { isProduction } from '../config/target.js';
import { productionGateFor } from '../runner/context.js';
import { requestTimeoutMs } from '../http/dispatcher.js';
import type { RunIo, SizingTarget, Stage, StageTarget } from './run-io.js';
import { proveRecommendation } from './rate-limit-proof.js';
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
    const { settings } = on;
    const business = allowed(settings);
    // For the built-in emulator: an instance with 24 h tokens, so no token turns over mid-probe.
    const { target, secondClient: builtInSecond, sentBefore } = await on.probeTarget();
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
      let calls: ProbeCalls;
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
      calls = tallied(calls, tally);
      // The horizon a client's life is proven for (horizon.ts): `--horizon`, else the command's own.
      const askedHorizonS = settings.rateLimit.horizonS;
      const horizonS = stageOptions.proofS === 0 ? 0 : (askedHorizonS ?? stageOptions.proofS ?? DEFAULT_HORIZON_S);
      const probeCapS = stageOptions.maxDurationS ?? settings.rateLimit.maxDurationS ?? probeBudgetS(horizonS);
      // The clock the rounds are placed on beside the probe's samples (stacked-inference.ts replays both).
      const probeStartMs = io.clock.now();
      const probed = await discover({
        calls,
        maxRps,
        maxRequests,
        maxDurationS: probeCapS,
        maxRetryAfterS: settings.rateLimit.maxRetryAfterS,
        signal,
        progress: io.progress,
        // The clock the answers are stamped with: a Retry-After counts from their arrival.
        clock: http.clock,
        // No request sent to wait in a line past half of it (a pacer of 10 req/s, in-flight.ts lineCapFor).
        requestTimeoutMs: requestTimeoutMs(target),
      });
      // Under `run`, a note's how names `ratelimit`'s longer probe (underRunHowTo), rewritten once
      // here so that the not-tested line and the report's notes say the same.
      const estimate = stageOptions.shortHorizon
        ? { ...probed, notes: probed.notes.map((n) => underRunHowTo(n, probeCapS)) }
        : probed;
      result = await sizeFromProbe({
        on,
        io,
        stageOptions,
        target,
        calls,
        business,
        estimate,
        tally,
        horizonS,
        askedHorizonS,
        probeCapS,
        probeStartMs,
      });
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

/** How discover's note on a Retry-After past the wait budget begins (http/retry-after.ts beyondWaitBudget). */
const RETRY_AFTER_PAST_BUDGET = 'not tested: Retry-After ';

/**
 * Why a probe that met the limit sized nothing: a figure for what passed before the first refusal
 * only where one was measured (never a placeholder printed as is). `stopped`: the command and its
 * probe's cap, to name the probe that covers a Retry-After past it.
 */
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
    return `${unidentified}; ${Math.max(...full.map(heldAtRps))} req/s held over a whole round, more than ${HELD_BRACKET_RATIO} times below the lowest rate refused: a floor, not the limit's rate, so nothing was sized`;
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
  io: Pick<RunIo, 'progress' | 'clock' | 'signal' | 'untested'>;
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
 * Whether the policy rests on a partial estimate's figures, no ground to load the service with a
 * proof of them. A search's rounds rest on their own evidence, so a probe that only ran out of time
 * or requests still brackets one (a bucket of 100 and a window of 200 per 10 s: the probe's 60 s ran
 * out before it told them apart, and no search ran: not tested, bench 1 Dec; its 3,000 requests
 * ran out walking the window's edges, the same, bench 4 Dec).
 */
export const partialGuess = (
  estimate: Pick<Estimate, 'partial' | 'out_of_budget'>,
  bracket: RateBracket | undefined,
): boolean => estimate.partial && !(bracket !== undefined && estimate.out_of_budget !== undefined);

/** `calls` with each answer of the primary client counted by status in `tally` (0: none came; an answer over the cap by its status). */
function tallied(calls: ProbeCalls, tally: Map<number | string, number>): ProbeCalls {
  const primary = calls.primary;
  const count = (key: number | string) => tally.set(key, (tally.get(key) ?? 0) + 1);
  return {
    ...calls,
    primary: async () => {
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
}

/**
 * `--fleet N`'s sizing of what the proofs left standing (a refuted reading sizes no fleet,
 * refuted.ts), its choice proven by a k6 fleet run, like the single client's, before it is given;
 * null when no policy was given. `k6`: undefined when the single client's proof found none.
 */
async function fleetFor(
  instances: number,
  estimate: Estimate,
  single: { given: Recommendation | null; proving: Proving; result: RateLimitResult },
  k6: { k6Path: string; bundleDir: string } | undefined,
  ctx: FleetProofContext,
): Promise<FleetResult | null> {
  const { given, proving } = single;
  const shown = standingAfterProof(estimate, proving, single.result);
  const sizing = given && { estimate: shown, recommendation: given, instances };
  const fleet = sizing && sizeFleet(sizing);
  if (!sizing || !fleet?.recommendation || proving.verdict !== 'proven' || !k6 || ctx.io.signal.aborted) return fleet;
  const fleetProof = await proveFleetChoice(sizing, fleet, k6, ctx);
  // Unproven: nothing is recommended to the fleet, and the run cannot pass (exit 1).
  if (fleetProof.verdict !== 'proven' && !ctx.io.signal.aborted)
    ctx.io.untested(
      'rate_limit',
      `fleet of ${fleet.instances}: ${fleetProof.policy} not proven by a k6 fleet run: ${fleetProof.why}`,
    );
  return { ...fleet, proof: fleetProof, ...(fleetProof.verdict === 'proven' ? {} : { recommendation: null }) };
}

/**
 * What the probe's estimate leaves not tested before any proof, said through `io` (the first
 * reason that applies, in this order); for a limiter refused but not identified, the search that
 * sizes it instead, and why it was not identified (said as not tested unless the search sizes it).
 */
export function judgeProbe(
  estimate: Estimate,
  probe: {
    io: Pick<RunIo, 'untested' | 'progress' | 'signal'>;
    endpoint: RateLimitEndpoint;
    tally: Map<number | string, number>;
    /** Why the probe's answers measured nothing (answers.ts), already said. */
    unusable: string | undefined | null;
    maxRequests: number;
    probeCapS: number;
    shortHorizon: string | undefined;
  },
): { search: Recommendation | null; unidentified: string | null } {
  const { io, endpoint, unusable, maxRequests, probeCapS } = probe;
  const none = { search: null, unidentified: null };
  if (io.signal.aborted) return none;
  // A probe that spends its whole budget failed to pin the limiter down: never a pass. Said
  // first: a budget spent before the rate was measured is not a limit that never lifts.
  const stoppedOnErrors = estimate.notes.find((n) => n.startsWith(STOPPED_ON_ERRORS));
  if (!unusable && stoppedOnErrors) {
    // The service stopped answering mid-probe (a crash, a tarpit): what came before is no reading of its limit.
    io.untested(
      'rate_limit',
      `${endpoint}: the probe ${stoppedOnErrors}: what it saw before measures no limit; make the service answer every request, then probe again`,
    );
    return none;
  }
  // A search of the rate from the probe's bracket (rate-bracket.ts), on its own evidence: only a hold
  // over the horizon sizes it, and `why` is said as not tested unless it does; said at once when
  // there is no bracket to search.
  const searchElseUntested = (why: string) => {
    const search = searchStart(estimate);
    if (!search) io.untested('rate_limit', why);
    return { search, unidentified: why };
  };
  if (estimate.partial && estimate.requests_sent >= maxRequests) {
    const spent = `${endpoint}: the probe spent all of rate_limit.max_requests (${maxRequests}) without pinning the limiter down; the estimate is partial`;
    // Refused, but its rate not read: searched all the same (partialGuess).
    if (!unusable) return searchElseUntested(spent);
    io.untested('rate_limit', spent);
    return none;
  }
  if (unusable) return none;
  // Nothing refused, but answered at a steady pace in a line that grew (probe/queued-pace.ts): a
  // limit that delays, which `ratelimit`'s rounds search below. `run`'s short rounds leave it to them.
  const queued = estimate.limiting_status === null ? estimate.rate_bracket?.why[0] : undefined;
  if (queued && !probe.shortHorizon) return searchElseUntested(`${endpoint}: ${queued}`);
  const gaps = estimate.limiting_status === null ? gapsInStream(probe.tally) : null;
  // No limit met, but the probe never got near the rate it aimed at: "none" would claim more than it saw.
  const untestedWhy =
    (gaps && `${endpoint}: ${gaps}`) ||
    noLimitUntested(endpoint, estimate) ||
    (latencyBound(estimate.latency_p95_ms, estimate.sustained_rps, estimate.limiter, estimate.latency_alone_p95_ms) &&
      `${endpoint}: ${latencyBound(estimate.latency_p95_ms, estimate.sustained_rps, estimate.limiter, estimate.latency_alone_p95_ms)}`);
  if (untestedWhy) {
    io.untested('rate_limit', untestedWhy);
    return none;
  }
  const ad = probe.shortHorizon ? announcedPastBudget(estimate) : undefined;
  if (ad) {
    // `run`: a window longer than its short probe verifies is said beside the announcement
    // ("announced, not proven", and how to size it), never a failure of a conformant service.
    const quota = ad.window_s !== null ? `${ad.limit} per ${ad.window_s} s` : `${ad.limit} per window`;
    io.progress(
      `${quota} announced (${ad.source_header}), not proven: longer than run's ${probeCapS} s probe verifies; ${ad.window_s !== null && ad.window_s > HORIZON_MAX_S / 2 ? `nor does \`ces-harness ratelimit\`'s longest probe (windows up to about ${HORIZON_MAX_S / 2} s): a client is sized by the announcement` : '`ces-harness ratelimit` sizes it'}`,
    );
    return none;
  }
  const why = estimate.notes.find((n) => n.startsWith(NOT_IDENTIFIED));
  if (why) {
    // Refused, but too seldom to read a limiter from (evidence.ts). The kind stays unidentified,
    // but the rate a client relies on is what holds (issue 35 item 4): a search below that held
    // a rate over the whole horizon sizes the limit; without one, nothing passes as sized.
    return searchElseUntested(`${endpoint}: ${why}`);
  }
  if (estimate.limiting_status !== null && estimate.sustained_rps === null) {
    // Limited, yet no steady rate got through: nothing was sized, so nothing may pass as sized.
    const unsized = limitMetUnsized(endpoint, estimate, {
      command: probe.shortHorizon ? 'run' : 'ratelimit',
      capS: probeCapS,
    });
    // Unless a search holds a rate (issue 35 item 4), where the limit was seen to lift: a log of 100
    // per 60 s that counts refusals, kept shut by the probe's own pings, left `ratelimit` nothing to
    // give (6 Dec). Not under `run`, whose how is `ratelimit`'s longer probe.
    if (!probe.shortHorizon && liftedInProbe(estimate)) return searchElseUntested(unsized);
    io.untested('rate_limit', unsized);
  }
  return none;
}

/** More let through than the drain's share before its first refusal: the limit lifted while the probe watched. */
const liftedInProbe = (e: Pick<Estimate, 'rate_bracket' | 'timeline'>): boolean =>
  !!e.rate_bracket && acceptedIn(e.timeline) > e.rate_bracket.drained;

/** How the proof's rounds are timed: `run`'s short rounds or not, the settle before the first, a round's length and its cap, s. */
function proofPlan(
  estimate: Estimate,
  bracket: RateBracket | undefined,
  o: {
    horizonS: number;
    probeCapS: number;
    shortHorizon: string | undefined;
    askedHorizonS: number | undefined;
    searchOnly: boolean | undefined;
  },
): { shortRounds: boolean; settleS: number; maxRoundS: number; proofS: number } {
  // The probe (or the round before) left the limit drained; a client adopting the policy starts on
  // a rested one, and a round spans the limit's refill, or it could not have failed (proof-timing.ts).
  // `run` keeps the short rounds it announced (unless --horizon): a search's rounds are not
  // lengthened to what the probe saw its limit stay shut, a lower bound only (shutPastProof).
  const shortRounds = o.shortHorizon !== undefined && o.askedHorizonS === undefined;
  // A limit not identified kept the probe out for the bracket's restS: its window is at least
  // that long (horizon.ts shutSpan), so `ratelimit`'s rounds span two of it, within the cap.
  // Not in longestKnownWindow itself: a later round sized from it (runRound) would stretch the
  // search's scouts, short by design (search-loop.ts SCOUT_SCALE), to the full rounds' length.
  const longest = withShutSpan(longestKnownWindow(estimate), shortRounds ? undefined : bracket);
  const timing = proofTiming(estimate.refill_s, o.horizonS, o.probeCapS, longest?.window_s ?? null);
  // The proof's cap (proofTiming's): a round lengthened for a span found later stays within it.
  const maxRoundS = Math.max(o.horizonS, o.probeCapS);
  // Two of the longest span, a refill read one request short included (horizon.ts coveringS).
  const proofS =
    timing.proofS > 0 && (bracket !== undefined || !o.searchOnly) ? roundLengthS(timing.proofS, longest, maxRoundS) : 0;
  return { shortRounds, settleS: timing.settleS, maxRoundS, proofS };
}

/**
 * Why a proof asked for is not run, and where that is said beside the proof's notes (`untested`
 * fails the run, `progress` only tells), or null when it runs.
 */
function proofWithheld(
  recommendation: Recommendation,
  estimate: Estimate,
  bracket: RateBracket | undefined,
  o: { proofS: number; shortRounds: boolean; probeCapS: number; underRun: boolean },
): { why: string; say: 'untested' | 'progress' | 'note' } | null {
  // Said, so a reader of the policy knows why it carries "not proven": a partial estimate is
  // no ground to load the service with a proof of it. And how to get one: a longer probe (nginx's
  // 1r/s with no burst, probed for 60 s, 7 Dec, had been told "`ces-harness ratelimit` runs one"
  // by `ratelimit` itself).
  if (partialGuess(estimate, bracket))
    return { why: `${PARTIAL_GUESS}; ${longerProbe(o.probeCapS, o.underRun)}`, say: 'note' };
  // Not a failure of the service, and not a proof: said, so the policy carries "not proven".
  const unpaced = belowK6Pace(recommendation.target_rps);
  if (unpaced !== null) return { why: unpaced, say: 'untested' };
  // `run`'s rounds, shorter than twice what the probe saw an unidentified limit stay shut, prove
  // nothing a client running for hours may rely on (a silent minute met late in its minute:
  // about 40 req/s held 5 s, true 10, 30 Nov). So none runs, and nothing is recommended, as
  // `run` treats a limit announced past its probe ("announced, not proven": recommendation
  // null, and how to size it): a policy flagged but still given is the figure a client adopts.
  const shutPast = bracket && o.shortRounds ? shutPastProof(bracket, o.proofS) : null;
  if (shutPast) return { why: shutPast, say: 'progress' };
  return null;
}

/** Why no proof runs on a partial estimate (proofWithheld), before how a longer probe may complete it. */
export const PARTIAL_GUESS = 'the estimate is partial (see the notes above), so the recommendation is not proven';

/** How to give the probe the time a partial estimate lacked: `ratelimit`'s longer cap, or from `run`, `ratelimit` itself. */
const longerProbe = (capS: number, underRun: boolean): string =>
  underRun
    ? `${RATELIMIT_PROBES} (--max-duration S for longer), and proves what it finds`
    : `a longer probe may complete it: --max-duration above ${capS} s`;

/** What the stage works from once the probe has run. */
interface ProbeDone {
  on: StageTarget;
  io: RunIo;
  stageOptions: RateLimitStageOptions;
  target: SizingTarget['target'];
  calls: ProbeCalls;
  business: ReturnType<typeof businessForLoad>;
  estimate: Estimate;
  /** Every answer of the probe's primary client, by status (tallied). */
  tally: Map<number | string, number>;
  horizonS: number;
  askedHorizonS: number | undefined;
  probeCapS: number;
  probeStartMs: number;
}

/** From the probe's estimate: what is not tested, the recommendation, its proof and the fleet's; the section of the report. */
async function sizeFromProbe(done: ProbeDone): Promise<RateLimitResult> {
  const { on, io, stageOptions, target, calls, estimate, probeCapS } = done;
  const { signal } = io;
  const { settings, reportDir } = on;
  const expect = settings.sizing.expect;
  const { maxRequests } = settings.rateLimit;
  const unusable = signal.aborted ? undefined : unusableProbe(done.tally);
  if (unusable)
    io.untested(
      'rate_limit',
      `${calls.endpoint}: ${unusable}${lineTimedOut(estimate, requestTimeoutMs(target) / 1000) ?? ''}`,
    );
  // A limiter refused but not identified: paced k6 rounds search its bracket (rate-bracket.ts)
  // for the highest rate that holds over the horizon, the kind unidentified; only where
  // judgeProbe says so (`run`'s announced window past its budget, say, is no search's case).
  // `unidentified`: why the limiter was not identified, said as not tested unless the search sizes it (below).
  const { search, unidentified } = judgeProbe(estimate, {
    io,
    endpoint: calls.endpoint,
    tally: done.tally,
    unusable,
    maxRequests,
    probeCapS,
    shortHorizon: stageOptions.shortHorizon,
  });
  const bracket = search ? estimate.rate_bracket : undefined;
  const recommendation = unusable ? null : (recommend(estimate) ?? search);

  let proof: Proof | null = null;
  const proofNotes: string[] = [];
  // A recommendation is given only once a proof held it (proof-loop.ts); until then it is not run.
  let proving: Proving = { verdict: 'not run', rounds: [] };
  // A search's first rate is a guess, not a reading: given only once a round held it (or one above).
  let given = bracket ? null : recommendation;
  const { shortRounds, settleS, maxRoundS, proofS } = proofPlan(estimate, bracket, {
    horizonS: done.horizonS,
    probeCapS,
    shortHorizon: stageOptions.shortHorizon,
    askedHorizonS: done.askedHorizonS,
    searchOnly: stageOptions.searchOnly,
  });
  let located: Awaited<ReturnType<typeof k6AndBundles>> | undefined;
  // Every k6 request against production counts in the production gate, each proof round's and the fleet's.
  const countK6Requests = (n: number) => {
    if (isProduction(target)) on.productionGate?.addK6Requests(n);
  };
  const withheld =
    recommendation && proofS > 0 && !signal.aborted
      ? proofWithheld(recommendation, estimate, bracket, {
          proofS,
          shortRounds,
          probeCapS,
          underRun: stageOptions.shortHorizon !== undefined,
        })
      : null;
  if (withheld) {
    proofNotes.push(`proof not run: ${withheld.why}`);
    if (withheld.say === 'untested') io.untested('rate_limit', `proof not run: ${withheld.why}`);
    if (withheld.say === 'progress') io.progress(`rate limit: ${withheld.why}`);
  }
  if (recommendation && proofS > 0 && !signal.aborted && !withheld) {
    located = await k6AndBundles();
    if (typeof located === 'string') {
      // The proof was asked for: a policy nobody could prove must not pass as a proven one.
      proofNotes.push(`proof not run: ${located}`);
      io.untested('rate_limit', `proof not run: ${located}`);
    } else {
      ({ proof, given, proving } = await proveRecommendation(
        {
          io,
          reportDir,
          target,
          calls,
          business: done.business,
          expect,
          k6: located,
          estimate,
          bracket,
          proofS,
          maxRoundS,
          settleS,
          probeCapS,
          horizonS: done.horizonS,
          askedHorizonS: done.askedHorizonS,
          shortRounds,
          shortHorizon: stageOptions.shortHorizon,
          probeStartMs: done.probeStartMs,
          proofNotes,
          countK6Requests,
        },
        recommendation,
      ));
    }
  }
  const result = toRateLimitResult(estimate, given, proof, proofNotes, proving);
  const unsized = search && unidentified !== null ? searchUntested(unidentified, result, proving) : null;
  if (unsized !== null) io.untested('rate_limit', unsized);
  // --fleet N: simulated in well under a second, so it adds nothing a user would wait for; the
  // choice is then proven by a k6 fleet run, like the single client's, before it is given.
  if (settings.rateLimit.fleet === undefined) return result;
  const k6 = located !== undefined && typeof located !== 'string' ? located : undefined;
  const fleet = await fleetFor(settings.rateLimit.fleet, estimate, { given, proving, result }, k6, {
    proofS,
    settleS,
    io,
    reportDir,
    target,
    endpoint: calls.endpoint,
    tokenLifetimeS: expect.tokenLifetimeS,
    countK6Requests,
  });
  return { ...result, fleet };
}
