// Phases 1–3 of the probe (drain, pilot, window) as one paced stream whose offered rate and stage
// change as answers arrive. This is the decision part only: a pure function of the state so far
// and one more answer, so a run can be replayed from hand-made samples without a clock or a server
// (the driver in stream.ts paces the requests and feeds it).
//
//  drain  – at max_rps until the first refusal: what passed before it is a first guess at the burst.
//  pilot  – still at max_rps (halved while refusals run long) until four acceptances right after
//           refusals give a rough rate r0.
//  window – at 1.25 × r0 (above the limit, so it stays saturated, with few refusals) until enough
//           acceptances over enough time, with refusals all along. No refusal for long means the
//           offered rate fell below the limit: it is raised and the window starts again. Once
//           its own acceptances read the rate a tenth or more below r0 (r0 misread high off four
//           jittered round trips), it offers a quarter above their rate instead.
//           A lean window (the bucket path, which knows r0 from timed refills), as soon as its own
//           saturated points give a rate to within a tenth, offers only that far above it, down to
//           3 %: each refusal is still a point on the line, but far fewer are spent for it.

import { burstOf, fitSustainedRate, round, segmentsOf } from '../estimators.js';
import type { Sample } from '../types.js';

/** Below this the probe does not slow down further: a limit slower than that needs a longer cap anyway. */
export const MIN_RATE = 0.5;
/** Refusals in a row that make the probe halve its rate: it is far above the limit, or the limit resets rarely. */
export const REFUSAL_STREAK = 8;
/** Refusals a window must have seen: each one is evidence the limit was saturated then. */
export const MIN_WINDOW_REFUSALS = 10;
/** Saturated acceptances the pilot needs after the first refusal for a rough rate. */
export const PILOT_POINTS = 4;
/**
 * A lean window's offer above the rate its points show. A bucket saturated at 3 % above its rate
 * refuses one request in 34; the points stay on the line t = t0 + k/rate however far apart they
 * are, so precision comes from the window's span (see estimators.ts), not from many refusals.
 */
export const LEAN_EXCESS = 0.03;
/** Refusals a lean window must have seen: enough points for the Theil–Sen slope (five pairs). */
export const LEAN_WINDOW_REFUSALS = 5;
/**
 * A lean window goes on past `windowAccepts`, to five times as many or LEAN_WINDOW_MS, whichever
 * comes first: its acceptances, at 3 % excess, are what keeps the probe's refusals (a dozen spent
 * on the drains and timed refills) under a tenth of its requests, and the time bound keeps a slow
 * limit's probe short.
 */
export const LEAN_ACCEPTS_FACTOR = 5;
export const LEAN_WINDOW_MS = 10_000;
/** Acceptances a window counts before its own rate may lower its offer (see trimmedOffer). */
export const TRIM_ACCEPTS = 20;
/** And how precise that rate must be: a quarter above a reading this far high still saturates. */
const TRIM_PRECISION = 0.1;
/** How far below r0 the window's own rate must read before r0 counts as misread. */
const TRIM_MISREAD = 0.1;
/** Saturated points a lean window needs before it trusts its own rate over r0, and how many acceptances apart (the offer then stays 1.5/10 above it, see leanRate). */
const LEAN_POINTS = 3;
const LEAN_SPAN = 10;

export type Stage = 'drain' | 'pilot' | 'window' | 'done';

export interface StreamSettings {
  /** The ceiling: the drain and pilot offer it, no raise goes past it. */
  maxRps: number;
  /** Accepted requests the window collects. */
  windowAccepts: number;
  /** Shortest window, ms. */
  minWindowMs: number;
  /**
   * A rough rate already known (the recovery phase timed a bucket's refills): the window starts
   * at the drain's first refusal, without a pilot at max_rps (its refusals are most of a probe's).
   */
  knownRate?: number;
  /** A lean window (see the top of this file): only with knownRate. */
  lean?: boolean;
}

/** The sustained-rate window since it last (re)started. */
export interface Window {
  /** When it (re)started. */
  restartMs: number;
  /** Send time of its first refusal: only from there is the limit known to be saturated; null until then. */
  openedMs: number | null;
  accepted: number;
  refused: number;
  /** Send time of its latest refusal (0: none yet). */
  lastRefusedMs: number;
  firstAcceptedMs: number;
  lastAcceptedMs: number;
  /** Its answers since it opened (a lean window re-reads its rate from them at each refusal). */
  answers: Trail;
  /** When a lean window last raised its offer because it went quiet. */
  nudgedMs: number;
  /** Whether a lean window's offer was set from its own points yet. */
  leanRated: boolean;
}

export interface StreamState {
  readonly settings: StreamSettings;
  readonly stage: Stage;
  /** The rate offered now, requests per second. */
  readonly rate: number;
  /** The refusal that ended the drain. */
  readonly firstRefusal: Sample | undefined;
  /** Drain requests accepted before the first refusal was answered. */
  readonly drainAccepted: number;
  /** The pilot's rough rate r0; 0 until known. */
  readonly roughRate: number;
  /** What the limit holds (the drain's burst, a guess): what it saves while the offered rate is below it. */
  readonly savedCapacity: number;
  /** Whether the window restarted because the offered rate was below the limit. */
  readonly raised: boolean;
  /** Refusals in a row, in completion order: only a politeness signal for the pilot. */
  readonly refusalStreak: number;
  /** Send time of the latest refusal: a long time without one means the offered rate is below the limit. */
  readonly lastRefusalMs: number;
  readonly window: Window;
  /** Answered samples sent in the drain (some arrive after it ended), and in the pilot. */
  readonly drain: Trail;
  readonly pilot: Trail;
}

/**
 * Samples in answer order, newest first, as an immutable linked list: each answer is kept in O(1)
 * and shares what came before, where copying an array would make a long drain (max_requests
 * allows a million) quadratic.
 */
export type Trail = { readonly sample: Sample; readonly earlier: Trail } | undefined;

/** The samples of a trail, oldest first. */
export function samplesOf(trail: Trail): Sample[] {
  const out: Sample[] = [];
  for (let t = trail; t; t = t.earlier) out.push(t.sample);
  return out.reverse();
}

const freshWindow = (restartMs: number): Window => ({
  restartMs,
  openedMs: null,
  accepted: 0,
  refused: 0,
  lastRefusedMs: 0,
  firstAcceptedMs: 0,
  lastAcceptedMs: 0,
  answers: undefined,
  nudgedMs: 0,
  leanRated: false,
});

export function initialStream(settings: StreamSettings): StreamState {
  return {
    settings,
    stage: 'drain',
    rate: settings.maxRps,
    firstRefusal: undefined,
    drainAccepted: 0,
    roughRate: 0,
    savedCapacity: 0,
    raised: false,
    refusalStreak: 0,
    lastRefusalMs: 0,
    window: freshWindow(0),
    drain: undefined,
    pilot: undefined,
  };
}

/**
 * The state after one more answer. `completeUpToMs` is the send time of the oldest request still
 * in flight (answers arrive out of order; the series is only complete before it).
 */
export function reduceStream(state: StreamState, s: Sample, completeUpToMs = Infinity): StreamState {
  if (state.stage === 'done') return state;
  let next = collect(state, s);
  next = advance(next, s, completeUpToMs);
  next = slowDownInPilot(next);
  next = speedUpWhenQuiet(next, s);
  return next.stage === 'window' && windowComplete(next.window, next.settings) ? { ...next, stage: 'done' } : next;
}

/** Keeps the samples the stage transitions read, and the refusal streak. */
function collect(state: StreamState, s: Sample): StreamState {
  const refused = s.answer === 'limited';
  return {
    ...state,
    refusalStreak: refused ? state.refusalStreak + 1 : s.answer === 'accepted' ? 0 : state.refusalStreak,
    lastRefusalMs: refused ? Math.max(state.lastRefusalMs, s.sentMs) : state.lastRefusalMs,
    drain: s.phase === 'drain' ? { sample: s, earlier: state.drain } : state.drain,
    pilot: s.phase === 'pilot' ? { sample: s, earlier: state.pilot } : state.pilot,
  };
}

/** Moves to the next stage when this answer settles the current one; counts it in an open window. */
function advance(state: StreamState, s: Sample, completeUpToMs: number): StreamState {
  const { stage, firstRefusal } = state;
  if (stage === 'drain' && s.answer === 'limited') {
    const next: StreamState = {
      ...state,
      stage: 'pilot',
      firstRefusal: s,
      drainAccepted: samplesOf(state.drain).filter((x) => x.answer === 'accepted').length,
    };
    const known = state.settings.knownRate;
    return known !== undefined && known > 0 ? startWindow(next, known, s) : next;
  }
  if (stage === 'pilot' && s.answer === 'accepted' && firstRefusal && s.sentMs > firstRefusal.sentMs)
    return pilotRate(state, firstRefusal, s, completeUpToMs);
  if (stage === 'window' && s.phase === 'window') {
    const counted = { ...state, window: countInWindow(state.window, s) };
    if (s.answer !== 'limited') return counted;
    return state.settings.lean ? leanRate(counted, completeUpToMs) : trimmedOffer(counted, completeUpToMs);
  }
  return state;
}

/**
 * A lean window's offer, re-read at each refusal: LEAN_EXCESS above the slope between its first and
 * last saturated points (in its longest stall-free segment, over the part of the series that is
 * complete), once there are enough of them far enough apart to beat r0.
 */
function leanRate(state: StreamState, completeUpToMs: number): StreamState {
  const series = samplesOf(state.window.answers).filter((x) => x.sentMs < completeUpToMs);
  const points = segmentsOf(series).reduce(
    (a, b) => (b.length > a.length ? b : a),
    [] as Array<{ k: number; t: number }>,
  );
  const first = points[0];
  const last = points[points.length - 1];
  if (points.length < LEAN_POINTS || !first || !last || last.t <= first.t || last.k - first.k < LEAN_SPAN) return state;
  const rate = ((last.k - first.k) / (last.t - first.t)) * 1000;
  // Two points k apart read the rate to within 1/k (each is up to one sending interval late, and
  // k intervals lie between them): the offer stays half as far again above it until the span
  // makes that smaller than LEAN_EXCESS.
  return {
    ...state,
    roughRate: rate,
    rate: leanOffer(state.settings, rate, Math.max(LEAN_EXCESS, 1.5 / (last.k - first.k))),
    window: { ...state.window, leanRated: true },
  };
}

/**
 * A window's offer, lowered to a quarter above its own saturated rate once that rests on
 * TRIM_ACCEPTS acceptances and reads lower than r0 did; never raised (speedUpWhenQuiet does that).
 * r0 is timed off four acceptances right after the pilot's refusals, each a round trip's jitter
 * off the limit's own time: 10 ± 8 ms each way read a 50/s sliding counter as 60/s, so the window
 * offered 75/s, half again over the limit, and a third of its requests were refused instead of a
 * fifth: 29 % of the whole probe on the virtual clock (the real httprate front once refused 26.7 %
 * under load; its r0 was not recorded). Its own points, many
 * acceptances apart, read the rate to a few per cent: a quarter above that still saturates the limit.
 */
function trimmedOffer(state: StreamState, completeUpToMs: number): StreamState {
  const w = state.window;
  if (w.accepted < TRIM_ACCEPTS) return state;
  const fit = fitSustainedRate(samplesOf(w.answers).filter((x) => x.sentMs < completeUpToMs));
  if (!fit || fit.clumpy || fit.precision > TRIM_PRECISION) return state;
  // Only a misread r0: a window whose offer already rests on a fair r0 is left as it runs (what it
  // sees of a counter's edges is what the kind is told by).
  if (fit.rps >= state.roughRate * (1 - TRIM_MISREAD)) return state;
  const offer = Math.max(fit.rps * 1.25, fit.rps + 1);
  return offer < state.rate ? { ...state, roughRate: fit.rps, rate: offer } : state;
}

/** `excess` above `rate`, at least half a request per second more (a refusal every 2 s at most), within max_rps. */
const leanOffer = (settings: StreamSettings, rate: number, excess = LEAN_EXCESS): number =>
  Math.min(settings.maxRps, Math.max(rate * (1 + excess), rate + 0.5));

/**
 * A rough rate from the saturated points so far (see estimators.ts), over the part of the series
 * that is complete: a missing acceptance would make the limit look slower than it is. Within one
 * stall-free segment: a small limit loses what it frees while the sender stalls. Enough points
 * start the window.
 */
function pilotRate(state: StreamState, firstRefusal: Sample, s: Sample, completeUpToMs: number): StreamState {
  const series = [firstRefusal, ...samplesOf(state.pilot)].filter((x) => x.sentMs < completeUpToMs);
  const points = segmentsOf(series).reduce(
    (a, b) => (b.length > a.length ? b : a),
    [] as Array<{ k: number; t: number }>,
  );
  const first = points[0];
  const last = points[points.length - 1];
  if (points.length < PILOT_POINTS || !first || !last || last.t <= first.t) return state;
  return startWindow(state, ((last.k - first.k) / (last.t - first.t)) * 1000, s);
}

/** The sustained-rate window, offered a little above `roughRate`, from the answer `s` on. */
function startWindow(state: StreamState, roughRate: number, s: Sample): StreamState {
  return {
    ...state,
    stage: 'window',
    roughRate,
    savedCapacity: burstOf(samplesOf(state.drain), roughRate).capacity,
    // Above the limit so it stays saturated, but only by a quarter: few refusals per acceptance. A
    // lean window starts at half again: its r0 was timed off a few refills by pings that can only
    // be late, so it reads low (by a fifth seen), and an offer under the limit would let a bucket
    // save what a small excess then takes as long to spend; its own points lower the offer soon.
    rate: Math.min(
      state.settings.maxRps,
      state.settings.lean ? Math.max(roughRate * 1.5, roughRate + 2) : Math.max(roughRate * 1.25, roughRate + 1),
    ),
    // It starts now, when the answer that settled r0 arrived: the stream's clock, read off the data.
    window: freshWindow(s.doneMs),
  };
}

/** The window opens at its first refusal; from then on it counts refusals and acceptances. */
function countInWindow(w: Window, s: Sample): Window {
  if (w.openedMs === null)
    return s.answer === 'limited' ? { ...w, openedMs: s.sentMs, answers: { sample: s, earlier: undefined } } : w;
  if (s.sentMs <= w.openedMs) return w;
  const answers = { sample: s, earlier: w.answers };
  if (s.answer === 'limited')
    return { ...w, answers, refused: w.refused + 1, lastRefusedMs: Math.max(w.lastRefusedMs, s.sentMs) };
  if (s.answer !== 'accepted') return { ...w, answers };
  return {
    ...w,
    answers,
    accepted: w.accepted + 1,
    firstAcceptedMs: w.firstAcceptedMs === 0 || s.sentMs < w.firstAcceptedMs ? s.sentMs : w.firstAcceptedMs,
    lastAcceptedMs: Math.max(w.lastAcceptedMs, s.sentMs),
  };
}

/** Politeness in the pilot: a long run of refusals means the rate is far above the limit; halve it. */
function slowDownInPilot(state: StreamState): StreamState {
  if (state.stage !== 'pilot' || state.refusalStreak < REFUSAL_STREAK) return state;
  return { ...state, rate: Math.max(MIN_RATE, state.rate / 2), refusalStreak: 0 };
}

/**
 * How long without a refusal proves the offered rate below the limit. At 1.25 × the limit a
 * refusal is due every 1 / (offered − limit) s; a stalled sender lets the limit save capacity it
 * then spends for about four times the stall. So: eight refusal intervals, and at least 2 s.
 */
export const quietLimitMs = (state: Pick<StreamState, 'rate' | 'roughRate'>): number =>
  Math.max(2_000, state.rate > state.roughRate && state.roughRate > 0 ? 8_000 / (state.rate - state.roughRate) : 0);

/**
 * A lean window that has opened goes quiet sooner: three refusal intervals at its small excess (its
 * rate was read off the window's own points, so a quiet spell means the offer sits just at or
 * under the limit), and at least a second.
 */
export const leanQuietMs = (state: Pick<StreamState, 'rate' | 'roughRate'>): number =>
  Math.max(1_000, state.rate > state.roughRate && state.roughRate > 0 ? 3_000 / (state.rate - state.roughRate) : 0);

/**
 * No refusal for long (since the window opened, or since the pilot began): the offered rate is
 * below the limit, which then refills. Offer more, and start the window again: it must measure a
 * saturated limit. A window not yet open first spends what the limit saved meanwhile (about the
 * drain's count).
 */
function speedUpWhenQuiet(state: StreamState, s: Sample): StreamState {
  const { stage, rate, roughRate, window: w } = state;
  if ((stage !== 'pilot' && stage !== 'window') || s.answer !== 'accepted' || rate >= state.settings.maxRps)
    return state;
  const opening = stage === 'window' && w.openedMs === null;
  // A lean window nudges its offer only once its own points set it (see leanRate): until then r0,
  // timed off a few refills, may be far off, and the window is raised and restarted as any other.
  if (stage === 'window' && !opening && state.settings.lean && state.window.leanRated) return nudgeLean(state, s);
  const quietSince = Math.max(
    state.lastRefusalMs,
    stage === 'window' ? (w.openedMs ?? w.restartMs) : (state.firstRefusal?.sentMs ?? Infinity),
  );
  const spending = opening && state.raised && rate > roughRate ? (state.savedCapacity * 1000) / (rate - roughRate) : 0;
  if (s.sentMs - quietSince <= quietLimitMs(state) + spending) return state;
  if (stage === 'window' && shutByWindow(w)) return state;
  const raisedRate = Math.min(state.settings.maxRps, rate * 1.5);
  if (stage === 'pilot') return { ...state, rate: raisedRate };
  return { ...state, rate: raisedRate, window: freshWindow(s.doneMs), raised: true };
}

/**
 * The most of a window's answers since it opened that may have been refused for a quiet spell to
 * mean its offer fell below the limit. Below the limit, what is offered passes in the long run, and
 * a bucket saturated at a quarter above its rate refuses a fifth. A window counter met above its
 * rate lets its quota through at each edge, then refuses all until the next: a quiet spell is that
 * quota, not an offer below the limit (a bucket of 100 and a window of 200 per 10 s: raised 1.5×
 * at each edge to 149 req/s, 100 % refused for 7 s of every 10, the probe's 3000 requests spent, 1 Dec).
 */
const QUIET_REFUSED_SHARE = 0.25;

const shutByWindow = (w: Pick<Window, 'accepted' | 'refused'>): boolean =>
  w.refused > QUIET_REFUSED_SHARE * (w.accepted + w.refused);

/**
 * A quiet lean window raises its offer by the excess and goes on: it keeps its points, which lie
 * on the line wherever the limit was full. (A bucket that ran below full meanwhile only shifts the
 * count of a pair spanning the spell, by what it lost once empty, and the slope is a median of pairs.)
 */
function nudgeLean(state: StreamState, s: Sample): StreamState {
  const w = state.window;
  const quietSince = Math.max(state.lastRefusalMs, w.openedMs ?? w.restartMs, w.nudgedMs);
  if (s.sentMs - quietSince <= leanQuietMs(state)) return state;
  return {
    ...state,
    roughRate: state.rate,
    rate: Math.min(
      state.settings.maxRps,
      leanOffer(state.settings, state.rate) / keptPace(w, quietSince, s, state.rate),
    ),
    window: { ...w, nudgedMs: s.sentMs },
  };
}

/**
 * The share of its offer the sender kept over a quiet spell (1 when it kept it, or nearly): a
 * stalled sender restarts its schedule after each stall rather than catching up (pacing.ts), so a
 * machine that stalls the probe a sixth of the time offers a bucket 50/s only 43/s for the 51.5
 * asked; the bucket then saves what every stall leaves and is never full, and a window of few
 * points reads it to ±5 % only: "not identified" (stalls of 50-300 ms every second, on the virtual
 * clock, 6 of 60 seeds). Offered that much more, it is saturated again between stalls.
 */
function keptPace(w: Window, fromMs: number, s: Sample, rate: number): number {
  let sent = 0;
  for (let t = w.answers; t; t = t.earlier) if (t.sample.sentMs > fromMs && t.sample.sentMs <= s.sentMs) sent++;
  const expected = ((s.sentMs - fromMs) / 1000) * rate;
  const kept = expected > 0 ? sent / expected : 1;
  return kept < 1 - LEAN_EXCESS ? Math.max(kept, MIN_KEPT_PACE) : 1;
}

/** The least kept pace a nudge makes up for: a sender stalled more than that offers no steady stream to read. */
const MIN_KEPT_PACE = 0.5;

/**
 * Enough acceptances over enough time, and refusals all along (a window whose offered rate fell
 * below the limit has none, and is restarted at a higher rate instead: see quietLimitMs).
 */
export function windowComplete(
  w: Pick<Window, 'accepted' | 'refused' | 'lastRefusedMs' | 'firstAcceptedMs' | 'lastAcceptedMs'>,
  settings: StreamSettings,
): boolean {
  const spanMs = w.lastAcceptedMs - w.firstAcceptedMs;
  if (w.accepted < settings.windowAccepts || spanMs < settings.minWindowMs) return false;
  if (!settings.lean) return w.refused >= MIN_WINDOW_REFUSALS;
  return (
    w.refused >= LEAN_WINDOW_REFUSALS &&
    (w.accepted >= LEAN_ACCEPTS_FACTOR * settings.windowAccepts || spanMs >= LEAN_WINDOW_MS) &&
    (refusedLate(w, spanMs) || spanMs >= LEAN_UNSATURATED_MS)
  );
}

/**
 * A refusal in the window's second half: the limit was still saturated there, so its points span
 * the window. Behind toxiproxy a lean window's offer once sat at the emulator's bucket rate after a
 * reading a few per cent low: all 35 refusals came in its first 0.37 s and none in the 5.8 s after,
 * so it ended on 0.4 s of points, "±11.7 %", not identified (1 run in 4). Going on, its offer is
 * nudged up (nudgeLean) until the limit refuses again; LEAN_UNSATURATED_MS bounds that.
 */
const refusedLate = (w: Pick<Window, 'lastRefusedMs' | 'firstAcceptedMs'>, spanMs: number): boolean =>
  w.lastRefusedMs - w.firstAcceptedMs >= spanMs / 2;

/** The longest a lean window goes on waiting for a refusal in its second half. */
const LEAN_UNSATURATED_MS = 2 * LEAN_WINDOW_MS;

/** The progress line a step is worth, when it moved the stream to its next stage. */
export function streamNews(before: StreamState, after: StreamState, s: Sample): string | undefined {
  // A stream begun after other phases can meet the limit still shut: not "after 0 requests".
  if (before.stage === 'drain' && after.stage === 'pilot')
    return after.drainAccepted === 0
      ? `limit still shut when the stream began (answer ${s.status}); timing the refill`
      : `limit reached after ${after.drainAccepted} requests (answer ${s.status}); timing the refill`;
  if (before.stage !== 'window' && after.stage === 'window')
    return `about ${round(after.roughRate, 1)} req/s; measuring the sustained rate at ${round(after.rate, 1)} req/s`;
  if (before.stage === 'window' && after.stage === 'window' && !after.settings.lean && after.rate < before.rate)
    return `the window reads ${round(after.roughRate, 1)} req/s; offering ${round(after.rate, 1)} req/s`;
  return undefined;
}
