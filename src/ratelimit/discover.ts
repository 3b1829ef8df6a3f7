// Rate-limit discovery: measure a limit whose thresholds, window and scope the spec does not give
// (§8), politely and within bounds. No limiter type is assumed; every figure is read off answers.
//
// The probe, in order (each phase a module of probe/):
//  1. drain   – paced at max_rps until the first refusal (429, or a non-conformant 503…). What
//               passed before it is a first guess at the burst (the limit may not have been idle).
//               When nothing passed (the set-up requests used up a small limit), once more after
//               a wait that refills it (probe/redrain.ts).
//  2. pilot   – still at max_rps (halved while refusals run long), until four acceptances right
//               after refusals: a rough rate r0.
//  3. window  – offered at 1.25 × r0 (above the limit, so it stays saturated, but with few
//               refusals) until ≥ 60 requests passed over ≥ 2 s with refusals all along: the
//               sustained rate as the slope through the acceptances that followed refusals, good
//               to about ±1 % (see estimators.ts). Recovery is read off the same window: the
//               longest wait from a refusal to the next acceptance. No refusal for long means the
//               offered rate fell below the limit: it is raised and the window starts again.
//               Phases 1–3 are one paced stream (stream.ts) whose every decision is a pure
//               reducer of the answers so far (stream-reducer.ts).
//  (a long window the service announces – RateLimit fields, or a Retry-After of 5 s or more – is
//   tested at its announced edges right after the drain instead (advertised.ts); anything that
//   contradicts it leaves the limit to the phases below)
//  (a drain that came back in a clump smaller than itself – a bucket refilled by a timer in
//   batches, Envoy's token_bucket – is read off its staircase right after the shape instead:
//   batch-staircase.ts)
//  (a silent trickle back that the recovery's pings, all let through a round trip apart, could not
//   time is watched, saturated, before the window: a counter whose drain straddled an edge is read
//   off the two rates either side of its next edge, trickle-watch.ts and trickle-lines.ts)
//  4. idle burst (idle-burst.ts) – wait until the limit must have refilled (twice the time the
//               guessed burst needs at the sustained rate), send at max_rps until the first
//               refusal; repeat (waiting longer while it grows) until two measurements agree, so
//               it is measured from idle.
//  5. Retry-After (retry-after.ts) – wait exactly what the burst's refusal said, retry once:
//               truthful or not (without it, the same for a reset announced by RateLimit headers).
//  6. scope (scope.ts) – when a second client is configured: drain the configured client's limit
//               again, and right then the second client sends a few requests: they pass on a
//               per-client limit and are refused on a shared one.
// Everything is bounded by max_rps, max_requests and a wall-clock cap, and an abort ends it with
// what is known so far (a partial estimate).
//
// The Probe (probe/probe.ts) owns the samples, the budget and the sending; each phase sends
// through it and returns its findings as plain data; this file runs the phases in order and puts
// their findings together into the Estimate.

import type { ProbeCalls } from './calls.js';
import { contradiction } from './judge-claim.js';
import { burstOf, round } from './estimators.js';
import { bisectBucketOfOne, oneBracket } from './probe/bucket-of-one.js';
import { FINE_SLOT_MS, probeTimeline } from './timeline.js';
import { NOT_IDENTIFIED, refusalsOf, tooFewRefusals } from './evidence.js';
import { slowSendsNote } from './probe/slow-sends.js';
import { systemClock, type Clock } from '../time/clock.js';
import { describeLimiter, queueDelayMs, sustainedRate, type LimiterModel, type LimiterSet } from './limiters/index.js';
import { advertisedPhase, announcedFindings, compareAdvertisement } from './probe/advertised.js';
import { lowerAnnounced, verifyAnnouncedStack } from './probe/announced-stack.js';
import { announcedKey } from '../spec/ratelimit-fields.js';
import { withAnnouncementsJudged } from './judge-announced.js';
import type { AdvertisedLimit } from '../report/model.js';
import { idleBurstPhase, type IdleBurstFindings } from './probe/idle-burst.js';
import { confirmedShape } from './probe/confirm-shape.js';
import { drainFigures, shapePhase, trickleTimedBy, type ShapeFindings } from './probe/recover.js';
import { windowFigures, windowLengthS, windowPhase, type WindowModel } from './probe/window-path.js';
import { ERROR_STREAK, Probe, type Heard } from './probe/probe.js';
import { MAX_IN_FLIGHT, reachableRps } from './in-flight.js';
import { retryAfterPhase, type RetryAfterFindings } from './probe/retry-after.js';
import { beyondWaitBudget } from '../http/retry-after.js';
import { drainAgainFromIdle } from './probe/redrain.js';
import { counterEdgePhase, type CounterEdgeFindings } from './probe/counter-edge.js';
import { counterLimit, straddledEvidence } from './probe/counter-limit.js';
import { edgeCameLate, rampAfterShape, rampFromEdge } from './probe/counter-ramp.js';
import { logPhaseCheck } from './probe/log-phase.js';
import { batchBucketPhase, batchUntold } from './probe/batch-bucket.js';
import { cameBackInBatch, staircasePhase, type BatchBucketModel } from './probe/batch-staircase.js';
import { refillOf } from './horizon.js';
import { EDGE_PRECISION } from './probe/window-edges.js';
import { scopePhase } from './probe/scope.js';
import { refusalGapRulesOutBucket, tailRulesOutBucket } from './probe/drain-tail.js';
import { shutEstimate } from './probe/shut-past-budget.js';
import { announcedCounter, resetTicksPhase, type TicksFindings } from './probe/reset-ticks.js';
import { countedInWindowEndingAt } from './probe/announced-ends.js';
import { ledgerRulesOutBucket, refillUnwatched } from './probe/bucket-ledger.js';
import { neverLifted, silentWindowPhase } from './probe/silent-window.js';
import { queuedPaceNote, queuedPaceOf, queuedPaceUnread } from './probe/queued-pace.js';
import { ownBusy, processLoad, type OwnLoad } from './probe/own-load.js';
import { acceptedLatencyP95, aloneLatencyP95, noLimitReach, streamPhase, type StreamFindings } from './probe/stream.js';
import { queueIntervalOfDrain, queueOfBursts } from './probe/queue-wait.js';
import { cameBackAfterLongShut, windowBehindFront } from './probe/behind-front.js';
import { queuedBracket, rateBracket } from './rate-bracket.js';
import { trickleWatchPhase } from './probe/trickle-watch.js';
import { streamPrecision } from './probe/sliding-period.js';
import { usualGapNoiseMs } from './probe/arrival.js';
import type { Estimate, Sample } from './types.js';
import type { RecoveryShape } from './identify.js';
import { outrunNote, outrunOf, retimedByAnswers, type Outrun } from './probe/outrun.js';
import { servedBehindNote, servedBehindOf } from './probe/served-behind.js';

export interface DiscoverOptions {
  calls: ProbeCalls;
  /** The probe never offers more than this many requests per second (rate_limit.max_rps). */
  maxRps: number;
  /** Nor sends more than this many requests in all (rate_limit.max_requests), set-up included. */
  maxRequests: number;
  /** Wall-clock cap of the whole probe, seconds. */
  maxDurationS?: number;
  signal?: AbortSignal;
  progress?: (line: string) => void;
  clock?: Clock;
  /** Accepted requests the sustained-rate window collects. */
  windowAccepts?: number;
  /** Shortest sustained-rate window, seconds. */
  minWindowS?: number;
  maxInFlight?: number;
  /** The longest Retry-After waited out to judge it (rate_limit.max_retry_after_s); longer ones are not tested. */
  maxRetryAfterS?: number;
  /** When given, every sample is also pushed here (for tests and benchmarks that inspect the run). */
  record?: Sample[];
  /** How busy this process is while it probes (probe/own-load.ts); absent: the real process's meter on `clock`. */
  ownLoad?: (clock: Clock) => OwnLoad;
  /**
   * The client's request timeout: no request is sent to wait in a service's line longer than half of
   * it (in-flight.ts lineCapFor). Absent: the in-flight count is sized by the latency alone.
   */
  requestTimeoutMs?: number;
}

export const DISCOVER_DEFAULTS = {
  maxDurationS: 120,
  // 60 acceptances bound the pacing error of the rate to about 1/60 at worst (±1.7 %); at
  // 1.25 × the limit the window costs about 15 refusals for that.
  windowAccepts: 60,
  // At high limits 60 acceptances take a fraction of a second; 2 s smooths out a scheduling hiccup.
  minWindowS: 2,
  // The bound of the in-flight count the probe sizes from the latency (in-flight.ts), and the
  // ServiceClient's connection pool: more in flight would queue in the client, not the service.
  maxInFlight: MAX_IN_FLIGHT,
  maxRetryAfterS: 120,
} as const;

/**
 * The most a bucket's rate may be unsure of (the stream's fit, one side) for a bucket to be claimed:
 * a partial stream's ±2–5 % still tells one (and says how well), a few acceptances (±50 %) do not.
 */
const BUCKET_PRECISION = 0.05;

/**
 * The most the rate itself may be unsure of to stand without a kind: half the recommendation's 20 %
 * headroom, so a rate read high by all of it still leaves the policy below the true one, and the
 * k6 proof checks it. A conformant bucket behind answers delayed 50 ± 20 ms read ±5.8 % under CI's
 * load and failed the run as "not identified" (profiles, 30 Nov); a few acceptances (±50 %) still do.
 */
const RATE_PRECISION = 0.1;

/**
 * The shortest span of saturated acceptances a rate may stand on without a kind: the stream's
 * shortest window. A precision read off a fraction of a second across a jittered network claims
 * more than it holds: a bucket of 50/s behind 50 ± 10 ms read 44.37 req/s "to ±6 %" off 305
 * acceptances over 0.3 s (CI land29), 11 % low, and headed the report with no search.
 */
const STAND_SPAN_S = DISCOVER_DEFAULTS.minWindowS;

/** Whether a bucket's trickle read too loosely for a bucket still gives a rate: precise enough, over long enough. */
export const unsizedRateStands = (fit: { precision: number; spanS: number }): boolean =>
  fit.precision <= RATE_PRECISION && fit.spanS >= STAND_SPAN_S;

/**
 * What a bucket's trickle read too loosely for a bucket says: its rate stands, or it is not
 * reported (the estimate carries no rate, so the stage's paced k6 rounds search for the one that
 * holds, rate-bracket.ts).
 */
export function unsizedBucketNote(fit: { precision: number; spanS: number; rps: number }): string {
  const known = `a bucket's trickle, but its rate is known to ±${round(fit.precision * 100, 1)} % only, over ${round(fit.spanS, 1)} s`;
  return unsizedRateStands(fit)
    ? `no limiter claimed: ${known} (a bucket is claimed within ±${BUCKET_PRECISION * 100} %); the rate stands within ±${RATE_PRECISION * 100} %, and the proof checks it`
    : `${NOT_IDENTIFIED}${known} (a rate stands within ±${RATE_PRECISION * 100} % over ${STAND_SPAN_S} s or more): its ${round(fit.rps, 2)} req/s is not reported`;
}

export async function discover(opts: DiscoverOptions): Promise<Estimate> {
  const probe = probeFor(opts);
  try {
    return await probed(probe, opts);
  } finally {
    probe.ownLoad.stop();
  }
}

async function probed(probe: Probe, opts: DiscoverOptions): Promise<Estimate> {
  const measured = await measuredLimit(probe, opts);
  // A quota announced spent until past the budget stopped the probe: what binds, not a partial reading.
  // A lower limit announced beside the one measured is verified after it, within the budget left.
  const estimate = probe.shut
    ? shutEstimate(measured, probe.shut, probe.maxDurationMs / 1000)
    : await withAnnouncedStack(probe, measured);
  // What the probe left of each announced quota, once it sent its last request.
  const left = probe.quotaWatch.left();
  const said = withBusyMachine(estimate, ownBusy(probe.ownLoad));
  return left.length > 0 ? { ...said, quotas_left: left } : said;
}

/**
 * A limiter not identified while this process was busy (probe/own-load.ts: most of a core, or its
 * timers late) says so in its first not-identified line, the one the stage's reason quotes: what the
 * probe saw may be this machine's stalls as much as the limiter's. CI ci-61C: the emulator's bucket
 * of 50 per second, probed beside the heavy tier's other runs, drained 291 at about 60 req/s of 100
 * planned, then let nothing through for 3.61 s, and was "not identified: … a sliding window" with
 * no word of the machine.
 */
export function withBusyMachine(estimate: Estimate, busy: string | undefined): Estimate {
  const at = estimate.notes.findIndex((n) => n.startsWith(NOT_IDENTIFIED));
  if (busy === undefined || at < 0 || estimate.limiter !== null) return estimate;
  const notes = [...estimate.notes];
  notes[at] = `${notes[at]} (${BUSY_MACHINE}: ${busy}; run it again on a quieter machine)`;
  return { ...estimate, notes };
}

/** How a not-identified line says this process was busy while it probed (withBusyMachine). */
export const BUSY_MACHINE = 'the probe ran on a busy machine';

/** The phases below: the limit a burst meets first, identified and sized. */
async function measuredLimit(probe: Probe, opts: DiscoverOptions): Promise<Estimate> {
  const streamSettings = {
    windowAccepts: opts.windowAccepts ?? DISCOVER_DEFAULTS.windowAccepts,
    minWindowMs: (opts.minWindowS ?? DISCOVER_DEFAULTS.minWindowS) * 1000,
  };
  // The drain alone first: after its first refusal nothing more is streamed until the shape is known.
  const first = await streamPhase(probe, { ...streamSettings, drainOnly: true });
  const outrun = first.measured ? outrunOf(probe.samples.filter((s) => s.phase === 'drain')) : undefined;
  const slower = outrun ? await drainAgainSlower(probe, outrun, first, streamSettings) : undefined;
  const estimate = await fromTheDrain(probe, slower?.drained ?? first, streamSettings);
  return slower ? { ...estimate, notes: [slower.note, ...estimate.notes] } : estimate;
}

/**
 * The longest sliding period the wait before a second drain lets a limiter forget the first in:
 * HAProxy's counter weighs its previous period until two have passed. Twice a drain of 0.6-0.8 s
 * was too short for its 50 per 1 s (a second drain 57 passed: "not identified", the stream's rate
 * raised until the counter, counting refusals, shut for the rest of the probe) and for 100 per 2 s
 * (read as a bucket of 41.24 req/s). Four seconds, spent only after an outrun; a longer window is
 * still shut then, and the first drain is what it met (below).
 */
const FORGOTTEN_PERIOD_MS = 2_000;

/**
 * A drain the service did not keep up with, its samples set aside (their send stamps time nothing):
 * the probe lowers its rate under what the service took, waits twice as long as that drain lasted
 * (and at least two periods of FORGOTTEN_PERIOD_MS), and drains again. A sliding window that short
 * has forgotten it by then (HAProxy's 50 per 1 s, waited once, let 55 through the next drain, its
 * previous period still weighing). Still shut then, the window is longer (HAProxy's 100 per 10 s):
 * the first drain is what it met, each request timed when its answer left the service's line.
 */
async function drainAgainSlower(
  probe: Probe,
  outrun: Outrun,
  first: StreamFindings,
  streamSettings: StreamSettings,
): Promise<{ drained: StreamFindings; note: string }> {
  const outran = probe.samples.filter((s) => s.phase === 'drain');
  for (const s of outran) s.phase = 'outrun';
  probe.maxRps = outrun.nextRps;
  probe.progress(
    `answers came back at ${outrun.servedRps} req/s of the ${outrun.sentRps} sent: draining again at ${outrun.nextRps} req/s`,
  );
  // Never past the probe's time cap: a line of 128 at 5 a second drained over 25 s.
  await probe.clock.sleep(
    Math.min(2 * Math.max(outrun.spanMs, FORGOTTEN_PERIOD_MS), Math.max(0, probe.maxDurationMs - probe.elapsed())),
    probe.signal,
  );
  const again = await streamPhase(probe, { ...streamSettings, drainOnly: true });
  const drain = probe.samples.filter((s) => s.phase === 'drain');
  // The first drain back as the drain, each request timed when its answer left the service's line.
  const firstDrainRetimed = () => {
    for (const s of retimedByAnswers(outran)) s.phase = 'drain';
  };
  // Met no limit at the slower pace: its rate lies between that pace and the service's own, where
  // the first drain met it. Nothing was sized, and it is no "no limit observed" either (said so
  // before 4 Dec, then "a limit that never lifts breaks §7": not tested, exit 1, for a bucket of
  // 110/s behind one worker taking 125 a second); the first drain, timed by its answers, brackets
  // the rate for the paced search (rate-bracket.ts).
  const accepted = drain.filter((s) => s.answer === 'accepted');
  if (!again.measured && accepted.length > 0 && !drain.some((s) => s.answer === 'limited')) {
    const spanMs = Math.max(...drain.map((s) => s.doneMs)) - Math.min(...drain.map((s) => s.sentMs));
    // Both drains, in order: the first (refused) leads the bracket, the second's answers time the latency.
    firstDrainRetimed();
    const unmet = `${NOT_IDENTIFIED}the limit lies between the ${outrun.nextRps} req/s that met none and the ${outrun.servedRps} req/s the service took the first drain in at, where it refused; nothing was sized, and paced rounds search between them`;
    return {
      drained: {
        limitingStatus: first.limitingStatus,
        latencyP95Ms: acceptedLatencyP95(probe.samples),
        notes: [unmet],
      },
      note: outrunNote(outrun, { requests: accepted.length, spanMs }),
    };
  }
  if (!again.measured || drain.some((s) => s.answer === 'accepted')) {
    // Its window held none of the set-up requests: 50 + 2 passed for HAProxy's 50 per 1 s, and
    // every clump of 52 from idle after it was refused in part (not identified).
    probe.setupInDrain = 0;
    return { drained: again, note: outrunNote(outrun, 'again') };
  }
  for (const s of drain) s.phase = 'outrun';
  firstDrainRetimed();
  const measured = { ...first.measured!, drainBurst: burstOf(outran, first.measured!.sustained) };
  const latencyP95Ms = acceptedLatencyP95(probe.samples);
  return { drained: { ...first, latencyP95Ms, measured }, note: outrunNote(outrun, 'answers') };
}

/** What the drain leads to: the limit it met, identified and sized. */
async function fromTheDrain(probe: Probe, drained: StreamFindings, streamSettings: StreamSettings): Promise<Estimate> {
  if (!drained.measured) return estimateOf(probe, drained, NOTHING_MEASURED, { verdict: 'unknown', notes: [] }, []);
  const announced = await announcedOrLongWindow(probe, drained);
  if (announced.estimate) return announced.estimate;
  const shaped = await recoveryShape(probe, drained, announced);
  if ('estimate' in shaped) return shaped.estimate;
  const { shape } = shaped;
  // Nothing passed back-to-back and the limit came back one request at a time: a bucket of one.
  const one = await bucketOfOnePhase(probe, drained);
  if (one) return one;
  // A smooth window that announces when its quota resets may keep its windows on the clock (a
  // sliding-window counter): period trials from idle would time its next edge, not a period
  // (go-chi/httprate 50 per 1 s read 0.76–0.84 s), so the stream sizes it and drains from idle tell
  // where its edges are. HAProxy, which announces nothing, keeps the trials.
  if (shape?.shape === 'smooth-window' && announcesReset(probe))
    return streamedSlidingWindow(probe, streamSettings, shape, [], undefined, true);
  if (shape && shape.shape !== 'bucket') return windowPath(probe, drained, streamSettings, shape);
  return bucketPath(probe, drained, streamSettings, announced.drain, shape);
}

type StreamSettings = { windowAccepts: number; minWindowMs: number };

/**
 * A bucket that holds one request (nginx's limit_req with no burst), its interval bisected by
 * single pings once the trace brackets it (probe/bucket-of-one.ts), and claimed only when the
 * whole trace bears it out (judge-claim.ts); undefined otherwise, and the paths go on.
 */
async function bucketOfOnePhase(probe: Probe, drained: StreamFindings): Promise<Estimate | undefined> {
  const bracket = oneBracket(probe.samples);
  const found = bracket ? await bisectBucketOfOne(probe, bracket) : undefined;
  // Timed by pings, each against the one before: a fast limit's interval is lost in their noise.
  if (!found || found.precision > BUCKET_PRECISION || contradiction(found.model, probe.samples) !== undefined)
    return undefined;
  const intervalS = round(1 / found.model.rate_rps, 3);
  const retryAfter = await retryAfterPhase(probe, intervalS);
  const scope = await scopePhase(probe, 1);
  const figures: Figures = {
    sustained_rps: round(found.model.rate_rps, 2),
    sustained_precision: found.precision,
    burst: 1,
    burst_from_idle: false,
    recovery_s: intervalS,
    refill_s: intervalS,
    scope: scope.scope,
    limiter: found.model,
    limiter_evidence: [found.evidence],
  };
  return estimateOf(probe, drained, figures, retryAfter, [
    `identified: ${describeLimiter(found.model)}`,
    ...retryAfter.notes,
    ...scope.notes,
  ]);
}

/** The Probe for these options, its budget and bounds resolved, after saying what it will do. */
function probeFor(opts: DiscoverOptions): Probe {
  const clock = opts.clock ?? systemClock;
  const probe = new Probe({
    calls: opts.calls,
    clock,
    ownLoad: (opts.ownLoad ?? processLoad)(clock),
    maxRps: opts.maxRps,
    maxRequests: opts.maxRequests,
    maxDurationMs: (opts.maxDurationS ?? DISCOVER_DEFAULTS.maxDurationS) * 1000,
    maxInFlight: opts.maxInFlight ?? DISCOVER_DEFAULTS.maxInFlight,
    maxRetryAfterS: opts.maxRetryAfterS ?? DISCOVER_DEFAULTS.maxRetryAfterS,
    signal: opts.signal,
    progress: opts.progress ?? (() => {}),
    samples: opts.record ?? [],
    ...(opts.requestTimeoutMs !== undefined ? { lineWaitMs: opts.requestTimeoutMs / 2 } : {}),
  });
  probe.progress(
    `probing the rate limit on ${probe.calls.endpoint} at up to ${probe.maxRps} req/s (at most ${probe.maxRequests} requests, ${probe.maxDurationMs / 1000} s)`,
  );
  return probe;
}

/**
 * What the drain leads to first: a window the service announces, tested at its announced edges; a
 * counter back in part at its announced reset; a long silent window sized by its first two edges:
 * the estimate when one of them told, else the drain's figures (and the silent window's recovery) to go on with.
 */
async function announcedOrLongWindow(probe: Probe, drained: StreamFindings) {
  // A long window the service announces is tested at its announced edges: seconds, not minutes.
  const advertised = await advertisedPhase(probe, (edge) => countedInWindowEndingAt(probe, edge));
  if (advertised.model)
    return {
      estimate: await identifiedWindow(probe, drained, advertised.model, advertised.evidence, advertised.notes),
    };
  if (advertised.tooLong)
    return {
      estimate: estimateOf(probe, drained, NOTHING_MEASURED, { verdict: 'unknown', notes: [] }, advertised.notes),
    };
  const drainSamples = probe.samples.filter((s) => s.phase === 'drain');
  const drain = drainFigures(drainSamples, probe.setupInDrain) ?? (await drainedFromIdle(probe, drainSamples));
  // Back at the announced reset, but in part: a counter weighing the drained window (go-chi/httprate
  // announces X-RateLimit-Reset), its ramp timed from the edge those pings found, in the window it opened.
  const ramped =
    drain && advertised.backInPart
      ? await rampFromEdge(probe, drain, advertised.backInPart.edge, advertised.backInPart.held)
      : undefined;
  if (ramped?.model)
    return { estimate: await identifiedWindow(probe, drained, ramped.model, ramped.evidence, advertised.notes) };
  // A long window that announces nothing is sized by its first two edges (probe/silent-window.ts).
  const silent = drain ? await silentWindowPhase(probe, drain) : undefined;
  if (silent?.long) {
    const { model, evidence, notes, precision } = silent.long;
    if (model)
      return {
        estimate: await identifiedWindow(probe, drained, model, evidence, notes, {
          ...(precision !== undefined ? { precision } : {}),
        }),
      };
    const figures = { ...NOTHING_MEASURED, limiter_evidence: evidence };
    return { estimate: estimateOf(probe, drained, figures, { verdict: 'unknown', notes: [] }, notes) };
  }
  return { drain, silent };
}

type AfterDrain = Exclude<Awaited<ReturnType<typeof announcedOrLongWindow>>, { estimate: Estimate }>;

/**
 * The recovery's shape (probe/recover.ts), and what it may tell at once: a bucket refilled by a
 * timer (its staircase), a silent counter (its ramp); the estimate when one of them did, else the
 * shape, confirmed by a second drain, for the window or the bucket path.
 */
async function recoveryShape(
  probe: Probe,
  drained: StreamFindings,
  { drain, silent }: AfterDrain,
): Promise<{ estimate: Estimate } | { shape: ShapeFindings | undefined }> {
  const firstShape = drain ? await shapePhase(probe, drain, null, silent?.recovery) : undefined;
  // Back in a clump smaller than the drain: a bucket refilled by a timer, read off its staircase.
  const afterFirst = firstShape ? await staircaseAfter(probe, drained, firstShape) : undefined;
  if (afterFirst && 'estimate' in afterFirst) return { estimate: afterFirst.estimate };
  // A silent counter whose edge came soon after the drain: its ramp, timed inside the window that
  // edge opened, before anything else sends (probe/counter-ramp.ts). Also after a staircase that
  // ran and saw no timer: across a network the recovery's pings, backing off, reach the edge late
  // and find a clump of its ramp freed at once (the silent 300 per 10 s counter, its edge 3–6.5 s
  // after the drain, 40 back at once); the staircase's clumps then fall in that window too. One that
  // announces its resets too, once its edge came late enough to be no short window's (a short one's
  // resets and the stream size it): httprate 200 per 10 s, its edge 1.5-5 s after the drain, ended
  // "not identified" in its 25 s (the edge trials after the stream need two idle windows).
  const ramp =
    afterFirst !== undefined && (!announcesReset(probe) || edgeCameLate(firstShape!))
      ? await rampAfterShape(probe, firstShape!)
      : undefined;
  if (ramp?.model)
    return {
      estimate: await identifiedWindow(probe, drained, ramp.model, [firstShape!.evidence, ...ramp.evidence], []),
    };
  const confirmed = afterFirst ? await confirmedShape(probe, afterFirst.shape) : undefined;
  // A first drain that looked like a bucket and a second that came back in a batch, or whole after
  // a short wait (the real Go bucket of four batches, twice in forty runs: its first drain's last
  // requests in flight took a tick's batch, and the misled edge walk read 150 or a sliding window):
  // the staircase then (again, if the first one fell back), the second drain not taken for one from idle.
  const afterSecond =
    confirmed && confirmed !== afterFirst?.shape
      ? await staircaseAfter(probe, drained, confirmed, firstShape)
      : undefined;
  if (afterSecond && 'estimate' in afterSecond) return { estimate: afterSecond.estimate };
  return { shape: afterSecond?.shape ?? confirmed };
}

/**
 * Whether a counter on the clock goes unsized, its window read by the stream: a silent one's is
 * the stream's only when whole seconds are near (a saturated counter admits in bursts at its edges,
 * and the stream read httprate 50 per 1 s as 1.03–1.24 s), and only off a stream good to 2 % (`loose`
 * otherwise: at 14 of 237 phases of httprate 50 per 1 s, 0.6–0.7 s of stream read 24.75 req/s,
 * ±3.4 %, "50 per 2 s", half the rate). One that announces its resets goes unsized when neither:
 * httprate 20 per 1 s across a network, its resets shown by answers in only every third window
 * (too few for the ticks), read 20 per 0.94 s off 6 acceptances in 0.24 s (±20 %), 6 % above its rate.
 */
const counterUnsized = (whole: boolean, loose: boolean, announcesResets: boolean): boolean =>
  announcesResets ? !whole && loose : !whole || loose;

/** Said when a limit that came back whole was sized by the stream after all: why it was not taken for a window. */
const NO_WINDOW_FOUND =
  'it came back whole as a window does, but no window was found, and every clump from idle was refused in part: sized by the stream instead';

/** A window (not a bucket) by its shape: its period or edges, sized by trials from idle or by the stream. */
async function windowPath(
  probe: Probe,
  drained: StreamFindings,
  streamSettings: StreamSettings,
  shape: ShapeFindings,
): Promise<Estimate> {
  const window = await windowPhase(probe, shape);
  const model = window.limiter;
  // Sized, but back before a period and some trials from idle refused in part: a counter's edges
  // and lingering weight (or HAProxy's period opened before the drain): the stream sizes it.
  const refuted = refusedAfterQuiet(model, window.refusedAfterQuietMs ?? 0);
  const doubted =
    model !== null && (((window.partClumps ?? 0) > 0 && backBeforePeriod(model, shape)) || refuted !== undefined);
  // A silent log the trials sized may be a counter whose edges they timed: checked at other phases.
  const phased =
    model?.kind === 'sliding-window' && !announcesReset(probe) ? await logPhaseCheck(probe, model) : undefined;
  const misread = phased?.holds === false;
  // Not checked at another phase, a log is not told from a silent counter's edges: not claimed.
  const unchecked = phased?.holds === null;
  if (phased) (misread || unchecked ? window.notes : window.evidence).push(phased.evidence);
  // Its trials' own reading is what the clump refuted: said beside the refutation, not as evidence.
  if (refuted) window.notes.push(refuted, ...window.evidence.splice(0));
  // The limit not seen (or nothing sized) from a limiter that shut too few times to read one: evidence.ts says what it saw.
  const fewShuts =
    window.limitUnseen || model === null ? tooFewRefusals('fixed-window', refusalsOf(probe.samples)) : null;
  if (fewShuts)
    return estimateOf(
      probe,
      drained,
      { ...NOTHING_MEASURED, limiter_evidence: [fewShuts] },
      { verdict: 'unknown', notes: [] },
      [fewShuts, ...window.notes],
    );
  if (
    (model === null || model.kind === 'bucket' || doubted || misread || unchecked) &&
    shape.shape === 'smooth-window' &&
    !probe.outOfBudget()
  ) {
    // The trials from idle did not agree (real HAProxy can let a request in before a period is
    // over after a busy start): size it by the stream instead, which keeps a smoothly sliding
    // window saturated at its rate, and read the period off the limit it let through from idle.
    return streamedSlidingWindow(
      probe,
      streamSettings,
      shape,
      window.notes,
      model?.kind === 'sliding-window' && !misread && !refuted && !unchecked
        ? { model, evidence: window.evidence }
        : undefined,
      misread,
    );
  }
  // Came back whole, as a window does, yet no window was found, and every clump from idle was refused
  // in part: what a bucket does across a network whose round trips bunch its refills (x/time/rate
  // NewLimiter(50, 10) behind toxiproxy, CI s38: 21 back after 460 ms, 14 clumps from idle refused
  // in part, not identified; virtual, 2 in 100 with the machine 10 ms late). The stream sizes it as
  // it sizes any limit of no known shape.
  // (A fixed window on a machine 20 ms late has some refused in part too, but not all, virtual seed
  // 76 of network-virtual.test.ts: the stream read it 0.7 % fast, where the search finds it below.)
  const noneWhole = (window.partClumps ?? 0) > 0 && window.wholeClumps === 0;
  if (model === null && shape.shape === 'resetting-window' && noneWhole && !probe.outOfBudget()) {
    const streamed = await bucketPath(probe, drained, streamSettings, undefined, undefined);
    return { ...streamed, notes: [...streamed.notes, NO_WINDOW_FOUND, ...window.notes] };
  }
  if (model === null || model.kind === 'bucket' || model.kind === 'queue' || misread || unchecked || refuted) {
    // Not identified, said so: the stage then searches its rate with paced k6 rounds (rate-bracket.ts).
    // Before, a fixed window whose edges the network blurred ended with no rate and no proof at all,
    // though every window had let its 50 through (toxiproxy, CI land11).
    const figures = { ...NOTHING_MEASURED, limiter_evidence: [shape.evidence, ...window.evidence] };
    // Came back whole after a drain this machine sent slowly: maybe a bucket near that pace (slow-sends.ts).
    const slow =
      shape.shape === 'resetting-window' ? slowSendsNote(rateBracket(probe.samples)?.high, probe.maxRps) : undefined;
    return estimateOf(probe, drained, figures, { verdict: 'unknown', notes: [] }, [
      `${NOT_IDENTIFIED}the limiter looks like a ${SHAPE_WORDS[shape.shape]} but its parameters were not pinned down${slow ? `: ${slow}` : ''}`,
      ...window.notes,
    ]);
  }
  // A fixed window on the clock may be a bucket refilled by a timer: more than its limit from idle.
  // Not testable behind a faster limit that cuts a burst short of the limit: a clump from idle then
  // passes what that limit lets through, whatever the one behind saved (a gateway's bucket of 50
  // before 200 per 10 s: 65, read as "no more than the 200: a window", after 24 s of waiting).
  const frontCut =
    shape.frontLimit && model.kind === 'fixed-window' && shape.drain.accepted < model.limit
      ? shape.drain.accepted
      : undefined;
  const batch =
    model.kind === 'fixed-window' && model.edges !== 'first-request' && frontCut === undefined
      ? await batchBucketPhase(probe, model, shape.drain)
      : undefined;
  if (batch?.neither) {
    const figures = { ...NOTHING_MEASURED, limiter_evidence: [shape.evidence, ...window.evidence, batch.neither] };
    return estimateOf(probe, drained, figures, { verdict: 'unknown', notes: [] }, [
      `not identified: ${batch.neither}`,
      ...window.notes,
    ]);
  }
  const evidence = [shape.evidence, ...window.evidence, ...(batch?.evidence ? [batch.evidence] : [])];
  // Behind a faster limit (recover.ts frontLimit) a burst from idle meets that one first: the burst
  // said is what the drain passed, not the window's count.
  const front = shape.frontLimit && !batch?.model ? shape.drain : undefined;
  const untold =
    model.kind === 'fixed-window' && model.edges !== 'first-request' && batch === undefined && !shape.batchTold;
  const notes = [
    ...window.notes,
    ...(front
      ? [
          `a burst meets a faster limit in front of the window first: ${front.accepted} passed from idle at ${probe.maxRps} req/s before its first refusal; that limit was not sized`,
        ]
      : []),
    ...(untold ? [batchUntold(model, frontCut)] : []),
  ];
  return identifiedWindow(probe, drained, batch?.model ?? model, evidence, notes, {
    ...(front ? { burst: front.accepted } : {}),
    ...(window.precision !== undefined ? { precision: window.precision } : {}),
  });
}

/**
 * The rate the recovery timed, 0 when none: its trickle's refills. A watch that passed everything
 * the machine could send knows the rate is at least that. Behind a queue the trickle timed its
 * waits, and its first drain's answers left at its rate (probe/queue-wait.ts): read again here,
 * not carried from the confirming drain's wait, as the pings sent since may show the limit
 * refilling slower than that pace (a worker behind it, not a queue, paced the drain).
 */
function rateBeforeStream(probe: Probe, shape: ShapeFindings | undefined, passedRps = 0): number {
  const trickleMs = shape?.figures.trickleMs ?? null;
  const queueMs = shape?.shape === 'bucket' ? queueIntervalOfDrain(probe.samples) : undefined;
  return Math.max(trickleMs !== null && trickleMs > 0 ? 1000 / trickleMs : 0, passedRps, queueMs ? 1000 / queueMs : 0);
}

/** A bucket (or a queue) by its shape, or no shape at all: the stream sizes its rate, the idle burst its capacity. */
async function bucketPath(
  probe: Probe,
  drained: StreamFindings,
  streamSettings: StreamSettings,
  drain: AfterDrain['drain'],
  shape: ShapeFindings | undefined,
): Promise<Estimate> {
  // The recovery phase timed the bucket's refills: the window can start without a pilot. Where
  // every timed ping passed, across a network, pings a round trip apart timed themselves, not the
  // limit (a silent counter whose drain straddled an edge trickled back at 14 req/s, read 5.3, and
  // the stream under that saw its rate rise at the next edge: not identified). Such a trickle is
  // first watched, saturated, until a bucket of the drain's size would have refilled twice, or its
  // rate rose at a counter's edge (probe/trickle-watch.ts). One it read as no counter goes on as
  // before: the lean window at the recovery's rate, raised until saturated (started at the watch's
  // rate instead, it read the emulator's bucket across toxiproxy to ±12 % once in three).
  const untimed =
    drain !== undefined &&
    shape?.shape === 'bucket' &&
    shape.figures.trickleMs !== null &&
    trickleTimedBy(shape) === 'round trips' &&
    !announcesReset(probe);
  const watched = untimed ? await trickleWatchPhase(probe, drain, 2000 / shape.figures.trickleMs!) : undefined;
  if (watched?.reading.model)
    return identifiedWindow(probe, drained, watched.reading.model, [shape!.evidence, watched.reading.evidence], []);
  // With the rate known, the window is lean (stream-reducer.ts): far fewer refusals, more acceptances.
  const knownRate = rateBeforeStream(probe, shape, watched?.passedRps);
  const stream = await streamPhase(probe, {
    ...streamSettings,
    ...(knownRate > 0 ? { knownRate, lean: true } : {}),
    // A bucket frees its capacity steadily: its rate's points timed by their refusals (estimators.ts segmentsOf).
    timedBy: shape?.shape === 'bucket' ? 'refusal' : 'acceptance',
  });
  const measured = stream.measured;
  if (!measured) return estimateOf(probe, stream, NOTHING_MEASURED, { verdict: 'unknown', notes: [] }, []);

  const { fit, sustained, recovery } = measured;
  // Read as a bucket by pings a round trip apart, a sliding-window counter that announces its
  // resets is told and timed by where they turn over (probe/reset-ticks.ts), before anything else.
  // Resets that do not time it may still show it shut from idle: no bucket at the stream's rate.
  const ticked =
    drain && announcesReset(probe) ? await resetTicksPhase(probe, drain.limit, sustained ?? undefined) : undefined;
  const toldByTicks = ticked && (await estimateFromTicks(probe, stream, ticked, shape ? [shape.evidence] : [], []));
  if (toldByTicks) return toldByTicks;
  // The recovery's pings go a round trip apart across a network: a counter shut until its next
  // edge can look like a bucket to them, never to the drain's tail, nor to any two refusals with
  // nothing let through between them (each placed by its own round trip: a stalled process's late
  // answers blind the drain's tail, read by the spread of them all).
  // Nor to what passed between refusals over the whole probe (probe/bucket-ledger.ts): a counter
  // whose drain straddled an edge trickles back like a bucket, then faster after its next edge.
  // Unless the answers' latency is what the stream timed: that verdict says why, not this one.
  const notBucketYet = (idle?: IdleBurstFindings): string | undefined =>
    sustained !== null
      ? (tailRulesOutBucket(probe.samples, sustained) ??
        refusalGapRulesOutBucket(probe.samples, sustained) ??
        (latencyBound(stream.latencyP95Ms, sustained, null, aloneLatencyP95(probe.samples) ?? undefined)
          ? undefined
          : (ledgerRulesOutBucket(probe.samples, sustained, fit?.precision) ??
            (idle && idle.burst !== null && !idle.fromIdle
              ? refillUnwatched(probe.samples, sustained, idle.burst)
              : undefined))))
      : undefined;
  const streamNotBucket = notBucketYet();
  // A window behind the limit the stream read (a gateway's bucket before an application's window):
  // filled until it shuts, it is read from its next comeback on the window path. Looked for at once
  // when the stream saw it shut and come back (a window of seconds): the window path times its own
  // burst, Retry-After and scope, and that comeback is an edge of its lattice (behind-front.ts).
  // Still shut when the stream ended (a minute's quota, say), it is looked for after them, as the
  // searches after such probes were tuned to the minute those phases leave.
  const early = streamNotBucket !== undefined && drain !== undefined && cameBackAfterLongShut(probe.samples);
  const behindNow = early ? await windowBehindFront(probe, drain, streamNotBucket) : undefined;
  if (behindNow && !('pastBudget' in behindNow)) return windowPath(probe, drained, streamSettings, behindNow);
  if (early) return notSized(probe, stream, shape, streamNotBucket, behindNow);
  const idle = await idleBurstPhase(probe, sustained, recovery, measured.drainBurst);
  const retryAfter = await retryAfterPhase(probe, recovery);
  const scope = await scopePhase(probe, idle.burst);
  // Read again with what the burst from idle added (a refusal seconds after the stream's, say).
  const notBucket = notBucketYet(idle);
  if (notBucket) {
    const behind = drain ? await windowBehindFront(probe, drain, notBucket) : undefined;
    if (behind && !('pastBudget' in behind)) return windowPath(probe, drained, streamSettings, behind);
    return notSized(probe, stream, shape, notBucket, behind);
  }
  // A rate read off a stream that ran out of time after a few acceptances is given, with its
  // precision, but no bucket is claimed from it (across a busy network, a silent counter whose
  // trickle was watched to the cap share read as a bucket 12 % fast off 3 acceptances that way).
  const unsized = fit !== null && fit.precision > BUCKET_PRECISION;
  // A bucket whose acceptances from idle waited their turn is a queue (probe/queue-wait.ts), unless
  // they came back slower than its rate: a slower service's line (probe/served-behind.ts).
  const queue =
    sustained !== null && idle.burst !== null && !unsized && servedBehindOf(probe.samples, sustained) === undefined
      ? queueOfBursts(probe.samples, sustained, idle.burst)
      : undefined;
  const limiter: LimiterModel | null =
    queue?.model ??
    (sustained !== null && idle.burst !== null && !unsized
      ? { kind: 'bucket', rate_rps: round(sustained, 2), burst: idle.burst }
      : null);
  // A loose reading that does not stand is no figure: the stage searches for the rate instead.
  const rate = unsized && !unsizedRateStands(fit) ? null : sustained;
  const figures: Figures = {
    sustained_rps: rate === null ? null : round(rate, 2),
    sustained_precision: rate === null || fit === null ? null : round(fit.precision, 4),
    burst: idle.burst,
    burst_from_idle: idle.fromIdle,
    ...(idle.passed !== null ? { burst_passed: idle.passed } : {}),
    recovery_s: recovery === null ? null : round(recovery, 3),
    refill_s: idle.burst !== null && rate !== null && rate > 0 ? round(idle.burst / rate, 2) : null,
    scope: scope.scope,
    limiter,
    limiter_evidence: [...(shape ? [shape.evidence] : []), ...(queue ? [queue.evidence] : [])],
  };
  const identified = limiter ? [`identified: ${describeLimiter(limiter)}`] : unsized ? [unsizedBucketNote(fit)] : [];
  return estimateOf(probe, stream, figures, retryAfter, [
    ...identified,
    ...idle.notes,
    ...retryAfter.notes,
    ...scope.notes,
  ]);
}

/**
 * No bucket after all (`notBucket`: why), and no window sized behind it: not identified, said with
 * why. Shut to the cap, a window past the budget is the likeliest cause, said with how to size one;
 * shut past what the budget could size (`behind`), the probe ended there (behind-front.ts).
 */
function notSized(
  probe: Probe,
  stream: StreamFindings,
  shape: ShapeFindings | undefined,
  notBucket: string,
  behind: { pastBudget: string } | undefined,
): Estimate {
  const note = behind
    ? `not identified: ${behind.pastBudget}`
    : `not identified: ${notBucket}; not sized${neverLifted(probe)}`;
  const figures = { ...NOTHING_MEASURED, limiter_evidence: [...(shape ? [shape.evidence] : []), note] };
  return estimateOf(probe, stream, figures, { verdict: 'unknown', notes: [] }, [note]);
}

/**
 * The staircase (probe/batch-staircase.ts) when `shape` came back in a batch: the estimate when it
 * told a bucket refilled by a timer (or saw one it could not size), else the shape to go on with
 * (a window's edge walk from the last edge it timed).
 */
async function staircaseAfter(
  probe: Probe,
  drained: StreamFindings,
  shape: ShapeFindings,
  earlier?: ShapeFindings,
): Promise<{ estimate: Estimate } | { shape: ShapeFindings; ran: boolean }> {
  const drainFromIdle = earlier === undefined;
  const batch = cameBackInBatch(shape) || (!drainFromIdle && shape.shape === 'resetting-window');
  if (!batch) return { shape, ran: false };
  const stairs = await staircasePhase(probe, shape, drainFromIdle, earlier);
  const evidence = [shape.evidence, stairs.evidence];
  if (stairs.model) return { estimate: await identifiedWindow(probe, drained, stairs.model, evidence, []) };
  if (stairs.sawStairs) {
    // Its rate stands without its kind: a batch a tick, pinned by the ticks (batch-staircase.ts `rate`).
    const rate = stairs.rate && {
      sustained_rps: round(stairs.rate.rps, 2),
      sustained_precision: round(stairs.rate.precision, 4),
    };
    const said = rate
      ? [
          `sustained ${rate.sustained_rps} req/s (±${round(100 * rate.sustained_precision, 1)} %), a batch each timer tick: the limiter's kind and burst not identified`,
        ]
      : [];
    return {
      estimate: estimateOf(
        probe,
        drained,
        { ...NOTHING_MEASURED, ...rate, limiter_evidence: evidence },
        { verdict: 'unknown', notes: [] },
        [`not identified: ${stairs.evidence}`, ...said],
      ),
    };
  }
  // Ruled out before it sent anything: the shape goes on as it was, with the reason.
  if (!stairs.ran) return { shape: { ...shape, evidence: `${shape.evidence}; ${stairs.evidence}` }, ran: false };
  // A window's edge walk goes on from the last edge the staircase timed, not the first.
  // What the staircase saw joins the evidence the window path goes on with.
  const told = {
    ...shape,
    evidence: `${shape.evidence}; no timer's staircase: ${stairs.evidence}`,
    ...(stairs.periodMs ? { batchTold: true as const } : {}),
  };
  // The ticks told a fixed window on the clock (one batch back every period, none between, the
  // drain no more than a batch a tick): a resetting window whatever the shape phase made of its
  // pings. A drain that straddled an edge late shut for most of a period after it, then admitted
  // the pings one by one, which the shape read as a window sliding (fixed 30 per 1 s, its edge
  // 0.12-0.14 s into the drain: "not identified" after 140 s of trials timing a slide).
  const resumed =
    (shape.shape === 'resetting-window' || stairs.periodMs) && stairs.latest
      ? {
          ...told,
          shape: 'resetting-window' as const,
          recovery: stairs.latest,
          ...(stairs.periodMs ? { tickPeriodMs: stairs.periodMs } : {}),
        }
      : told;
  return { shape: resumed, ran: true };
}

/**
 * What the announced resets told (probe/reset-ticks.ts): the counter they sized, or not identified
 * once they showed it is none of the kinds the usual phases would read; undefined: the usual phases go on.
 */
async function estimateFromTicks(
  probe: Probe,
  stream: StreamFindings,
  ticked: TicksFindings,
  evidence: string[],
  windowNotes: string[],
): Promise<Estimate | undefined> {
  if (ticked.model)
    return identifiedWindow(probe, stream, ticked.model, [...evidence, ...ticked.evidence], windowNotes);
  if (!ticked.shown) return undefined;
  const figures = { ...NOTHING_MEASURED, limiter_evidence: [...evidence, ...ticked.evidence] };
  return estimateOf(probe, stream, figures, { verdict: 'unknown', notes: [] }, [...windowNotes, ...ticked.evidence]);
}

/** A window whose kind and parameters are known: Retry-After and the scope, then the estimate. */
async function identifiedWindow(
  probe: Probe,
  drained: StreamFindings,
  model: WindowModel | BatchBucketModel,
  evidence: string[],
  windowNotes: string[],
  { burst, precision }: { burst?: number; precision?: number } = {},
): Promise<Estimate> {
  const batch = model.kind === 'bucket';
  const retryAfter = await retryAfterPhase(probe, batch ? model.fill_interval_s : windowLengthS(model));
  const scope = await scopePhase(probe, batch ? model.burst : model.limit);
  const figures: Figures = {
    ...(batch ? batchFigures(model) : windowFigures(model, precision)),
    ...(burst !== undefined ? { burst } : {}),
    scope: scope.scope,
    limiter: model,
    limiter_evidence: evidence,
  };
  return estimateOf(probe, drained, figures, retryAfter, [
    `identified: ${describeLimiter(model)}`,
    ...windowNotes,
    ...retryAfter.notes,
    ...scope.notes,
  ]);
}

/**
 * Windows on the clock (a sliding-window counter), looked for by edge trials from idle, or where the
 * announced resets turn: when the stream's period and the first comeback disagree, or a log's
 * phases were doubted. Back sooner than a period: a counter's edge came first (or refusals counted).
 * Back more than a period and a half after the drain: a counter's comeback after a drain whose
 * window the one before weighed can be two windows late (httprate 200 per 10 s through toxiproxy in
 * a busy precise phase: back 18.15 s after the drain began, the stream's period 10.03 s, and it was
 * said to count refused requests, which httprate does not); only a counter found counts there. A service
 * that announces its resets is checked even when the stream agrees: a counter's first comeback
 * falls anywhere up to a window after the drain, so agreeing with it proves nothing.
 */
async function counterOnTheClock(
  probe: Probe,
  shape: ShapeFindings,
  o: {
    limit: number;
    periodS: number;
    firstComebackS: number;
    agrees: boolean;
    confirmed: boolean;
    clockSuspected: boolean;
  },
): Promise<CounterEdgeFindings | undefined> {
  const { limit, periodS, firstComebackS } = o;
  const doubted =
    (!o.agrees && !o.confirmed && periodS > 1.05 * firstComebackS) ||
    (o.clockSuspected && periodS >= firstComebackS / 1.5);
  const late = !o.agrees && !o.confirmed && periodS < firstComebackS / 1.5;
  if (!doubted && !late) return undefined;
  const found =
    (await counterEdgePhase(probe, { limit, windowMs: periodS * 1000 })) ??
    (announcesReset(probe) ? announcedCounter(probe, shape, periodS * 1000, limit) : undefined);
  if (doubted) return found;
  // Back that late, the window that ended at the comeback was not the drain's: what it held is not the limit.
  return found?.counter ? { ...found, limit: undefined } : undefined;
}

/** A bucket refilled in batches, read off its ticks (a fixed window's edges) and its burst from idle. */
function batchFigures(model: BatchBucketModel) {
  return {
    sustained_rps: model.rate_rps,
    // The ticks are a fixed window's edges, pinned to ±1 %; the batch is counted exactly.
    sustained_precision: EDGE_PRECISION,
    burst: model.burst,
    burst_from_idle: true,
    // Nothing comes back before the next tick; refilling it all takes a tick per batch (refillOf).
    recovery_s: model.fill_interval_s,
    refill_s: round(refillOf(model)!, 2),
  };
}

/** When the first drain admitted nothing (the set-up requests used up a small limit), a second one from idle. */
async function drainedFromIdle(probe: Probe, drainSamples: readonly Sample[]) {
  const refusal = drainSamples.find((s) => s.answer === 'limited');
  return refusal && !drainSamples.some((s) => s.answer === 'accepted') ? drainAgainFromIdle(probe, refusal) : undefined;
}

/**
 * Why a limit back sooner than the stream's period is not sized. A bucket does that too: when the
 * service takes requests slower than they are sent its clumps pass as many as the drain did
 * (refilled meanwhile), so it came back whole, as a window does (CI ci-39a: the emulator's 30/s,
 * burst 30, read 51 per 1.69 s: 51 passed by the drain, 30.2 req/s by its stream). A drain the
 * service visibly did not keep up with is drained again slower first (probe/outrun.ts).
 */
const BACK_BEFORE_PERIOD =
  'sooner than a window of that period lets anything back: refused requests may count against the client (the stream kept it shut), or it refills as a bucket does, whose clumps, sent slowly, passed as many as the drain; not told apart';

/** A smooth sliding window sized by the stream: the rate from the stream, the limit from the drain, the period their ratio. */
async function streamedSlidingWindow(
  probe: Probe,
  streamSettings: { windowAccepts: number; minWindowMs: number },
  shape: ShapeFindings,
  windowNotes: string[],
  trials?: { model: WindowModel; evidence: string[] },
  clockSuspected = false,
): Promise<Estimate> {
  const limit = shape.drain.limit;
  // The period must agree with the first recovery (the limit came back about a period after the
  // drain began): a stream that kept a limiter counting refusals shut reads far too slow a rate.
  const firstComebackS = (shape.recovery.accepted.sentMs - shape.drain.firstMs) / 1000;
  // Bounded in refusals: if refused requests count, the stream keeps the window shut. Never lean
  // (the bucket's window a few % over its rate): a counter saturated that gently admits in bursts
  // at its edges, off the line a lean window fits (httprate 100 per 10 s read 37 % low).
  const stream = await streamPhase(probe, { ...streamSettings, maxRefused: Math.max(30, 2 * limit) });
  const sustained = stream.measured?.sustained ?? null;
  const periodS = sustained !== null && sustained > 0 ? limit / sustained : null;
  // At most that (later if pings meanwhile counted), and at least two thirds of it (the ping that
  // found the comeback was at most a third late).
  const agrees = periodS !== null && periodS >= firstComebackS / 1.5 && periodS <= 1.05 * firstComebackS;
  // A period the trials sized and the stream confirms (within 5 %) needs no edge trial.
  const confirmed =
    trials !== undefined && periodS !== null && Math.abs(periodS / windowLengthS(trials.model) - 1) <= 0.05;
  const counter =
    periodS !== null
      ? await counterOnTheClock(probe, shape, { limit, periodS, firstComebackS, agrees, confirmed, clockSuspected })
      : undefined;
  // Not a counter: what the period trials sized stands, as before they were doubted.
  if (trials && (confirmed || (counter && !counter.counter)))
    return identifiedWindow(
      probe,
      stream,
      trials.model,
      [shape.evidence, ...trials.evidence, ...(counter ? [counter.evidence] : [])],
      windowNotes,
    );
  if (periodS !== null && !agrees && !counter?.counter)
    windowNotes.push(
      `the stream read ${round(sustained!, 2)} req/s, a period of ${round(periodS, 2)} s, but the limit came back ${round(firstComebackS, 2)} s after the drain began: ${
        periodS < firstComebackS / 1.5
          ? `more than a period and a half, as a sliding-window counter's can (its drain's window weighed by the one before, up to two windows), or a limiter's that counts the refused pings; its windows on the clock not found, so neither is told`
          : BACK_BEFORE_PERIOD
      }; not sized`,
    );
  // One that announces its resets, its window not near whole seconds by the stream (httprate 20 per
  // 1 s across a network read 0.93–1.13 s): timed by where they turn over (probe/reset-ticks.ts).
  const ticked =
    counter?.counter === true && !counter.whole && announcesReset(probe)
      ? await resetTicksPhase(probe, limit)
      : undefined;
  // Only a window they timed replaces the stream's; not timed, the stream's reading stands as before
  // (httprate 75 per 1.5 s, its resets stepping by 1 and 2 s, read within 2 % there at some phases).
  const toldByTicks =
    ticked &&
    (await estimateFromTicks(
      probe,
      stream,
      { ...ticked, shown: false },
      [shape.evidence, counter!.evidence],
      windowNotes,
    ));
  if (toldByTicks) return toldByTicks;
  const fit = stream.measured?.fit;
  const loose = fit !== null && fit !== undefined && fit.precision > 0.02;
  const unsized = counter?.counter === true && counterUnsized(counter.whole, loose, announcesReset(probe));
  if (unsized)
    windowNotes.push(
      `not identified: windows on the clock (a sliding-window counter), but the stream read its window as ${round(counter.windowS, 3)} s${counter.whole ? '' : ', not within 1 % of whole seconds'}${loose ? `, off ${fit.accepted} accepted requests (good to ±${round(fit.precision * 100, 1)} % only)` : ''}, and nothing else timed it; not sized`,
    );
  const model: WindowModel | null = unsized
    ? null
    : counter?.counter
      ? {
          kind: 'sliding-counter',
          limit: counter.limit ?? counterLimit(probe, limit),
          window_s: round(counter.windowS, 3),
          phase_s: counter.phaseS,
          counts_refused: false,
        }
      : agrees
        ? { kind: 'sliding-window', limit, period_s: round(periodS, 3), counts_refused: false }
        : null;
  const retryAfter = await retryAfterPhase(probe, model ? windowLengthS(model) : null);
  const scope = await scopePhase(probe, limit);
  const figures: Figures = model
    ? {
        ...windowFigures(model),
        // A counter's window taken as whole seconds is its figure; the stream's rate reads up to
        // 1 / (limit − 1) low beside it (wholeSecondsNear), and more after the phase check's clumps.
        sustained_rps: round(model.kind === 'sliding-counter' ? sustainedRate(model) : sustained!, 2),
        sustained_precision: stream.measured?.fit
          ? round(streamPrecision(stream.measured.fit, usualGapNoiseMs(probe.samples)), 4)
          : null,
        scope: scope.scope,
        limiter: model,
        limiter_evidence: [
          shape.evidence,
          `a stream just over the limit was admitted at ${round(sustained!, 2)} req/s: ${limit} per ${round(limit / sustained!, 3)} s (refused requests did not keep it shut, so they do not count)`,
          ...(counter ? [counter.evidence] : []),
          ...(counter?.limit === undefined ? straddledEvidence(limit, model.limit) : []),
        ],
      }
    : { ...NOTHING_MEASURED, scope: scope.scope, limiter_evidence: [shape.evidence] };
  // Nothing sized is said "not identified", so that the stage searches the rate with k6 rounds.
  const unidentified =
    model || windowNotes.some((n) => n.startsWith(NOT_IDENTIFIED))
      ? []
      : [`${NOT_IDENTIFIED}a window sliding by its shape, but neither the trials from idle nor the stream sized it`];
  return estimateOf(probe, stream, figures, retryAfter, [
    ...unidentified,
    ...(model ? [`identified: ${describeLimiter(model)}`] : []),
    ...windowNotes,
    ...retryAfter.notes,
    ...scope.notes,
  ]);
}

/**
 * Why the sliding window the period trials sized is refuted by one of their own clumps, or
 * undefined: a clump of its limit refused in part after two of its periods of quiet, which no
 * sliding window of that limit and period does. A fixed window whose edge trial could not run (a
 * machine too busy to send the limit before the clock's edge), measured from idle: clumps that
 * straddle its edges pass whole, others are refused in part whatever the quiet, and the
 * bisection pins a period of nothing (virtually, 52 per 0.924 s for 50 per 1 s, up to 20 ms late).
 */
export function refusedAfterQuiet(model: LimiterModel | null, quietMs: number): string | undefined {
  if (model?.kind !== 'sliding-window' || quietMs < 2 * model.period_s * 1000) return undefined;
  return `a clump of ${model.limit} from idle was refused in part after ${round(quietMs / 1000, 3)} s of quiet, two periods of the ${model.period_s} s the trials pinned or more: no sliding window of ${model.limit} per ${model.period_s} s refuses it; not sized`;
}

/**
 * The period trials sized a sliding window longer than the drained client took to come back: a
 * log (or HAProxy's counter, its period opened by the drain) frees nothing before a period after
 * the drain began, a sliding-window counter frees at its next edge on the clock, which fools the
 * trials (their clumps straddle an edge). The stream and the counter's edge trial tell.
 */
function backBeforePeriod(model: LimiterModel, shape: ShapeFindings): boolean {
  return (
    model.kind === 'sliding-window' &&
    model.period_s * 1000 > 1.05 * (shape.recovery.accepted.sentMs - shape.drain.firstMs)
  );
}

/** The recovery's shape in a note's words (a smooth window is one kind of sliding window to the user). */
const SHAPE_WORDS: Record<RecoveryShape, string> = {
  bucket: 'bucket',
  'resetting-window': 'resetting window',
  'smooth-window': 'sliding window',
};

/**
 * A service that says when its quota resets (X-RateLimit-Reset, RateLimit's t=): HAProxy's stick tables announce nothing, httprate and
 * most counters kept in Redis announce the end of their current window.
 */
const announcesReset = (probe: Probe): boolean => (probe.advertisements.last?.ad.resetS ?? null) !== null;

type Figures = Pick<
  Estimate,
  | 'sustained_rps'
  | 'sustained_precision'
  | 'burst'
  | 'burst_from_idle'
  | 'burst_passed'
  | 'recovery_s'
  | 'refill_s'
  | 'scope'
  | 'limiter'
  | 'limiter_evidence'
>;

/** What an estimate says when no refusal was ever seen. */
const NOTHING_MEASURED: Figures = {
  sustained_rps: null,
  sustained_precision: null,
  burst: null,
  burst_from_idle: false,
  recovery_s: null,
  refill_s: null,
  scope: 'unknown',
  limiter: null,
  limiter_evidence: [],
};

// An answer this slow is the service's, not a busy test machine's scheduling.
const SLOW_ANSWER_MS = 500;

/**
 * Why the figures are the answers' latency rather than the limit, or undefined. After the first
 * refusal the probe asks single questions, each after the answer to the last (ping.ts): when an
 * answer takes longer than the limit's interval between admissions, every interval it times is the
 * latency. The paced streams are unaffected (in-flight.ts), the identification is not. Only past
 * half a second and twice the interval: a busy machine's p95 of tens of ms against a quick limit
 * (50/s: 20 ms) is scheduling noise the phases were built to absorb, never a reason to give up.
 */
export function latencyBound(
  allP95Ms: number | null,
  sustainedRps: number | null,
  limiter?: LimiterModel | null,
  aloneP95Ms?: number,
): string | undefined {
  // The answers timed one after another were sent alone: their own latency is what bounds them, not
  // that of answers the probe's own concurrency queued (aloneLatencyP95).
  const latencyP95Ms = allP95Ms !== null && aloneP95Ms !== undefined ? Math.min(allP95Ms, aloneP95Ms) : allP95Ms;
  if (latencyP95Ms === null || sustainedRps === null || sustainedRps <= 0) return undefined;
  const intervalMs = 1000 / sustainedRps;
  // What a queue makes its acceptances wait is the limiter's own doing, not the answers' latency.
  const ownMs = limiter?.kind === 'queue' ? queueDelayMs(limiter) : 0;
  if (latencyP95Ms - ownMs < Math.max(2 * intervalMs, SLOW_ANSWER_MS)) return undefined;
  return `answers take ${round(latencyP95Ms / 1000, 2)} s (p95), longer than the ${round(intervalMs / 1000, 3)} s between the admissions measured, so the figures timed one answer after another are latency, not the limit; probe a quicker endpoint (rate_limit.endpoint: tokens.validate)`;
}

/**
 * A phase whose next step would wait past the cap ends the probe early (Probe.outOfTime): said as
 * such, not as the cap reached (a sliding-window counter 20 per 10 s under run's 30 s was said
 * "stopped at the probe's time cap (30 s)" after 11.7 s, 30 Nov).
 */
/** How the note of a probe stopped short of its cap begins (stoppedForTime). */
export const STOPPED_SHORT = 'stopped after ';
/** How the note of a probe that stopped on answers that never came (or never ended) begins. */
export const STOPPED_ON_ERRORS = `stopped after ${ERROR_STREAK} requests in a row got no valid answer`;

export function stoppedForTime(elapsedMs: number, maxDurationMs: number): string {
  const capS = maxDurationMs / 1000;
  // Within a second of the cap is the cap reached: a timer's lateness, an answer still on its way.
  return elapsedMs < maxDurationMs - 1000
    ? `${STOPPED_SHORT}${round(elapsedMs / 1000, 1)} s, short of the probe's time cap (${capS} s): its next step would have run past it; the estimate may be partial`
    : `stopped at the probe's time cap (${capS} s): the estimate may be partial`;
}

/** The Estimate: the phases' figures, plus what the probe as a whole saw, with its notes in the order the phases ran. */
function estimateOf(
  probe: Probe,
  stream: StreamFindings,
  claimed: Figures,
  retryAfter: RetryAfterFindings,
  claimedNotes: string[],
): Estimate {
  const { refusals, samples, stoppedBy, maxRequests, maxDurationMs } = probe;
  // Evidence before a claim (evidence.ts): whichever path read the figures, they stand only if the
  // limit shut often enough for that path's method.
  // And the claim as a whole (judge-claim.ts): replayed over every answer the probe saw, the model
  // must explain them, or it is not claimed (what contradicted it is said instead).
  const unsupported =
    claimed.sustained_rps !== null
      ? (tooFewRefusals(claimed.limiter?.kind ?? 'bucket', refusalsOf(samples)) ??
        (claimed.limiter ? (contradiction(claimed.limiter, samples) ?? null) : null))
      : null;
  const figures: Figures = unsupported
    ? { ...NOTHING_MEASURED, scope: claimed.scope, limiter_evidence: [unsupported] }
    : claimed;
  const phaseNotes = unsupported
    ? [unsupported, ...claimedNotes.filter((n) => !n.startsWith('identified: '))]
    : claimedNotes;
  const notes = [...stream.notes, ...phaseNotes, ...new Set(probe.asides.filter((a) => !phaseNotes.includes(a)))];
  const status = stream.limitingStatus;
  if (status !== null && status !== 429)
    notes.unshift(
      `non-conformant: §7 wants 429 for a rate limit; the limit answered ${status} (${refusals.statuses.get(status)} times)`,
    );
  if (probe.unauthorized > 0)
    notes.push(
      `${probe.unauthorized} answers were 401 (a token expiring mid-probe); they passed the limiter and count as accepted`,
    );
  if (stoppedBy === 'signal') notes.push('interrupted: the estimate is partial');
  // Spending the whole budget is the probe's failure to pin the limiter down, never a result.
  else if (stoppedBy === 'requests')
    notes.push(
      `probe defect: it spent all of rate_limit.max_requests (${maxRequests} requests) without pinning the limiter down (${spentByPhase(probe.samples)}); the estimate is partial`,
    );
  else if (stoppedBy === 'time') notes.push(stoppedForTime(probe.elapsed(), maxDurationMs));
  // A Retry-After past the wait budget (10^9 s) that ended the probe before its own phase said so: why nothing was waited out.
  const beyond =
    refusals.retryAfterMax === null ? undefined : beyondWaitBudget(refusals.retryAfterMax, probe.maxRetryAfterS);
  if (beyond && !notes.includes(`not tested: ${beyond}`)) notes.push(`not tested: ${beyond}`);
  else if (stoppedBy === 'budget') notes.push(`stopped at production's request budget: ${probe.lastError}`);
  else if (stoppedBy === 'errors') notes.push(`${STOPPED_ON_ERRORS} (last: ${probe.lastError.slice(0, 160)})`);
  // Little's law bound the stream: what max_rps would have found above that rate was not tested.
  if (probe.inFlightBound && refusals.statuses.size === 0)
    notes.push(
      `answers took about ${round(probe.latencyMs() / 1000, 2)} s: at most ${probe.maxInFlight} requests in flight offer about ${round(reachableRps(probe.maxInFlight, probe.latencyMs()), 1)} req/s, below max_rps (${probe.askedRps}); a limit above that rate was not tested`,
    );
  // Judged on what the probe read, before the evidence rule: latency-bound timings are the reason there is too little evidence.
  // A reading too loose to report (unsizedRateStands) still times the admissions against the answers.
  const read = claimed.sustained_rps ?? stream.measured?.sustained ?? null;
  const alone = aloneLatencyP95(samples) ?? undefined;
  const slow = latencyBound(stream.latencyP95Ms, read, claimed.limiter, alone);
  if (slow) notes.unshift(`not tested: ${slow}`);
  if (refusals.unreadableRetryAfter)
    notes.push(
      `${refusals.unreadableRetryAfter} refusals carried a Retry-After that is neither delay-seconds nor an HTTP-date: read as none (RFC 9110 §10.2.3; \`check\`'s ratelimit.retry-after judges it)`,
    );
  if (refusals.withoutRetryAfter > 0 && refusals.retryAfterMax !== null)
    notes.push(`${refusals.withoutRetryAfter} refusals carried no Retry-After while others did`);
  const headers =
    refusals.headers && retryAfter.reset ? { ...refusals.headers, reset: retryAfter.reset } : refusals.headers;
  // What the service announced, beside what was measured: tested at its edges (probe/advertised.ts), or compared now.
  const heard = probe.advertisements.last;
  const advertised = probe.advertised ?? (heard ? compareAdvertisement(heard.ad, figures.limiter) : undefined);
  const announced = announcedFindings(probe, advertised, figures.limiter);
  // A limit faster than the service behind it: what it admitted waited in line (probe/served-behind.ts).
  const behind = figures.sustained_rps !== null ? servedBehindOf(samples, figures.sustained_rps) : undefined;
  if (behind && figures.sustained_rps !== null) notes.push(servedBehindNote(behind, figures.sustained_rps));
  const { bracket, queued, busy } = bracketOf(probe, status, figures.sustained_rps === null && !slow);
  if (queued) notes.push(queuedPaceNote(queued));
  if (busy) notes.push(busy);
  const reach = status === null ? noLimitReach(probe) : undefined;
  return {
    ...probeTotals(probe),
    endpoint: probe.calls.endpoint,
    limiting_status: status,
    // Nothing refused: how far that was tested, the rate reached and over how long (never a bare "none").
    // Undefined when nothing was answered: "nothing measured", never a reach.
    ...(status === null && reach ? { no_limit_up_to: reach } : {}),
    latency_p95_ms: stream.latencyP95Ms,
    ...(alone !== undefined ? { latency_alone_p95_ms: alone } : {}),
    sustained_rps: figures.sustained_rps,
    sustained_precision: figures.sustained_precision,
    ...(behind ? { served_rps: behind.servedRps } : queued ? { served_rps: queued.servedRps } : {}),
    burst: figures.burst,
    burst_from_idle: figures.burst_from_idle,
    ...(figures.burst_passed !== undefined ? { burst_passed: figures.burst_passed } : {}),
    recovery_s: figures.recovery_s,
    refill_s: figures.refill_s,
    retry_after_header: retryAfter.verdict,
    scope: figures.scope,
    retry_after_max_s: refusals.retryAfterMax,
    ...(headers ? { ratelimit_headers: headers } : {}),
    ...(advertised ? { advertised } : {}),
    ...(announced ? { announced } : {}),
    limiter: figures.limiter,
    limiter_evidence: figures.limiter_evidence,
    ...(bracket ? { rate_bracket: bracket } : {}),
    notes,
    partial: stoppedBy !== undefined || slow !== undefined,
    ...((stoppedBy === 'time' || stoppedBy === 'requests') && slow === undefined ? { out_of_budget: stoppedBy } : {}),
  };
}

/**
 * Where paced proof rounds search for a rate (rate-bracket.ts): refused, yet no rate read (`unread`);
 * or nothing refused, yet answered at a steady pace in a line that grew (a limit that delays,
 * probe/queued-pace.ts), whose pace is then the estimate's `served_rps`.
 */
function bracketOf(probe: Probe, status: number | null, unread: boolean) {
  if (status !== null) return { bracket: unread ? rateBracket(probe.samples) : null };
  const drain = probe.samples.filter((s) => s.phase === 'drain');
  const queued = queuedPaceOf(drain, probe.askedRps);
  if (!queued) return { bracket: null };
  // The line may be this machine's own: then it is no evidence of the service's pace.
  const busy = ownBusy(probe.ownLoad);
  if (busy) return { bracket: null, busy: queuedPaceUnread(queued, busy) };
  return { bracket: queuedBracket(queued), queued };
}

/** Where a probe's requests went, most first ("window 2410, drain 310, …"): what a probe that spent its budget was doing. */
function spentByPhase(samples: readonly Sample[]): string {
  const by = new Map<string, number>();
  for (const s of samples) by.set(s.phase, (by.get(s.phase) ?? 0) + 1);
  return [...by.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([phase, n]) => `${phase} ${n}`)
    .join(', ');
}

/** What the probe as a whole sent and saw, up to now: set again after a phase that follows the estimate. */
function probeTotals(
  probe: Probe,
): Pick<Estimate, 'requests_sent' | 'requests_limited' | 'duration_s' | 'timeline' | 'replay_timeline'> {
  const timeline = probeTimeline(probe.samples);
  // A chart coarser than the fine slot is no replay's ground (EstimateWorkings.replay_timeline).
  const coarse = timeline.length > 1 && timeline[1]!.t - timeline[0]!.t > FINE_SLOT_MS / 1000;
  return {
    requests_sent: probe.sentSoFar(),
    requests_limited: probe.calls.overhead.limited + probe.samples.filter((s) => s.answer === 'limited').length,
    duration_s: round(probe.elapsed() / 1000, 2),
    timeline,
    ...(coarse ? { replay_timeline: probeTimeline(probe.samples, FINE_SLOT_MS) } : {}),
  };
}

/**
 * The estimate with every limit announced below the measured one verified in turn, the shortest
 * window first (probe/announced-stack.ts): each verified joins the set, whose sustained rate is the
 * lowest limit's, and the next is tried below that; one that cannot be is "announced, not proven"
 * with why, one that disagrees says what was seen (a recommendation stays within the rate of
 * either, recommend.ts). Then every announced limit still unproven is judged over the probe's whole
 * trace beside the set (judge-announced.ts). Unchanged when nothing lower was announced.
 */
async function withAnnouncedStack(probe: Probe, e: Estimate): Promise<Estimate> {
  if (e.partial || e.limiter === null || e.sustained_rps === null) return e;
  const refillS = e.refill_s ?? 1 / e.sustained_rps;
  const tried = new Set<string>();
  let current = e;
  // A set the detectors read already is judged beside the announcements, not streamed against.
  const first = (e.limiters?.length ?? 0) > 1 ? undefined : lowerAnnounced(probe, e.sustained_rps, tried);
  for (let heard = first; heard !== undefined && !current.partial;) {
    tried.add(announcedKey(heard.ad));
    current = await withAnnounced(probe, current, heard, refillS);
    heard = current.sustained_rps === null ? undefined : lowerAnnounced(probe, current.sustained_rps, tried);
  }
  return current.partial ? current : withAnnouncementsJudged(current, probe.samples, probe.startedEpochMs);
}

/** The estimate with `heard` verified beside its set (`refillS`: how long the measured limit takes to come back). */
async function withAnnounced(probe: Probe, e: Estimate, heard: Heard, refillS: number): Promise<Estimate> {
  const measured: LimiterSet =
    e.limiters && e.limiters.length > 1 ? [e.limiters[0]!, ...e.limiters.slice(1)] : [e.limiter!];
  const found = await verifyAnnouncedStack(probe, measured, refillS, heard);
  const sameLimit = (a: AdvertisedLimit) => a.limit === heard.ad.limit && a.window_s === heard.ad.windowS;
  const totals = probeTotals(probe);
  if (typeof found === 'string') {
    const interrupted = probe.signal?.aborted === true;
    const note = `announced, not proven: ${found}; a recommendation stays within its rate`;
    return {
      ...e,
      ...totals,
      ...(e.announced ? { announced: e.announced.map((a) => (sameLimit(a) ? { ...a, agrees: null, note } : a)) } : {}),
      notes: [...e.notes, interrupted ? 'interrupted: the estimate is partial' : `${heard.ad.source}: ${note}`],
      ...(interrupted ? { partial: true } : {}),
    };
  }
  const announced = (e.announced ?? []).map((a) => (sameLimit(a) ? found.finding : a));
  const advertised = e.advertised && sameLimit(e.advertised) ? found.finding : e.advertised;
  if (found.second === null)
    return {
      ...e,
      ...totals,
      ...(advertised ? { advertised } : {}),
      ...(announced.length > 0 ? { announced } : {}),
      notes: [...e.notes, found.evidence],
    };
  const set: LimiterSet = [...measured, found.second];
  // The set's note so far (a limit verified before this one) keeps its evidence beside this one's.
  const said = `identified: ${describeLimiter(measured)}`;
  const before = e.notes.find((n) => n.startsWith(`${said}, a set: `))?.slice(`${said}, a set: `.length);
  const binding = set.reduce((low, m) => (sustainedRate(m) < sustainedRate(low) ? m : low));
  return {
    ...e,
    ...totals,
    sustained_rps: round(sustainedRate(set), 2),
    // Counted to the request against a quota said in whole requests: the window's length is the announcement's.
    sustained_precision: binding === found.second ? 1 / found.second.limit : e.sustained_precision,
    limiter: binding,
    limiters: [...set],
    limiter_evidence: [...e.limiter_evidence, found.evidence],
    ...(advertised ? { advertised } : {}),
    ...(announced.length > 0 ? { announced } : {}),
    notes: [
      ...e.notes.filter((n) => !n.startsWith(said)),
      `identified: ${describeLimiter(set)}, a set: ${before === undefined ? '' : `${before}; `}${found.evidence}`,
    ],
  };
}
