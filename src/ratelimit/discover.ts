// Rate-limit discovery: measure a limit whose thresholds, window and scope the spec does not give
// (§8), politely and within bounds. No limiter type is assumed; every figure is read off answers.
//
// The probe, in order:
//  1. drain   – paced at max_rps until the first refusal (429, or a non-conformant 503…). What
//               passed before it is a first guess at the burst (the limit may not have been idle).
//  2. pilot   – still at max_rps (halved while refusals run long), until four acceptances right
//               after refusals: a rough rate r0.
//  3. window  – offered at 1.25 × r0 (above the limit, so it stays saturated, but with few
//               refusals) until ≥ 60 requests passed over ≥ 2 s with refusals all along: the
//               sustained rate as the slope through the acceptances that followed refusals, good
//               to about ±1 % (see estimators.ts). Recovery is read off the same window: the
//               longest wait from a refusal to the next acceptance. No refusal for long means the
//               offered rate fell below the limit: it is raised and the window starts again.
//  4. idle burst – wait until the limit must have refilled (twice the time the guessed burst needs at
//               the sustained rate), send at max_rps until the first refusal; repeat (waiting
//               longer while it grows) until two measurements agree, so it is measured from idle.
//  5. Retry-After – wait exactly what the burst's refusal said, retry once: truthful or not
//               (without it, the same for a reset announced by RateLimit headers).
//  6. scope   – when a second client is configured: drain the configured client's limit again,
//               and right then the second client sends a few requests: they pass on a
//               per-client limit and are refused on a shared one.
// Everything is bounded by max_rps, max_requests and a wall-clock cap, and an abort ends it with
// what is known so far (a partial estimate).

import type { Exchange } from '../http/service-client.js';
import { answerOf, mergeRateLimitHeaders, resetSeconds } from './answers.js';
import { retryAfterSeconds } from '../spec/retry-after.js';
import type { ProbeCalls } from './calls.js';
import { burstOf, percentile, recoveryOf, segmentsOf, sustainedRate, timelineOf, type BurstFit } from './estimators.js';
import { monotonicClock, pace, type Clock } from './pacing.js';
import type { Estimate, PhaseName, RateLimitHeaders, RetryAfterVerdict, Sample, Scope } from './types.js';

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
  /** When given, every sample is also pushed here (for tests and benchmarks that inspect the run). */
  record?: Sample[];
}

export const DISCOVER_DEFAULTS = {
  maxDurationS: 120,
  // 60 acceptances bound the pacing error of the rate to about 1/60 at worst (±1.7 %); at
  // 1.25 × the limit the window costs about 15 refusals for that.
  windowAccepts: 60,
  // At high limits 60 acceptances take a fraction of a second; 2 s smooths out a scheduling hiccup.
  minWindowS: 2,
  // The ServiceClient's connection pool: more in flight would queue in the client, not the service.
  maxInFlight: 16,
} as const;

/** Below this the probe does not slow down further: a limit slower than that needs a longer cap anyway. */
const MIN_RATE = 0.5;
/** Refusals in a row that make the probe halve its rate: it is far above the limit, or the limit resets rarely. */
const REFUSAL_STREAK = 8;
/** Refusals a window must have seen: each one is evidence the limit was saturated then. */
const MIN_WINDOW_REFUSALS = 10;
/** Saturated acceptances the pilot needs after the first refusal for a rough rate. */
const PILOT_POINTS = 4;
/** Transport errors in a row that end the probe: the target is gone, measuring further is pointless. */
const ERROR_STREAK = 20;
/** Rounds of "wait, burst again" before the burst is reported as not verified from idle. */
const IDLE_ROUNDS = 5;

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

export async function discover(opts: DiscoverOptions): Promise<Estimate> {
  const clock = opts.clock ?? monotonicClock();
  const { calls, maxRps, maxRequests, signal } = opts;
  const maxDurationMs = (opts.maxDurationS ?? DISCOVER_DEFAULTS.maxDurationS) * 1000;
  const windowAccepts = opts.windowAccepts ?? DISCOVER_DEFAULTS.windowAccepts;
  const minWindowMs = (opts.minWindowS ?? DISCOVER_DEFAULTS.minWindowS) * 1000;
  const maxInFlight = opts.maxInFlight ?? DISCOVER_DEFAULTS.maxInFlight;
  const progress = opts.progress ?? (() => {});
  const start = clock.now();
  const elapsed = () => clock.now() - start;

  const samples: Sample[] = opts.record ?? [];
  const notes: string[] = [];
  const limitedStatuses = new Map<number, number>();
  let dispatched = 0;
  let lastRefusal: Exchange | undefined;
  let lastRetryAfter: { exchange: Exchange; seconds: number } | undefined;
  let lastReset: { exchange: Exchange; seconds: number } | undefined;
  let retryAfterMax: number | null = null;
  let refusalsWithoutRetryAfter = 0;
  let headers: RateLimitHeaders | undefined;
  let unauthorized = 0;
  let errorStreak = 0;
  let lastError = '';
  let stoppedBy: 'signal' | 'requests' | 'time' | 'errors' | undefined;

  const sentSoFar = () => calls.overhead.sent + dispatched;
  // Send times of the requests still unanswered. Answers arrive out of order; a series is only
  // complete up to the oldest of these.
  const inFlight = new Map<number, number>();
  const completeUpTo = () => (inFlight.size === 0 ? Infinity : Math.min(...inFlight.values()));
  const outOfBudget = (): boolean => {
    if (stoppedBy) return true;
    if (signal?.aborted) stoppedBy = 'signal';
    else if (sentSoFar() >= maxRequests) stoppedBy = 'requests';
    else if (elapsed() >= maxDurationMs) stoppedBy = 'time';
    else if (errorStreak >= ERROR_STREAK) stoppedBy = 'errors';
    return stoppedBy !== undefined;
  };

  /** Sends one request and records it with what its answer said about the limit. Never throws. */
  async function send(phase: PhaseName, client: 'primary' | 'second' = 'primary'): Promise<Sample> {
    const id = dispatched++;
    const sentMs = elapsed();
    inFlight.set(id, sentMs);
    let exchange: Exchange | undefined;
    try {
      exchange = await (client === 'second' && calls.second ? calls.second() : calls.primary());
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
    } finally {
      inFlight.delete(id);
    }
    const status = exchange?.status ?? 0;
    const sample: Sample = { sentMs, doneMs: elapsed(), status, answer: answerOf(status), phase, client };
    samples.push(sample);
    errorStreak = sample.answer === 'error' ? errorStreak + 1 : 0;
    if (status === 401) unauthorized++;
    if (sample.answer === 'limited' && exchange) {
      limitedStatuses.set(status, (limitedStatuses.get(status) ?? 0) + 1);
      lastRefusal = exchange;
      headers = mergeRateLimitHeaders(headers, exchange.headers);
      const ra = retryAfterSeconds(exchange.headers['retry-after'], exchange.receivedAt);
      if (ra === undefined) refusalsWithoutRetryAfter++;
      else {
        lastRetryAfter = { exchange, seconds: ra };
        retryAfterMax = Math.max(retryAfterMax ?? 0, ra);
      }
      const reset = resetSeconds(exchange.headers, exchange.receivedAt);
      if (reset !== undefined) lastReset = { exchange, seconds: reset };
    }
    return sample;
  }

  // ---- 1–3: drain, pilot, window: one paced stream whose rate and stage change as answers arrive.
  type Stage = 'drain' | 'pilot' | 'window' | 'done';
  // Declared wide on purpose: the callbacks below move it, which the compiler cannot see.
  let stage = 'drain' as Stage;
  let rate = maxRps;
  let firstRefusal: Sample | undefined;
  let roughRate = 0;
  let windowStartMs: number | null = null;
  let windowAccepted = 0;
  let windowRefused = 0;
  let windowFirstMs = 0;
  let windowLastMs = 0;
  let refusalStreak = 0;
  // Send time of the latest refusal of the current stage: a long time without one means the
  // offered rate is below the limit.
  let lastRefusalMs = 0;
  // With no refusal after this many requests at max_rps, the probe concludes there is no limit it may find.
  const drainCap = Math.max(10, Math.floor(maxRequests * 0.6));

  /**
   * How long without a refusal proves the offered rate below the limit. At 1.25 × the limit a
   * refusal is due every 1 / (offered − limit) s; a stalled sender lets the limit save capacity it
   * then spends for about four times the stall. So: eight refusal intervals, and at least 2 s.
   */
  const quietLimitMs = () => Math.max(2_000, rate > roughRate && roughRate > 0 ? 8_000 / (rate - roughRate) : 0);

  // When the window (re)started; what the limit holds (the drain's burst, a guess); and whether the
  // window restarted because the offered rate was below the limit (which then saved capacity).
  let windowRestartMs = 0;
  let drainAccepted = 0;
  let savedCapacity = 0;
  let raised = false;

  const startWindow = () => {
    stage = 'window';
    windowRestartMs = elapsed();
    windowStartMs = null;
    windowAccepted = 0;
    windowRefused = 0;
    windowFirstMs = 0;
    windowLastMs = 0;
  };

  const onStreamAnswer = (s: Sample) => {
    // Answers arrive in completion order; the streak is only a politeness signal for the pilot.
    if (s.answer === 'limited') {
      refusalStreak++;
      lastRefusalMs = Math.max(lastRefusalMs, s.sentMs);
    } else if (s.answer === 'accepted') refusalStreak = 0;
    if (stage === 'drain' && s.answer === 'limited') {
      firstRefusal = s;
      stage = 'pilot';
      drainAccepted = samples.filter((x) => x.answer === 'accepted' && x.phase === 'drain').length;
      progress(`limit reached after ${drainAccepted} requests (answer ${s.status}); timing the refill`);
    } else if (stage === 'pilot' && s.answer === 'accepted' && firstRefusal && s.sentMs > firstRefusal.sentMs) {
      // A rough rate from the saturated points so far (see estimators.ts), over the part of the
      // series that is complete (answers arrive out of order): a missing acceptance would make
      // the limit look slower than it is.
      // Within one stall-free segment: a small limit loses what it frees while the sender stalls.
      const cutoff = completeUpTo();
      const segments = segmentsOf(samples.filter((x) => (x.phase === 'pilot' || x === firstRefusal) && x.sentMs < cutoff));
      const points = segments.reduce((a, b) => (b.length > a.length ? b : a), [] as Array<{ k: number; t: number }>);
      const first = points[0];
      const last = points[points.length - 1];
      if (points.length >= PILOT_POINTS && first && last && last.t > first.t) {
        roughRate = ((last.k - first.k) / (last.t - first.t)) * 1000;
        savedCapacity = burstOf(samples.filter((x) => x.phase === 'drain'), roughRate).capacity;
        // Above the limit so it stays saturated, but only by a quarter: few refusals per acceptance.
        rate = Math.min(maxRps, Math.max(roughRate * 1.25, roughRate + 1));
        startWindow();
        progress(`about ${round(roughRate, 1)} req/s; measuring the sustained rate at ${round(rate, 1)} req/s`);
      }
    } else if (stage === 'window' && s.phase === 'window') {
      // The window opens at its first refusal: only from there is the limit known to be saturated
      // (after a rate change it may hold capacity it saved while the offered rate was lower).
      if (windowStartMs === null && s.answer === 'limited') windowStartMs = s.sentMs;
      else if (windowStartMs !== null && s.sentMs > windowStartMs && s.answer === 'limited') windowRefused++;
      else if (windowStartMs !== null && s.sentMs > windowStartMs && s.answer === 'accepted') {
        windowAccepted++;
        if (windowFirstMs === 0 || s.sentMs < windowFirstMs) windowFirstMs = s.sentMs;
        windowLastMs = Math.max(windowLastMs, s.sentMs);
      }
    }
    // Politeness in the pilot: a long run of refusals means the rate is far above the limit; halve it.
    if (stage === 'pilot' && refusalStreak >= REFUSAL_STREAK) {
      rate = Math.max(MIN_RATE, rate / 2);
      refusalStreak = 0;
    }
    // No refusal for long (since the window opened, or since the pilot began): the offered rate is
    // below the limit, which then refills. Offer more, and start the window again: it must measure
    // a saturated limit.
    // A window not yet open first spends what the limit saved meanwhile (about the drain's count).
    const opening = stage === 'window' && windowStartMs === null;
    const quietSince = Math.max(lastRefusalMs, stage === 'window' ? (windowStartMs ?? windowRestartMs) : (firstRefusal?.sentMs ?? Infinity));
    const spending = opening && raised && rate > roughRate ? (savedCapacity * 1000) / (rate - roughRate) : 0;
    if ((stage === 'pilot' || stage === 'window') && s.answer === 'accepted' && s.sentMs - quietSince > quietLimitMs() + spending && rate < maxRps) {
      rate = Math.min(maxRps, rate * 1.5);
      if (stage === 'window') {
        startWindow();
        raised = true;
      }
    }
  };

  // Enough acceptances over enough time, and refusals all along (a window whose offered rate fell
  // below the limit has none, and is restarted at a higher rate instead: see quietLimitMs).
  const windowComplete = () => windowAccepted >= windowAccepts && windowLastMs - windowFirstMs >= minWindowMs && windowRefused >= MIN_WINDOW_REFUSALS;

  progress(`probing the rate limit on ${calls.endpoint} at up to ${maxRps} req/s (at most ${maxRequests} requests, ${maxDurationMs / 1000} s)`);
  const drainFrom = sentSoFar();
  await pace({
    clock,
    rate: () => rate,
    maxInFlight,
    signal,
    done: () => {
      if (outOfBudget()) return true;
      if (stage === 'drain' && sentSoFar() - drainFrom >= drainCap) return true;
      if (stage === 'window' && windowComplete()) stage = 'done';
      return stage === 'done';
    },
    send: async () => {
      const phase: PhaseName = stage === 'drain' ? 'drain' : stage === 'pilot' ? 'pilot' : 'window';
      onStreamAnswer(await send(phase));
    },
  });

  const limitingStatus = limitedStatuses.size === 0 ? null : limitedStatuses.has(429) ? 429 : [...limitedStatuses.entries()].sort((a, b) => b[1] - a[1])[0]![0];
  const acceptedLatency = samples.filter((s) => s.answer === 'accepted' && s.client === 'primary').map((s) => s.doneMs - s.sentMs);
  const base = {
    endpoint: calls.endpoint,
    limiting_status: limitingStatus,
    latency_p95_ms: ((p) => (p === null ? null : round(p, 1)))(percentile(acceptedLatency, 95)),
  };
  type Findings = Pick<Estimate, 'sustained_rps' | 'sustained_precision' | 'burst' | 'burst_from_idle' | 'recovery_s' | 'refill_s' | 'retry_after_header' | 'scope'>;
  const finish = (rest: Findings): Estimate => {
    if (limitingStatus !== null && limitingStatus !== 429) {
      notes.unshift(`non-conformant: §7 wants 429 for a rate limit; the limit answered ${limitingStatus} (${limitedStatuses.get(limitingStatus)} times)`);
    }
    if (unauthorized > 0) notes.push(`${unauthorized} answers were 401 (a token expiring mid-probe); they passed the limiter and count as accepted`);
    if (stoppedBy === 'signal') notes.push('interrupted: the estimate is partial');
    else if (stoppedBy === 'requests') notes.push(`stopped at rate_limit.max_requests (${maxRequests} requests): the estimate may be partial`);
    else if (stoppedBy === 'time') notes.push(`stopped at the probe's time cap (${maxDurationMs / 1000} s): the estimate may be partial`);
    else if (stoppedBy === 'errors') notes.push(`stopped after ${ERROR_STREAK} transport errors in a row (last: ${lastError.slice(0, 160)})`);
    if (refusalsWithoutRetryAfter > 0 && retryAfterMax !== null) notes.push(`${refusalsWithoutRetryAfter} refusals carried no Retry-After while others did`);
    return {
      ...base,
      ...rest,
      retry_after_max_s: retryAfterMax,
      ...(headers ? { ratelimit_headers: headers } : {}),
      requests_sent: sentSoFar(),
      requests_limited: calls.overhead.limited + samples.filter((s) => s.answer === 'limited').length,
      duration_s: round(elapsed() / 1000, 2),
      timeline: timelineOf(samples),
      notes,
      partial: stoppedBy !== undefined,
    };
  };

  if (firstRefusal === undefined) {
    if (stoppedBy === undefined) {
      const drained = samples.filter((s) => s.phase === 'drain');
      const okCount = drained.filter((s) => s.answer === 'accepted').length;
      notes.push(
        `no limit observed: ${okCount} of ${drained.length} requests at up to ${maxRps} req/s passed over ${round(elapsed() / 1000, 1)} s, ` +
          `without a single refusal (rate_limit.max_rps ${maxRps}, max_requests ${maxRequests}); §8 says a limit exists`,
      );
    }
    return finish({
      sustained_rps: null,
      sustained_precision: null,
      burst: null,
      burst_from_idle: false,
      recovery_s: null,
      refill_s: null,
      retry_after_header: 'unknown',
      scope: 'unknown',
    });
  }

  // The sustained rate: from the window when it completed, else from everything saturated so far.
  const saturated = samples.filter((s) => (s.phase === 'pilot' || s.phase === 'window') && s.client === 'primary' && s.sentMs >= firstRefusal!.sentMs);
  const windowSamples = samples.filter((s) => s.phase === 'window' && windowStartMs !== null && s.sentMs >= windowStartMs);
  const fit = (stage === 'done' ? sustainedRate(windowSamples) : null) ?? sustainedRate(saturated);
  const sustained = fit === null ? null : fit.rps;
  if (fit?.clumpy) notes.push(`requests passed in clumps (a fixed window?): the sustained rate is accepted requests over the ${round(fit.spanS, 1)} s window`);
  if (fit !== null && fit.precision > 0.02) notes.push(`the sustained rate rests on ${fit.accepted} accepted requests over ${round(fit.spanS, 1)} s: good to ±${round(fit.precision * 100, 1)} % only`);
  const recovery = recoveryOf(saturated);
  const drainBurst = burstOf(
    samples.filter((s) => s.phase === 'drain'),
    sustained,
  );

  /** Sends at max_rps until the first refusal (or `cap` requests): the samples of that run. */
  const burstRun = async (phase: PhaseName, cap: number): Promise<Sample[]> => {
    const run: Sample[] = [];
    let refused = false;
    await pace({
      clock,
      rate: () => maxRps,
      maxInFlight,
      signal,
      done: () => refused || run.length >= cap || outOfBudget(),
      send: async () => {
        const s = await send(phase);
        run.push(s);
        if (s.answer === 'limited') refused = true;
      },
    });
    return run;
  };

  // ---- 4: the burst from idle, measured until two rounds agree (a stalled sender or a limit
  // that had not refilled shows up as a round that disagrees, and is measured again).
  let burstFit: BurstFit = drainBurst;
  let fromIdle = false;
  if (sustained !== null && sustained > 0) {
    // The drain is the first reference: when it started from idle, one round confirms it.
    let previous = drainBurst.limited ? drainBurst.capacity : undefined;
    let guess = Math.max(1, drainBurst.capacity);
    const measured: number[] = [];
    for (let roundNo = 0; roundNo < IDLE_ROUNDS && !outOfBudget(); roundNo++) {
      // Twice what a limit of `guess` needs to refill at the sustained rate, and never less than
      // two recoveries: long enough to be idle, short enough to keep the probe brief.
      const waitMs = Math.max((2 * guess * 1000) / sustained, 2 * (recovery ?? 0) * 1000, 200);
      const burstMs = ((3 * guess + 20) * 1000) / maxRps;
      if (elapsed() + waitMs + burstMs > maxDurationMs) {
        notes.push(`no time left to wait ${round(waitMs / 1000, 1)} s for a full refill; the burst was not measured from idle`);
        break;
      }
      progress(`waiting ${round(waitMs / 1000, 1)} s for the limit to refill, then measuring the burst from idle`);
      await clock.sleep(waitMs, signal);
      if (signal?.aborted) break;
      const fit = burstOf(await burstRun('idle-burst', Math.max(50, 3 * guess + 20)), sustained);
      burstFit = fit;
      if (!fit.limited) {
        // Nothing refused within the cap: the limit holds more than guessed; wait longer.
        guess = Math.max(guess + 1, fit.raw);
        previous = undefined;
        continue;
      }
      measured.push(fit.capacity);
      if (previous !== undefined && Math.abs(fit.capacity - previous) <= 0.15 * Math.max(fit.capacity, previous) + 1) {
        fromIdle = true;
        break;
      }
      previous = fit.capacity;
      guess = Math.max(guess, fit.capacity);
    }
    if (!fromIdle && !stoppedBy && measured.length > 0) notes.push(`the burst differed from round to round (${measured.join(', ')}); reported as measured last`);
  }
  const burst = burstFit.raw > 0 || burstFit.limited ? burstFit.capacity : null;
  if (burst !== null) {
    notes.push(
      `burst: ${burstFit.raw} requests passed back-to-back at ${maxRps} req/s${fromIdle ? ' from idle' : ''}; ` +
        `${burst} after taking away what the limit refilled meanwhile`,
    );
  }

  // ---- 5: Retry-After (or, without it, a RateLimit reset): wait exactly what it said, then retry
  // once. The refusal that ended the last burst is the one judged: fresh, and nothing else is sent
  // while waiting.
  /** Waits what `said` announced after its answer, then retries once; undefined when it could not. */
  const waitAndRetry = async (header: string, said: { exchange: Exchange; seconds: number }): Promise<Sample | undefined> => {
    const { exchange, seconds } = said;
    const waitMs = exchange.receivedAt + seconds * 1000 - Date.now();
    if (waitMs < 0) notes.push(`${header} (${seconds} s) had already passed when the probe could test it; not judged`);
    else if (elapsed() + waitMs > maxDurationMs) notes.push(`${header} (${seconds} s) is longer than the probe's time left; not judged`);
    else {
      progress(`waiting ${round(seconds, 2)} s as ${header} says, then retrying once`);
      await clock.sleep(waitMs, signal);
      if (!signal?.aborted) return send('retry-after');
    }
    return undefined;
  };
  let retryAfter: RetryAfterVerdict = retryAfterMax === null ? (lastRefusal ? 'absent' : 'unknown') : 'unknown';
  if (lastRetryAfter && !outOfBudget()) {
    const retry = await waitAndRetry('Retry-After', lastRetryAfter);
    const seconds = lastRetryAfter.seconds;
    if (retry?.answer === 'accepted') {
      retryAfter = 'truthful';
      if (recovery !== null && seconds > recovery + 1) {
        notes.push(`Retry-After (${seconds} s) is truthful but generous: a request passed ${round(recovery, 2)} s after a refusal`);
      }
    } else if (retry?.answer === 'limited') {
      retryAfter = 'untruthful';
      notes.push(`Retry-After said ${seconds} s; after waiting exactly that, the retry was refused again (${retry.status})`);
    }
  } else if (lastReset && headers && !outOfBudget()) {
    const retry = await waitAndRetry('the RateLimit reset', lastReset);
    if (retry?.answer === 'accepted' || retry?.answer === 'limited') {
      headers.reset = retry.answer === 'accepted' ? 'truthful' : 'untruthful';
      notes.push(
        `no Retry-After, but RateLimit headers (${headers.names.join(', ')}) announce a reset in ${lastReset.seconds} s: ` +
          (retry.answer === 'accepted' ? 'after waiting that, the retry passed' : `after waiting that, the retry was refused again (${retry.status})`),
      );
    }
  }
  if (headers && !headers.reset) notes.push(`RateLimit headers on refusals: ${headers.names.join(', ')}`);

  // ---- 6: scope, when a second client is configured: drain the configured client's limit once
  // more, and right then let the second client send a few requests.
  let scope: Scope = 'unknown';
  if (!calls.second) {
    notes.push(calls.secondProblem ? `scope not measured: ${calls.secondProblem}` : 'scope not measured: configure rate_limit.second_client to tell a per-client limit from a shared one');
  } else if (!outOfBudget()) {
    const drained = await burstRun('scope', Math.max(50, 3 * (burst ?? 1) + 20));
    if (!drained.some((x) => x.answer === 'limited')) notes.push('scope not measured: the configured client could not be limited again');
    else {
      // As many as the second client's own limit surely admits (the same size, if it has its
      // own), sent at max_rps: a shared limit, drained a moment ago and refilling slower than
      // max_rps, cannot let them all through.
      const tries = Math.min(3, Math.max(1, burst ?? 1));
      let passed = 0;
      let refused = false;
      for (let i = 0; i < tries && !refused && !outOfBudget(); i++) {
        if (i > 0) await clock.sleep(Math.ceil(1000 / maxRps), signal);
        const s = await send('scope', 'second');
        if (s.answer === 'accepted') passed++;
        else if (s.answer === 'limited') refused = true;
      }
      if (refused) scope = 'shared';
      else if (passed === tries) scope = 'per-client';
      notes.push(
        scope === 'unknown'
          ? 'scope not settled: the second client got no clear answer'
          : `scope ${scope}: right after the configured client was limited, the second client's ${refused ? `request ${passed + 1} was refused` : `${tries} requests passed`}` +
              (scope === 'per-client' ? ' (per client or per token: a client holds one token at a time, §3)' : ''),
      );
    }
  }

  return finish({
    sustained_rps: sustained === null ? null : round(sustained, 2),
    sustained_precision: fit === null ? null : round(fit.precision, 4),
    burst,
    burst_from_idle: fromIdle,
    recovery_s: recovery === null ? null : round(recovery, 3),
    refill_s: burst !== null && sustained !== null && sustained > 0 ? round(burst / sustained, 2) : null,
    retry_after_header: retryAfter,
    scope,
  });
}
