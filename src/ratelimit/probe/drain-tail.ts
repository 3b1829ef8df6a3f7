// A bucket keeps refilling after it shuts. Across a network ~100 ms away, the drain keeps a round
// trip's worth of requests in flight after its first refusal (20 at 200 req/s): a bucket refilling
// one every 1/rate lets one of them through for each refill that falls among their arrivals, so
// none let through over longer than a refill is no bucket at that rate. On loopback the tail is a
// few ms long and says nothing. This is what tells a sliding-window counter, shut until its next
// edge, from the bucket that pings waiting a round trip for each answer made of it (go-chi/httprate
// 50 per 1 s read as a bucket 2–17 % slow).

import { round } from '../estimators.js';
import type { Sample } from '../types.js';
import { reorderMs, seenGapNoiseMs, sendingEndMs } from './arrival.js';

/**
 * Why what followed the drain's first refusal rules out a bucket refilling at `rateRps`, or
 * undefined when it does not. `samples`: every request of the probe so far, the drain's first.
 */
export function tailRulesOutBucket(samples: readonly Sample[], rateRps: number): string | undefined {
  const drain = samples.filter((s) => s.phase === 'drain');
  const shutMs = sendingEndMs(drain);
  const shut = drain.find((s) => s.sentMs === shutMs && s.answer === 'limited');
  if (rateRps <= 0 || !shut) return undefined;
  // Sent a spread of the round trips after the shut (one sent sooner may have overtaken it), a
  // request reached the limiter after every one sent before that boundary less another spread:
  // a refill between then and the last refused one's arrival would have let one of them through.
  const spreadMs = reorderMs(samples);
  const boundaryMs = shut.sentMs + spreadMs;
  const after = samples
    .filter((s) => s.sentMs > boundaryMs && s.answer !== 'error')
    .sort((a, b) => a.sentMs - b.sentMs);
  const firstBack = after.findIndex((s) => s.answer === 'accepted');
  const refused = firstBack < 0 ? after : after.slice(0, firstBack);
  if (refused.length === 0) return undefined;
  const shutForMs = refused.at(-1)!.sentMs - boundaryMs - spreadMs;
  const refillMs = 1000 / rateRps;
  if (shutForMs < refillMs) return undefined;
  return `after the drain shut, ${refused.length} requests in a row reaching the limiter over at least ${Math.round(shutForMs)} ms were refused, where a bucket at ${round(rateRps, 2)} req/s refills one every ${Math.round(refillMs)} ms: shut until an edge, not a bucket`;
}

/**
 * The same for any two refusals of the probe, not only the drain's tail: nothing let through
 * between two refused requests that reached the limiter more than two refills apart at `rateRps`
 * rules out a bucket at that rate or faster (refused, a bucket holds less than a token; a refill
 * later it holds one). Each request is placed by its own round trip, not by the spread of all of
 * them: a stalled process hands some answers hundreds of ms late, and their spread made the drain's
 * tail say nothing (a fixed window 50 per 1 s through toxiproxy on a loaded machine read as a bucket
 * 49.92 req/s, burst 38; test/ratelimit/stalled-window-virtual.test.ts). A request reached the
 * limiter at least its one-way minimum after it was sent, and at most that plus what its round
 * trip took beyond the fastest one (`noiseMs` more, for the fastest trip's own legs). Only pairs
 * that no request which may have passed could have come between: a bucket that filled to its
 * burst in between may be emptied again by what passed, whatever the refill.
 */
export function refusalGapRulesOutBucket(samples: readonly Sample[], rateRps: number): string | undefined {
  // Up to the scope trial: the second client's requests take from a shared bucket, not from one of its own.
  const secondFromMs = Math.min(...samples.filter((s) => s.client === 'second').map((s) => s.sentMs));
  const answered = samples
    .filter((s) => s.client === 'primary' && s.sentMs < secondFromMs && s.answer !== 'error')
    .sort((a, b) => a.sentMs - b.sentMs);
  if (rateRps <= 0 || answered.length < 2) return undefined;
  const fastestMs = Math.min(...answered.map((s) => s.doneMs - s.sentMs));
  const noiseMs = seenGapNoiseMs(answered);
  // How much later than its earliest a request may have reached the limiter.
  const lateMs = (s: Sample) => s.doneMs - s.sentMs - fastestMs + noiseMs;
  // Anything not refused may have taken a token, a transport error included.
  const passed = samples.filter((s) => s.sentMs < secondFromMs && s.answer !== 'limited');
  const refused = answered.filter((s) => s.answer === 'limited');
  const refillMs = 1000 / rateRps;
  let widest: { apartMs: number; from: Sample; to: Sample } | undefined;
  for (const [i, a] of refused.entries()) {
    // What may have reached the limiter after `a`, by when it was sent.
    const after = passed.filter((c) => c.sentMs + lateMs(c) > a.sentMs).map((c) => c.sentMs);
    const firstAfterMs = after.length === 0 ? Infinity : Math.min(...after);
    for (const b of refused.slice(i + 1)) {
      // Past the first one that may have passed after `a`, something may have come between.
      if (firstAfterMs < b.sentMs + lateMs(b)) break;
      const apartMs = b.sentMs - a.sentMs - lateMs(a);
      if (apartMs > (widest?.apartMs ?? 0)) widest = { apartMs, from: a, to: b };
    }
  }
  if (!widest || widest.apartMs <= SHUT_REFILLS * refillMs) return undefined;
  const { apartMs, from, to } = widest;
  return `two requests sent ${Math.round(to.sentMs - from.sentMs)} ms apart reached the limiter at least ${Math.round(apartMs)} ms apart, both refused, nothing let through between them, where a bucket at ${round(rateRps, 2)} req/s refills one every ${Math.round(refillMs)} ms: shut until an edge, not a bucket`;
}

/** Refills a shut must outlast to rule a bucket out: a rate read even half too fast still squares with one. */
const SHUT_REFILLS = 2;

/** Singles a tail must show before they rule out a window that resets (TAIL_SINGLES of them). */
export const TAIL_SINGLES = 3;

/**
 * Requests the limit let through one at a time, each between two refusals, after the drain's first
 * refusal (`refusalMs`) and before the comeback (`comebackMs`), in sending order: a bucket refilling
 * does that while the drain's tail still runs; a window that resets lets none through until its
 * edge and then a run of them (its reset), a sliding log a run as its slots free. Across a network
 * a round trip of the tail is in flight after the refusal: golang.org/x/time/rate 50/s, burst 10,
 * let one in every three or four through (CI land96, land97), and the comeback a round trip late
 * found it refilled whole, a window's mark.
 */
export function tailSingles(samples: readonly Sample[], refusalMs: number, comebackMs: number): number {
  const tail = samples
    .filter((s) => s.client === 'primary' && s.sentMs > refusalMs && s.sentMs < comebackMs && s.answer !== 'error')
    .sort((a, b) => a.sentMs - b.sentMs);
  return tail.filter(
    (s, i) => s.answer === 'accepted' && tail[i - 1]?.answer === 'limited' && tail[i + 1]?.answer === 'limited',
  ).length;
}
