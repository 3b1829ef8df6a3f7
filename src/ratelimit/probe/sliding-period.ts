// A sliding window's period, to about 1 %, without feeding it refusals: trials of "wait until the
// window is surely empty, send exactly the limit at max_rps, then one request x after the first":
// that request passes exactly when x is past the period. Each trial halves the bracket the period
// lies in (bisection, period-bracket.ts), so a few trials pin it; the only refused requests are the
// half of the trials' single requests that came too early. Then one more trial with a few refused
// requests inside the period tells whether refused requests count: if they do, a request just past
// the period is refused too.
//
// "Surely empty" is two periods' upper bound after the last request the window may still hold in
// full: HAProxy's http_req_rate starts afresh only after two idle periods (before that the
// previous period's count still weighs in, and a clump would open its period early, so its request
// x later would read the period short); a sliding log is empty one period after its last request.
// A trial whose single request was refused kept every request inside the period its clump opened,
// so the next one waits two periods from the clump, not from that request (idleSince, with a fifth
// of a period to spare): most of a period less for half of the trials.

import { midpoint, type Bracket } from '../identify.js';
import type { SlidingWindowModel } from '../limiters/index.js';
import type { Sample } from '../types.js';
import {
  initialBracket,
  nextPingAfter,
  pinned,
  withAnswer,
  PERIOD_GOAL,
  PERIOD_PRECISION,
  UNSEEN_SHORT,
  type PeriodBracket,
} from './period-bracket.js';
import {
  acceptedBoundMs,
  gapNoiseMs,
  notLateTrip,
  seenGapNoiseMs,
  seenMs,
  usualGapNoiseMs,
  usualTrip,
} from './arrival.js';
import { pingAt } from './ping.js';
import type { Probe } from './probe.js';

export { PERIOD_PRECISION } from './period-bracket.js';

/** Trials at most, whatever the precision: each is two or three periods of waiting (a jittery network needs a few more). */
const MAX_TRIALS = 14;

/**
 * Send times' noise on a trial's gap, relative to the period, past which the gaps are read between
 * the middles of the round trips instead (seenMs): the send times alone can then not pin the period
 * to the precision the bisection aims for. Nearer, the middles buy little and carry the client's own
 * waits: read on them from 1 %, a silent sliding-window counter (its round trips ~1 % of the period
 * it seemed to have) passed for a log more often, or for one with twice its window.
 */
const MID_ROUND_TRIP_FROM = PERIOD_PRECISION;
/**
 * A round trip stretched by no more than this share of the period still counts on send times: it
 * moves the gap by a third of the bisection's precision at most. On loopback the usual spread is a
 * fraction of a ms, and a busy machine's few ms late would otherwise cost a trial each.
 */
const SEND_TIME_STRETCH = PERIOD_PRECISION / 3;
/**
 * Trials past MAX_TRIALS whose round trips a busy machine stretched (not counted), at most: this
 * many, or as many as OFF_TRIPS_S of trials, each its quiet periods and one more (maxOffTrips).
 */
const MIN_OFF_TRIPS = 4;
/**
 * The time trials not counted may take. A short period tolerates a few ms of stretch only (a third
 * of its precision), so on a busy machine more of its trials miss, each costing little: HAProxy's
 * 40 per 500 ms beside three other probes on two cores (CI) or `stress-ng --cpu 3` had 5 of 7 or 8
 * trials set aside, and the period ended "not pinned down" in 2 of 3 runs at 4 allowed.
 */
const OFF_TRIPS_S = 15;
const maxOffTrips = (periodMs: number, quietPeriods: number): number =>
  Math.max(MIN_OFF_TRIPS, Math.floor((OFF_TRIPS_S * 1000) / ((quietPeriods + 1) * periodMs)));
/** Counts-refused trials at most: one whose requests went out late (a busy machine) proves nothing and is sent again. */
const COUNTS_ATTEMPTS = 3;

export interface PeriodFindings {
  model: SlidingWindowModel | null;
  evidence: string[];
  notes: string[];
  /** Clumps sent after waiting for the window to empty that were refused in part (it had not). */
  partClumps: number;
  /** Clumps sent after waiting for the window to empty that it did not refuse in part (trials' and those set aside). */
  wholeClumps: number;
  /**
   * The longest quiet one of them had waited before it, ms: two of the period sized or more, and
   * no sliding window of that period and limit refuses any of it (discover.ts says so).
   */
  refusedAfterQuietMs: number;
  /** How far the period sized may be off, relative (statedPrecision); with the model only. */
  precision?: number;
}

interface Trial {
  /** Send time of the clump's first request: where the trial's single request is placed from. */
  startMs: number;
  /**
   * The request the limiter saw first, which opened the window: the earliest seenMs, as a request
   * sent a few ms after the first may overtake it across a jittery network.
   */
  opener: Sample;
  /** All of the clump passed. */
  whole: boolean;
  /**
   * The latest, on the send clock, that the clump's last request may have reached the limiter: its
   * send time, or later by as much as a round trip ran past the usual (arrival.ts acceptedBoundMs).
   * The next trial's quiet counts from here: on a loaded machine a request recorded as sent may
   * leave late, and HAProxy, still holding it, refused part of a clump after "1.034 s of quiet" for
   * a window of 0.5 s that forgets in two (CI 48g: 11 % of the probe's requests refused).
   */
  lastMs: number;
  /** When the clump's first answer came back: its request had reached the limiter by then. */
  firstDoneMs: number;
  /** When the clump's last answer came back. */
  lastDoneMs: number;
  /** Its requests as sent and answered: when the limiter saw them, and how far the network smeared that. */
  samples: Sample[];
}

/** Where the period lies before the trials, and how sure its upper end is. */
export interface InitialPeriod extends Bracket {
  /** The upper end was seen (a window's edges), not inferred from a drain whose window may have opened before it. */
  hiSure?: boolean;
  /** A period surely no longer than this (ms): the wait before a trial allows for it while the upper end is unconfirmed. */
  longest?: number;
  /**
   * The window forgets each request one period after it (a sliding log: its edges moved with the
   * probe's clump), so one quiet period empties it, not two. A clump refused in part says otherwise:
   * the trials after it wait two.
   */
  forgetsInOnePeriod?: boolean;
}

export async function slidingPeriodPhase(probe: Probe, limit: number, initial: InitialPeriod): Promise<PeriodFindings> {
  const notes: string[] = [];
  const evidence: string[] = [];
  // The lower end comes from requests refused while the window was being pinged; if refused
  // requests count, it may lie past the period. The upper end is measured from the drain's first
  // request, but the set-up requests before it counted too and may have opened the window earlier
  // (long before, on a busy machine): it may lie short of the period. Neither is seen until a trial
  // shows it.
  let bracket: PeriodBracket = initialBracket(initial.lo, initial.hi, initial.hiSure ?? false);
  let idleFromMs = probe.elapsed();
  let quietPeriods = initial.forgetsInOnePeriod ? 1 : 2;
  let trials = 0;
  let partClumps = 0;
  // The longest quiet a clump refused in part had waited before it, ms (refusedAfterQuietMs).
  let longestQuietMs = 0;
  // The trials' requests, for the network's noise on their arrivals (seenGapNoiseMs).
  const answered: Sample[] = [];
  let noiseMs = 0;
  // Decided on the first trial's round trips, so that every end of the bracket is read alike.
  let midRoundTrip: boolean | undefined;
  // Trials whose gap rests on a round trip a busy machine stretched: not counted.
  let offTrips = 0;
  // An upper end seen before the trials (a lattice of window edges) is no trial's: a sliding log's
  // edges follow the probe's clumps, and a lattice fitted to them says where the clumps fell. With
  // a few round trips stretched from the start it fell 0.922-0.940 s apart for a 1 s log (virtual
  // seed 22); the bisection's requests all came too early, none asked at 1.04 × that, and it read
  // 0.964 s, a rate above the true one. Until a trial lets a request through at or below that end,
  // the bracket once pinned asks at it: one trial more, only when no trial confirmed it.
  let hiUnconfirmed = bracket.hiSeen;
  while (
    trials < MAX_TRIALS + offTrips &&
    offTrips <= maxOffTrips(bracket.hi, quietPeriods) &&
    !probe.outOfBudget() &&
    (hiUnconfirmed || !pinned(bracket, noiseMs)) &&
    noiseMs / bracket.hi < PERIOD_GOAL
  ) {
    const x = hiUnconfirmed && pinned(bracket, noiseMs) ? bracket.hi : nextPingAfter(bracket);
    const longest = longestPeriod(bracket, noiseMs, initial);
    const trial = await clumpFromIdle(probe, limit, idleFromMs, Math.max(longest, x), quietPeriods);
    if (!trial) break;
    trials++;
    idleFromMs = trial.lastMs;
    if (!trial.whole) {
      longestQuietMs = Math.max(longestQuietMs, quietPeriods * Math.max(longest, x));
      quietPeriods = 2;
      partClumps++;
      continue;
    }
    const s = await pingAt(probe, 'period', trial.startMs + x);
    if (!s) break;
    // From the clump, a tenth of a period more per period: the upper end, read on send times, can
    // come out short by what requests waited on a busy machine before they reached the limiter.
    idleFromMs = quietPeriods === 2 ? idleSince(trial, s, 0.2 * bracket.hi) : s.sentMs;
    answered.push(...trial.samples, s);
    midRoundTrip ??= gapNoiseMs(answered) > MID_ROUND_TRIP_FROM * bracket.hi;
    const toleratedMs = midRoundTrip ? 0 : SEND_TIME_STRETCH * bracket.hi;
    noiseMs = midRoundTrip ? seenGapNoiseMs(answered) : usualGapNoiseMs(answered, toleratedMs);
    // The limiter decides on arrival: across a jittery network the gap it saw is the send times'
    // gap off by the difference of two one-way delays (up to ±2 % of a 1 s period at 50 ± 10 ms
    // each way). Read between the middles of the round trips instead, it is off by half as much in
    // variance, and the trials go on until the bracket and that noise together are within the goal
    // (pinned); on the send times alone, a busy machine's noise kept it unpinned after 14 trials.
    // Either way a gap that rests on a round trip a busy machine stretched is not counted (one leg
    // 100 ms late moves a send-time gap by 10 % of the period), nor is that trip in the noise: a few
    // of them made the send times' standard deviation ±30–50 ms on ±10 ms of jitter, and the trials
    // ended "not pinned down" after 2 or 3 (toxiproxy beside another toxiproxy file, CI).
    const first = midRoundTrip ? trial.opener : trial.samples[0]!;
    if (!gapBounds(answered, { first, single: s }, toleratedMs, midRoundTrip)) {
      offTrips++;
      continue;
    }
    const gapMs = midRoundTrip ? seenMs(s) - seenMs(trial.opener) : s.sentMs - trial.startMs;
    if (s.answer === 'accepted' || s.answer === 'limited') {
      // Let through at that end (or a few ms past it, sent late: the end is then that request's),
      // or refused past it (the end then unseen, for the trials to see).
      const confirmsHi = hiUnconfirmed && s.answer === 'accepted' && gapMs <= bracket.hi * (1 + PERIOD_PRECISION / 2);
      const hiMs = confirmsHi ? Math.max(bracket.hi, gapMs) : bracket.hi;
      bracket = withAnswer({ ...bracket, hi: hiMs }, gapMs, s.answer === 'accepted');
      if (confirmsHi || !bracket.hiSeen) hiUnconfirmed = false;
    }
  }
  // Once, with their count: a limit smaller than the clump refuses every one (Flask-Limiter's 10 per
  // second and 100 per minute: the same line 14 times in a report).
  if (partClumps > 0) notes.push(partClumpsNote(limit, partClumps));
  const { lo, hi } = bracket;
  const period = midpoint(bracket);
  // The bracket's half-width and the arrivals' noise together: beyond the goal the period is not
  // known well enough to size a rate on it.
  const errorBar = period.precision + noiseMs / period.value;
  const clumps = { partClumps, wholeClumps: trials - partClumps, refusedAfterQuietMs: longestQuietMs };
  if (!bracket.loSeen || !bracket.hiSeen || hiUnconfirmed || errorBar > PERIOD_GOAL) {
    notes.push(notPinnedNote(bracket, { trials: trials - partClumps, offTrips, noiseMs, hiUnconfirmed }));
    return { model: null, evidence, notes, ...clumps };
  }
  const offNote = offTrips > 0 ? `; ${offTrips} trials on stretched round trips not counted` : '';
  const arrivals = midRoundTrip
    ? ` (arrivals read mid-round-trip, ± ${Math.round(noiseMs)} ms${offNote})`
    : noiseMs > 0
      ? ` (arrivals read on send times, ± ${Math.round(noiseMs)} ms${offNote})`
      : '';
  evidence.push(
    `${trials - offTrips - partClumps} trials of ${limit} requests from idle: one more request passed ${fmt(hi)} after the first and was refused ${fmt(lo)} after it${arrivals}: the window slides over ${fmt(period.value)}`,
  );
  const counted = await countsRefusedTrials(probe, limit, { lo, hi }, quietPeriods, GAP_REACH * noiseMs);
  if (counted.evidence) evidence.push(counted.evidence);
  const periodS = Math.round(period.value) / 1000;
  // Untested is unknown (null), never "does not count": the fleet simulator then assumes the worse.
  return {
    model: { kind: 'sliding-window', limit, period_s: periodS, counts_refused: counted.counts ?? null },
    evidence,
    notes: [...notes, ...counted.notes],
    ...clumps,
    precision: statedPrecision(period, noiseMs),
  };
}

/**
 * The longest the period may be, ms, as a trial's wait from idle must allow for it. A trial that is
 * not from idle lets its last request in early and confirms too short an end, which then shortens
 * every later wait: until an upper end is seen, the longest period is a quarter past the guessed
 * end, or the longest the first recovery allows (window-path.ts). A seen end is sure only to within
 * a gap's noise (GAP_REACH): a single let through across a network 30 ms early made the end short,
 * two of it fell short of HAProxy's two idle periods, its counters carried the last trial's period
 * into the next clump, which let the next single in early again (virtual, 50 ± 10 ms: 50 per
 * 0.965 s, 3.6 % fast against ±2.7 % stated).
 */
const longestPeriod = (bracket: PeriodBracket, noiseMs: number, initial: InitialPeriod): number =>
  bracket.hiSeen ? bracket.hi + GAP_REACH * noiseMs : Math.max(bracket.hi / UNSEEN_SHORT, initial.longest ?? 0);

/**
 * How far a gap's error may reach, in units of noiseMs (√2 standard deviations of it, both ways of
 * reading arrivals): 2.5 standard deviations, past which a normal spread leaves 1 % and toxiproxy's
 * uniform jitter nothing (the difference of two legs of ±j reaches 2j, 2.45 of its deviations).
 */
const GAP_REACH = 2.5 / Math.SQRT2;

/**
 * What the period sized may be off by, relative, as the report states it: never less than the
 * bisection's precision, and across a network the bracket's half-width with as far as one answer's
 * gap may be off (GAP_REACH), not the 85 % noiseMs covers. The bisection keeps its own ends, the two
 * trials whose answers were nearest the period, and a noise past noiseMs on either moves the period
 * read by as much: toxiproxy's 1 s log was read 0.975 s (2.56 % fast) with ± 1.5 % stated (CI
 * 36c); 13 other CI runs read it between 1.2 % fast and 1.2 % slow.
 */
export function statedPrecision(period: { value: number; precision: number }, noiseMs: number): number {
  return Math.max(PERIOD_PRECISION, period.precision + gapReach(noiseMs, period.value));
}

/** How far one answer's gap may move a span of `spanMs`, relative (GAP_REACH of the noise over it). */
const gapReach = (noiseMs: number, spanMs: number): number => (GAP_REACH * noiseMs) / spanMs;

/**
 * What a rate read off a stream's slope may be off by, relative: the fit's own spread, and as far
 * as one answer's gap may be off (GAP_REACH) over the span its points cover. The median of the
 * pairwise slopes is blind to an error that moves the span's ends alike: HAProxy's admitted-only
 * 50 per 1 s across 50 ± 17 ms each way was read 49.5 req/s by its stream with ±0.78 % stated (2 of
 * 84 virtual runs). `spanS` 0 (no points apart): the fit's precision alone.
 */
export function streamPrecision(fit: { precision: number; spanS: number }, noiseMs: number): number {
  return fit.spanS > 0 ? fit.precision + gapReach(noiseMs, fit.spanS * 1000) : fit.precision;
}

/**
 * Whether a trial's gap bounds the period as its single request's answer says. Read between the
 * middles of the round trips, a stretched leg either way moves a middle: both trips must be usual.
 * Read on send times, each request reached the limiter no earlier than it was sent, so a late one
 * only moves the gap the limiter saw one way: a single refused however late it arrived was refused
 * at least its send-time gap after an opener that arrived on time (the period is longer than that
 * gap, less the usual lag), and a single let through on time after an opener however late (or
 * after another request of the clump, each sent after the first) was let through at most its gap
 * after the window opened (the period is no longer). Only the end the bound rests on must not be
 * late: HAProxy 50 per 1 s on the real bench had 4 of 8 trials set aside, about 3 s each, where
 * either trip past the usual one did it.
 */
export function gapBounds(
  answered: readonly Sample[],
  { first, single }: { first: Sample; single: Sample },
  toleratedMs: number,
  midRoundTrip: boolean,
): boolean {
  if (midRoundTrip) return usualTrip(answered, single, toleratedMs) && usualTrip(answered, first, toleratedMs);
  if (single.answer === 'limited') return notLateTrip(answered, first, toleratedMs);
  if (single.answer === 'accepted') return notLateTrip(answered, single, toleratedMs);
  return usualTrip(answered, single, toleratedMs) && usualTrip(answered, first, toleratedMs);
}

/** The clumps from idle refused in part, said once. */
const partClumpsNote = (limit: number, clumps: number): string =>
  clumps === 1
    ? `a clump of ${limit} from idle was refused in part: the window had not emptied, or the limit is smaller; the trial was not counted`
    : `${clumps} clumps of ${limit} from idle were refused in part: the window had not emptied, or the limit is smaller; those trials were not counted`;

/** Why the period was not sized: the bracket it stayed in, after how many trials, and what kept it wide. */
function notPinnedNote(
  { lo, hi }: PeriodBracket,
  seen: { trials: number; offTrips: number; noiseMs: number; hiUnconfirmed: boolean },
): string {
  const noise = seen.noiseMs > 0 ? `, ± ${Math.round(seen.noiseMs)} ms of network noise on each arrival` : '';
  const off = seen.offTrips > 0 ? `, ${seen.offTrips} more not counted: round trips stretched past the usual` : '';
  const unconfirmed = seen.hiUnconfirmed ? ", no trial let through at the upper end the window's edges gave" : '';
  return `the sliding window's period was not pinned down (between ${fmt(lo)} and ${fmt(hi)} after ${seen.trials - seen.offTrips} trials${off}${noise}${unconfirmed})`;
}

/** Whether refused requests count, tried again (up to COUNTS_ATTEMPTS) while something disturbs the trial. */
async function countsRefusedTrials(
  probe: Probe,
  limit: number,
  bracket: { lo: number; hi: number },
  quietPeriods: number,
  reachMs: number,
) {
  // This trial waits from the last request, whatever it was: a clump that opened its period early
  // would let the request past the period in, and read "refused requests do not count".
  let counted = await countsRefusedTrial(probe, limit, bracket, probe.elapsed(), { quietPeriods, reachMs });
  for (let attempt = 1; counted.disturbed && attempt < COUNTS_ATTEMPTS && !probe.outOfBudget(); attempt++) {
    counted = await countsRefusedTrial(probe, limit, bracket, probe.elapsed(), { quietPeriods, reachMs });
  }
  if (counted.disturbed)
    counted.notes.push(
      `whether refused requests count was not tested: ${counted.disturbed} in each of ${COUNTS_ATTEMPTS} trials`,
    );
  return counted;
}

/**
 * Since when a window that forgets in two quiet periods (HAProxy) may still hold a trial's requests
 * in full: the next trial waits two periods from then (one that forgets each request a period after
 * it waits a period from the last request). A refused single request fell inside the period the
 * clump opened (the window was still full), and so did the whole clump when its answers were back
 * before that request went: HAProxy forgets them two periods after the clump's first request
 * reached it (`slackMs` later, for safety), a sliding log one period after the refused request,
 * which is sooner. A request let through (or a clump still answering) may have opened the next
 * period: two periods from that request.
 */
export function idleSince(
  trial: Pick<Trial, 'firstDoneMs' | 'lastDoneMs'>,
  single: Pick<Sample, 'answer' | 'sentMs'>,
  slackMs = 0,
): number {
  return single.answer === 'limited' && trial.lastDoneMs <= single.sentMs
    ? Math.min(trial.firstDoneMs + slackMs, single.sentMs)
    : single.sentMs;
}

/** Waits until the window is surely empty (`quietPeriods` times `periodHiMs` after `sinceMs`), then sends exactly `limit` at max_rps. */
async function clumpFromIdle(
  probe: Probe,
  limit: number,
  sinceMs: number,
  periodHiMs: number,
  quietPeriods: number,
): Promise<Trial | undefined> {
  // 20 ms for the answers' and timers' jitter: the window must have forgotten, not be about to.
  const readyMs = sinceMs + quietPeriods * periodHiMs + 20;
  // The trial needs the wait, the clump and one more period for its last request.
  if (readyMs + (limit * 1000) / probe.maxRps + 1.1 * periodHiMs > probe.maxDurationMs) {
    probe.outOfTime();
    return undefined;
  }
  const wait = readyMs - probe.elapsed();
  if (wait > 0) await probe.clock.sleep(Math.ceil(wait), probe.signal);
  if (probe.outOfBudget()) return undefined;
  const { samples } = await probe.burstRun('period', limit, { exact: true });
  if (samples.length === 0) return undefined;
  const sorted = [...samples].sort((a, b) => a.sentMs - b.sentMs);
  return {
    startMs: sorted[0]!.sentMs,
    opener: sorted.reduce((a, b) => (seenMs(b) < seenMs(a) ? b : a)),
    whole: samples.length === limit && samples.every((s) => s.answer === 'accepted'),
    lastMs: Math.max(...sorted.map((s) => acceptedBoundMs(sorted, s))),
    firstDoneMs: sorted[0]!.doneMs,
    lastDoneMs: Math.max(...samples.map((s) => s.doneMs)),
    samples: sorted,
  };
}

/**
 * One trial with refused requests inside the period: a clump of the limit, then `k` single
 * requests halfway through (all refused), then one request safely past the period. A limiter that
 * counts refusals still holds the window full then (HAProxy's usual stick-table recipe; a
 * sliding log of every request); one that counts admissions only lets it through.
 */
async function countsRefusedTrial(
  probe: Probe,
  limit: number,
  period: Bracket,
  sinceMs: number,
  // `reachMs`: how far short of the period its upper end may be across a network (GAP_REACH).
  { quietPeriods, reachMs }: { quietPeriods: number; reachMs: number },
): Promise<{ counts?: boolean; evidence?: string; notes: string[]; disturbed?: string }> {
  const interval = 1000 / probe.maxRps;
  // Enough refusals to outweigh what ages out of the window between the period and the final
  // request (a sliding log forgets the oldest first), and a twentieth of the limit for HAProxy's
  // interpolated count.
  const k = Math.max(3, Math.ceil(0.05 * limit), Math.ceil((2 * (period.hi - period.lo + reachMs)) / interval) + 2);
  const trial = await clumpFromIdle(probe, limit, sinceMs, period.hi + reachMs, quietPeriods);
  if (!trial || !trial.whole)
    return { notes: ['whether refused requests count was not tested (no time left, or the clump was refused)'] };
  // Each at its own time, none waiting for the last one's answer: a network ~100 ms away (or a
  // gateway that answers 429 slowly) would otherwise push most of them past the period.
  const mid = await Promise.all(
    Array.from({ length: k }, (_, i) => pingAt(probe, 'counts-refused', trial.startMs + period.lo / 2 + i * interval)),
  );
  if (mid.some((s) => s === undefined))
    return { notes: ['whether refused requests count was not tested (the budget ran out)'] };
  const refused = mid.filter((s) => s?.answer === 'limited').length;
  // Every one of them falls mid-period when sent on time: one let through went out late, after
  // the period, and refused nothing the final request could feel.
  if (refused < k)
    return { notes: [], disturbed: `only ${refused} of ${k} requests meant for mid-period were refused (sent late)` };
  const finalAtMs = trial.startMs + period.hi + reachMs + (period.hi - period.lo) + interval;
  const final = await pingAt(probe, 'counts-refused', finalAtMs);
  if (!final || (final.answer !== 'accepted' && final.answer !== 'limited'))
    return { notes: ['whether refused requests count was not tested (no clear answer)'] };
  // Sent much later than planned, a window that counts refusals may have let them age out too.
  const lateMs = final.sentMs - finalAtMs;
  if (lateMs > period.hi - period.lo + 2 * interval)
    return { notes: [], disturbed: `the request past the period went out ${Math.round(lateMs)} ms late` };
  const counts = final.answer === 'limited';
  return {
    counts,
    evidence: `after ${refused} requests refused mid-period, a request ${fmt(final.sentMs - trial.startMs)} after the window's first (past its period) was ${counts ? 'refused: refused requests count against the client' : 'let through: refused requests do not count'}`,
    notes: [],
  };
}

const fmt = (ms: number) => `${(ms / 1000).toFixed(3)} s`;
