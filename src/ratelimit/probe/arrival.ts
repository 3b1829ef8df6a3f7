// When the limiter saw a request is known only to within its round trip: somewhere in [sent,
// answered]. On loopback that is a few milliseconds and the send order is the order the limiter saw;
// a network ~100 ms away with jitter swaps requests sent a few milliseconds apart, and keeps a
// round trip's worth of them in flight after the first one refused. The phases read a run through
// here so that neither a swap nor those in flight is taken for the limit.

import type { Sample } from '../types.js';

/** When the service saw a request, best estimate: the middle of its round trip. */
export const seenMs = (s: Sample): number => (s.sentMs + s.doneMs) / 2;

/** A run's answered requests in the order the limiter saw them, best estimate (seenMs). */
export const inSeenOrder = (run: readonly Sample[]): Sample[] =>
  run.filter((s) => s.answer !== 'error').sort((x, y) => seenMs(x) - seenMs(y));

/** The round trips of a run's answered requests, ms (a transport error has none). */
const roundTrips = (run: readonly Sample[]): number[] =>
  run.filter((s) => s.answer !== 'error').map((s) => s.doneMs - s.sentMs);

/** The shortest round trip among `samples`, ms (undefined when none was answered). */
export function fastestTripMs(samples: readonly Sample[]): number | undefined {
  const trips = roundTrips(samples);
  return trips.length === 0 ? undefined : Math.min(...trips);
}

/**
 * The latest `run`'s requests can have reached the limiter, on the send clock of a request that was
 * delayed by nothing of its own (`fastestMs`: the shortest round trip seen): a request is there no
 * later than its answer less the shortest way back, and the shortest way back is within the
 * shortest round trip. A send time says less: a request on a connection opened for it waits for the
 * handshake first (behind toxiproxy's 50 ms each way, a drain's requests on fresh connections took
 * ~210 ms, those on open ones ~100), and one the machine held back leaves late.
 */
export function latestReachedMs(run: readonly Sample[], fastestMs: number): number {
  return Math.max(...run.filter((s) => s.answer !== 'error').map((s) => Math.max(s.sentMs, s.doneMs - fastestMs)));
}

/**
 * The primary client's answered requests in sending order, up to the scope trial: the second
 * client's requests, last, take from a shared limit, not from one of the primary's own.
 */
export function answeredBeforeSecond(samples: readonly Sample[]): Sample[] {
  const secondFromMs = Math.min(...samples.filter((s) => s.client === 'second').map((s) => s.sentMs));
  return samples
    .filter((s) => s.client === 'primary' && s.sentMs < secondFromMs && s.answer !== 'error')
    .sort((a, b) => a.sentMs - b.sentMs);
}

/**
 * How far apart two requests of a run may have been sent and still reached the limiter the other
 * way round: as much as one leg of the trip can vary, at most the spread of the run's round trips.
 */
export function reorderMs(run: readonly Sample[]): number {
  const trips = roundTrips(run);
  return trips.length < 2 ? 0 : Math.max(...trips) - Math.min(...trips);
}

/**
 * How far the gap between two requests' send times may be off the gap between their arrivals at the
 * limiter, ms: the difference of their one-way delays. Only round trips are seen; with the two legs
 * varying alike, that difference has the round trips' standard deviation, and √2 times it covers
 * most gaps (~85 % of them for a normal spread). 0 when fewer than two round trips were seen.
 */
export function gapNoiseMs(run: readonly Sample[]): number {
  const trips = roundTrips(run);
  if (trips.length < 2) return 0;
  const mean = trips.reduce((a, b) => a + b, 0) / trips.length;
  const variance = trips.reduce((a, t) => a + (t - mean) ** 2, 0) / (trips.length - 1);
  return Math.SQRT2 * Math.sqrt(variance);
}

/** The middle of a list of numbers (undefined when empty). */
const median = (xs: readonly number[]): number | undefined => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length === 0 ? undefined : (sorted[(sorted.length - 1) >> 1]! + sorted[sorted.length >> 1]!) / 2;
};

/**
 * The round trips' usual spread, ms: their standard deviation as read from the median absolute
 * deviation (1.4826 × it, for a normal spread), blind to the tail a busy machine adds (an answer
 * handled 100 ms late), which a standard deviation is made of; 0 when fewer than two were seen.
 */
function usualSpreadMs(run: readonly Sample[]): { medianMs: number; spreadMs: number } {
  const trips = roundTrips(run);
  const medianMs = median(trips) ?? 0;
  if (trips.length < 2) return { medianMs, spreadMs: 0 };
  return { medianMs, spreadMs: 1.4826 * (median(trips.map((t) => Math.abs(t - medianMs))) ?? 0) };
}

/**
 * gapNoiseMs for gaps read between seenMs of requests whose round trips were usual (usualTrip):
 * each estimate is off its arrival by half the difference of its own two legs, not by a whole leg's
 * variation, which halves the variance of a gap's error for legs that vary alike; √2 times its
 * standard deviation is then the round trips' usual spread.
 */
export const seenGapNoiseMs = (run: readonly Sample[]): number => usualSpreadMs(run).spreadMs;

/**
 * The request's round trip was within three usual spreads of the run's median: its middle is as
 * good as seenGapNoiseMs says. One past that (a busy machine handled it late) may be off by half
 * of it, and a gap read on it proves nothing to the precision a period needs. `toleratedMs`: a
 * stretch no larger is usual whatever the spread (loopback's spread is a fraction of a ms).
 */
export function usualTrip(run: readonly Sample[], s: Sample, toleratedMs = 0): boolean {
  return usualTrips(run, toleratedMs)(s);
}

/** usualTrip for many requests of one run, its spread read once. */
function usualTrips(run: readonly Sample[], toleratedMs: number): (s: Sample) => boolean {
  const { medianMs, withinMs } = usualBand(run, toleratedMs);
  return (s) => s.answer !== 'error' && Math.abs(s.doneMs - s.sentMs - medianMs) <= withinMs;
}

/**
 * The request's round trip was not longer than usualTrip allows; a shorter one is fine too. What a
 * gap read on send times needs of one end: a request reaches the limiter no earlier than it was
 * sent, and a trip no longer than usual says it got there no later than usual either (a busy
 * machine's stretch of a leg, there or back, is not known; only a whole trip within the usual
 * rules it out).
 */
export function notLateTrip(run: readonly Sample[], s: Sample, toleratedMs = 0): boolean {
  const { medianMs, withinMs } = usualBand(run, toleratedMs);
  return s.answer !== 'error' && s.doneMs - s.sentMs - medianMs <= withinMs;
}

/**
 * The latest, on the send clock, that a request let through shows a window's edge to be: its send
 * time when its round trip was not late (notLateTrip), else that plus how far its trip ran past the
 * usual, as much as its way there may have taken longer (a handshake first, a limiter that stalled
 * before it counted the request). With the limiter stalling 100–300 ms about every second, 5 of 100
 * fixed windows 50 per 1 s were read 3–15 % off with ±1 % stated, their edges' upper ends on pings
 * that reached it late (virtual, 50 ± 10 ms each way, stalled-window-virtual.test.ts).
 */
export function acceptedBoundMs(run: readonly Sample[], s: Sample): number {
  return s.sentMs + tripLateMs(run, s);
}

/**
 * How much longer than `run`'s usual round trip the request's took, ms: 0 when not late
 * (notLateTrip), else past the run's median.
 */
function tripLateMs(run: readonly Sample[], s: Sample): number {
  return notLateTrip(run, s) ? 0 : s.doneMs - s.sentMs - usualBand(run, 0).medianMs;
}

/**
 * tripLateMs against the trips of its moment, those of `run` answered before `s` left: a limiter
 * stalled through most of a drain answers most of it late, and the whole run's median then calls
 * the stall usual. With none answered before (a drain across a network refused within its first
 * round trip), against the whole run.
 */
export function lateForItsMomentMs(run: readonly Sample[], s: Sample): number {
  const before = run.filter((x) => x.doneMs <= s.sentMs && x.answer !== 'error');
  return tripLateMs(before.length > 0 ? before : run, s);
}

/** The usual round trip, ms, and how far off it one may be and still be usual: three usual spreads, or `toleratedMs`. */
function usualBand(run: readonly Sample[], toleratedMs: number): { medianMs: number; withinMs: number } {
  const { medianMs, spreadMs } = usualSpreadMs(run);
  return { medianMs, withinMs: Math.max(3 * spreadMs + 1, toleratedMs) };
}

/**
 * gapNoiseMs for gaps read on send times between requests whose round trips were usual
 * (usualTrip, with `toleratedMs`): the gaps that rest on a stretched one are not counted, so
 * neither is its round trip here. A few round trips a busy machine stretched by 100 ms made the
 * standard deviation of all of them ±30–50 ms on ±10 ms of jitter, past 2 % of a 1 s period, and
 * the period's trials ended unpinned. Without such a tail it is gapNoiseMs itself.
 */
export function usualGapNoiseMs(run: readonly Sample[], toleratedMs = 0): number {
  return gapNoiseMs(run.filter(usualTrips(run, toleratedMs)));
}

/**
 * A run in sending order, and the refusal where the limit shut (undefined when none): the first one
 * that as many refusals as acceptances follow within the round trips' spread. A refusal that
 * overtook acceptances sent before it (jitter) is followed by acceptances alone: not the shut.
 */
function firstRefusal(run: readonly Sample[]): { sorted: Sample[]; refusal: Sample | undefined } {
  const sorted = [...run].sort((a, b) => a.sentMs - b.sentMs);
  const spreadMs = reorderMs(run);
  const refusal = sorted.find((r, i) => {
    if (r.answer !== 'limited') return false;
    const after = sorted.slice(i).filter((s) => s.sentMs <= r.sentMs + spreadMs);
    return after.filter((s) => s.answer === 'limited').length >= after.filter((s) => s.answer === 'accepted').length;
  });
  return { sorted, refusal };
}

/**
 * The accepted requests of a run that reached the limiter before it shut, as far as the round trips
 * tell: those sent before the shut, and those sent so soon after that they may have overtaken it.
 */
export function acceptedBeforeRefusal(run: readonly Sample[]): Sample[] {
  const { sorted, refusal } = firstRefusal(run);
  const untilMs = refusal ? refusal.sentMs + reorderMs(run) : Infinity;
  return sorted.filter((s) => s.answer === 'accepted' && s.sentMs < untilMs);
}

/**
 * The accepted requests sent before the limit shut: a bucket's burst, which keeps refilling after
 * the shut, so that acceptances sent after it may be refills rather than ones that overtook it.
 */
export function acceptedBeforeShut(run: readonly Sample[]): Sample[] {
  const { sorted, refusal } = firstRefusal(run);
  return sorted.filter((s) => s.answer === 'accepted' && (refusal === undefined || s.sentMs < refusal.sentMs));
}

/** The requests of a run sent before the limit shut (firstRefusal); undefined when it never shut. */
export function sentBeforeShut(run: readonly Sample[]): Sample[] | undefined {
  const { sorted, refusal } = firstRefusal(run);
  return refusal === undefined ? undefined : sorted.filter((s) => s.sentMs < refusal.sentMs);
}

/**
 * When a run stopped sending what it meant to: its first refusal's send time (what followed were
 * already on their way before its answer came back), else its last request's.
 */
export function sendingEndMs(run: readonly Sample[]): number | undefined {
  const { sorted, refusal } = firstRefusal(run);
  return refusal?.sentMs ?? sorted.at(-1)?.sentMs;
}
