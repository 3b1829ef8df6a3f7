// A bucket keeps refilling after it shuts. Across a network ~100 ms away, the drain keeps a round
// trip's worth of requests in flight after its first refusal (20 at 200 req/s): a bucket refilling
// one every 1/rate lets one of them through for each refill that falls among their arrivals, so
// none let through over longer than a refill is no bucket at that rate. On loopback the tail is a
// few ms long and says nothing. This is what tells a sliding-window counter, shut until its next
// edge, from the bucket that pings waiting a round trip for each answer made of it (go-chi/httprate
// 50 per 1 s read as a bucket 2–17 % slow).

import { round } from '../estimators.js';
import type { Sample } from '../types.js';
import { reorderMs, sendingEndMs } from './arrival.js';

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
