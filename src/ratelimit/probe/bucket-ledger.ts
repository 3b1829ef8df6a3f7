// A bucket keeps a ledger: between two moments it was empty (two refusals), it admitted exactly
// what it refilled, give or take a token; from a refusal on, never more than it refilled; and up to
// a refusal, at least what it refilled, unless it filled to its burst meanwhile. One rate must
// square every pair of refusals of the whole probe. A sliding-window counter whose drain straddled
// one of its edges on the clock breaks it: right after the drain it frees the drained window's
// weight steadily (a bucket's trickle to the drain's tail and the stream, the silent 300 per 10 s
// counter across toxiproxy read as a bucket 3–60 % slow), and faster after its next edge.
//
// Each request's arrival is known only to within a leg's variation of its sending (at most the
// round trips' spread, arrival.ts): every bound below is widened by it, in time and in count.

import { round } from '../estimators.js';
import type { Sample } from '../types.js';
import { answeredBeforeSecond, reorderMs, sendingEndMs } from './arrival.js';

/** A reading within this share of the truth is right (issue 21's goal): only beyond it is a rate refuted. */
const READING_GOAL = 0.02;
/** Pairs of refusals closer than this say little next to the arrivals' spread. */
const MIN_PAIR_MS = 1000;

/**
 * Why no bucket at any rate squares the probe's refusals with its acceptances, or undefined when
 * one may. `samples`: every request of the probe so far (the drain's first); `rateRps`: the rate the
 * stream read, good to ± `precision` (a share). Rates up to twice it are tried: a bucket faster still would have admitted the stream,
 * offered at a quarter over that rate, all but whole.
 */
export function ledgerRulesOutBucket(samples: readonly Sample[], rateRps: number, precision = 0): string | undefined {
  const answered = answeredBeforeSecond(samples);
  const drain = answered.filter((s) => s.phase === 'drain');
  const shutMs = sendingEndMs(drain);
  const firstMs = drain[0]?.sentMs;
  if (rateRps <= 0 || shutMs === undefined || firstMs === undefined) return undefined;
  const spreadMs = reorderMs(answered);
  const accepted = answered.filter((s) => s.answer === 'accepted').map((s) => s.sentMs);
  const refusals = answered.filter((s) => s.answer === 'limited').map((s) => s.sentMs);
  const ledger: Ledger = { accepted, refusals, spreadMs };
  // Empty at a refusal, a bucket refills at most rate × span (+ the token it may have held) by any
  // later acceptance: the fastest passage from a refusal on is the slowest bucket there can be.
  let slowest = 0;
  for (const a of refusals)
    for (let k = countAtOrBefore(accepted, a + MIN_PAIR_MS); k < accepted.length; k++) {
      const t = accepted[k]!;
      slowest = Math.max(slowest, (between(ledger, a + spreadMs, t + 1) - 1) / ((t - a + 2 * spreadMs) / 1000));
    }
  // At rate r its burst is at least what the drain admitted less what r refilled meanwhile.
  const drained = between(ledger, firstMs - 1, shutMs - spreadMs);
  const drainS = (shutMs - firstMs + 2 * spreadMs) / 1000;
  // Faster than the rate read, beyond both its precision and the 2 % a reading is held to: no
  // bucket near that rate, whatever the limiter is (a busy machine's drain, slowed to a third,
  // straddled a counter's edge, and a stream never refused again read 16.9 req/s where 17.8 had
  // passed). Closer, a bucket at the slowest rate may still be the one read a little slow.
  if (slowest > rateRps * (1 + Math.max(precision, READING_GOAL)))
    return `from a refusal on, ${round(slowest, 2)} req/s passed at least: more than a bucket at the ${round(rateRps, 2)} req/s the stream read refills`;
  for (let rate = Math.max(slowest, 0.01); rate <= 2 * rateRps; rate *= RATE_STEP)
    if (!tooFewBetweenRefusals(ledger, rate, Math.max(1, drained - rate * drainS - 1))) return undefined;
  return `no bucket squares the refusals with what passed between them: from a refusal on, ${round(slowest, 2)} req/s passed at least, yet fewer than any bucket that fast (up to twice the ${round(rateRps, 2)} req/s the stream read) refills passed between refusals elsewhere, too few for it to have filled up to the burst the drain's ${drained} acceptances imply: not a bucket`;
}

interface Ledger {
  /** Send times, sorted. */
  accepted: number[];
  refusals: number[];
  spreadMs: number;
}

/** Steps of the rates tried: 0.5 %, finer than any rate the probe reports. */
const RATE_STEP = 1.005;

/**
 * A bucket at `rate` with a burst of at least `burstAtLeast`, emptied at each refusal, would have
 * admitted more than passed between two of them, where it cannot have filled up in between.
 */
function tooFewBetweenRefusals(ledger: Ledger, rate: number, burstAtLeast: number): boolean {
  const { refusals, spreadMs } = ledger;
  let chainStart = 0;
  for (let j = 1; j < refusals.length; j++) {
    if (fillsUpBetween(ledger, refusals[j - 1]!, refusals[j]!, rate, burstAtLeast)) {
      chainStart = j;
      continue;
    }
    // Not full anywhere since refusals[chainStart]: the levels telescope, so from any refusal of
    // the chain it admitted its refill over the span less the token it may have kept.
    const b = refusals[j]!;
    for (let i = chainStart; i < j; i++) {
      const a = refusals[i]!;
      if (b - a < MIN_PAIR_MS) break;
      if (between(ledger, a - spreadMs, b + spreadMs) + 1 < (rate * (b - a - 2 * spreadMs)) / 1000) return true;
    }
  }
  return false;
}

/** Whether a bucket at `rate`, empty at the refusal `a`, may have held `burst` tokens before the refusal `b`. */
function fillsUpBetween(ledger: Ledger, a: number, b: number, rate: number, burst: number): boolean {
  const { accepted, spreadMs } = ledger;
  // Its level just before each acceptance that surely came after a, and at b, at most.
  let taken = 0;
  for (let k = countAtOrBefore(accepted, a + spreadMs); k < accepted.length && accepted[k]! < b; k++) {
    if (1 + (rate * (accepted[k]! - a + 2 * spreadMs)) / 1000 - taken >= burst) return true;
    taken++;
  }
  return 1 + (rate * (b - a + 2 * spreadMs)) / 1000 - taken >= burst;
}

/** Accepted requests sent in (fromMs, toMs). */
const between = ({ accepted }: Ledger, fromMs: number, toMs: number): number =>
  countBefore(accepted, toMs) - countAtOrBefore(accepted, fromMs);

/** How many of the sorted times are below `ms`. */
function countBefore(sorted: readonly number[], ms: number): number {
  let [lo, hi] = [0, sorted.length];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** How many of the sorted times are at or below `ms`. */
function countAtOrBefore(sorted: readonly number[], ms: number): number {
  let [lo, hi] = [0, sorted.length];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! <= ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Why a bucket whose burst was not measured from idle cannot be told from a window that frees what
 * it held steadily, or undefined when it can. Such a counter, its drain astride an edge, frees the
 * part drained before the edge one request every window / part, a bucket's trickle, until its next
 * edge: at most the drained count over that rate after the drain, the refill of a bucket with that
 * burst. Watched for less, the ledger above has nothing to break (the silent 300 per 10 s counter
 * through real toxiproxy, its edge 0.5 s into the probe, read as a bucket 6.3–9.7 req/s, burst 295:
 * the probe ended 11 s after its drain, the bucket's refill 47 s).
 */
export function refillUnwatched(samples: readonly Sample[], rateRps: number, burst: number): string | undefined {
  const drain = samples.filter((s) => s.phase === 'drain');
  const shutMs = sendingEndMs(drain);
  const lastMs = Math.max(...samples.map((s) => s.sentMs));
  if (shutMs === undefined || rateRps <= 0) return undefined;
  const refillMs = (1000 * burst) / rateRps;
  const watchedMs = lastMs - shutMs;
  if (watchedMs >= refillMs) return undefined;
  return `a bucket of ${burst} at ${round(rateRps, 2)} req/s refills over ${round(refillMs / 1000, 1)} s, longer than the ${round(watchedMs / 1000, 1)} s the probe watched it after the drain, and its burst was not measured from idle: a window that frees what it held one request at a time until its next edge (a sliding-window counter whose drain straddled an edge) reads the same`;
}
