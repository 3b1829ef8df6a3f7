// The pace a service took requests in at, which a queue in front of it (a starved host, a single
// worker) holds below the pace they were sent at: what its limiter met. Pure.

import { median } from '../toolkit/stats.js';
import type { Sample } from './types.js';

/**
 * The pace the service took `before` in at (a burst's requests, or a drain's), when a queue built
 * up in front of it: a starved host answers later and later through the burst, and a bucket
 * refills meanwhile (sent at 200/s, taken
 * in at about 114/s, a 50/s bucket of 50 admitted 89, not 66, and the history flagged an unchanged
 * service: CI land43). Between the middles of the first and last thirds of the requests, the
 * service took them in over the sends' time plus how much longer the last third waited than the
 * first, each third's wait its median: the answers' own span, first to last, read 164/s for 200
 * sent from two answers' jitter alone, and the history missed an injected change (CI land47).
 * Undefined under six requests (thirds of one say nothing) or when no time passed between the middles.
 */
export function intakeRps(before: readonly Sample[]): number | undefined {
  const third = Math.floor(before.length / 3);
  if (third < 2) return undefined;
  const sorted = [...before].sort((a, b) => a.sentMs - b.sentMs);
  const [first, last] = [sorted.slice(0, third), sorted.slice(-third)];
  const middle = (xs: readonly Sample[]) => median(xs.map((s) => s.sentMs));
  const waited = (xs: readonly Sample[]) => median(xs.map((s) => s.doneMs - s.sentMs));
  const sendsMs = middle(last) - middle(first);
  if (!(sendsMs > 0)) return undefined;
  const grewMs = Math.max(0, waited(last) - waited(first));
  return (sorted.length - third) / ((sendsMs + grewMs) / 1000);
}

/** Answers this much slower than the sends are a line, not one answer's jitter over a long run. */
const SLOWER = 0.98;

/**
 * The pace a long run of `samples` sent at `sentRps` reached the service at: the pace they were
 * answered at, first answer to last, when clearly slower (a service that holds them in a line takes
 * them in one turn apart), else `sentRps`. Over a burst or drain that met no limit, seconds of it,
 * one answer's jitter is nothing beside the span; over a short run it is not (intakeRps, above).
 */
export function takenRps(sentRps: number, samples: readonly Sample[]): number {
  const answered = answeredRps(samples) ?? Infinity;
  return answered < SLOWER * sentRps ? answered : sentRps;
}

/** The pace `samples` were answered at, first answer to last, req/s; undefined under two or with no time between. */
export function answeredRps(samples: readonly Sample[]): number | undefined {
  if (samples.length < 2) return undefined;
  const done = samples.map((s) => s.doneMs);
  const spanMs = Math.max(...done) - Math.min(...done);
  return spanMs > 0 ? ((samples.length - 1) * 1000) / spanMs : undefined;
}
