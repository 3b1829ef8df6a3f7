// Evidence before a claim: no limiter kind, period or limit is reported from fewer refusals than
// the method that read it needs. Every identification path reads its figures off the moments the
// limit shut (a refusal after requests had passed) and came back; a limiter that shut once or twice
// and then let everything through (a refusal that was a hiccup, a limit lifted mid-probe) leaves
// the paths reading edges and rates into the probe's own pacing. Pure: the verdict is a function of
// the samples, checked once in discover.ts whatever path the probe took.

import type { LimiterModel } from './limiters/index.js';
import type { Sample } from './types.js';

/**
 * The fewest times the limit must have shut, per kind, for its figures to rest on what it did:
 * - bucket: the drain, then the recovery phase's three timed refills (recover.ts,
 *   TRICKLE_RECOVERIES) or the pilot's four comebacks (stream-reducer.ts, PILOT_POINTS);
 * - fixed window: the drain, then two edges read each between a refusal and the acceptance after
 *   it (window-edges.ts): two edges are the least that give a window's length;
 * - sliding window: the drain, then the limit shutting again at least twice (a comeback alone is
 *   a recovery, not a period: sliding-period.ts times the period between shuts).
 * Every correct identification of the virtual-clock suite (test/ratelimit/identify-virtual.test.ts)
 * saw at least 4, most over 6.
 */
export const MIN_SHUTS: Record<LimiterModel['kind'], number> = {
  bucket: 4,
  'fixed-window': 3,
  'sliding-window': 3,
  'sliding-counter': 3,
  // A queue refuses as a bucket does, beyond its room: its rate is read the same way.
  queue: 4,
};

/** How the verdict's sentence starts, for whoever must tell it from the probe's other notes. */
export const NOT_IDENTIFIED = 'not identified: ';

export interface Refusals {
  /** Refused answers of the configured client. */
  refused: number;
  /** Times the limit shut: runs of refusals (in sending order) with acceptances between them. */
  shuts: number;
  /** When the first and last refusals were sent, ms since the probe started; null when none. */
  firstMs: number | null;
  lastMs: number | null;
  /** Requests sent after the last refusal, and over how long (to the probe's last request), ms. */
  sentAfter: number;
  quietMs: number;
}

export function refusalsOf(samples: readonly Sample[]): Refusals {
  const own = samples.filter((s) => s.client === 'primary' && s.answer !== 'error').sort((a, b) => a.sentMs - b.sentMs);
  let shuts = 0;
  let refused = 0;
  let previousRefused = false;
  let lastIndex = -1;
  own.forEach((s, i) => {
    const isRefused = s.answer === 'limited';
    if (isRefused) {
      refused += 1;
      lastIndex = i;
      if (!previousRefused) shuts += 1;
    }
    previousRefused = isRefused;
  });
  const first = own.find((s) => s.answer === 'limited');
  const last = lastIndex >= 0 ? own[lastIndex]! : undefined;
  const end = own.at(-1)?.sentMs ?? 0;
  return {
    refused,
    shuts,
    firstMs: first?.sentMs ?? null,
    lastMs: last?.sentMs ?? null,
    sentAfter: lastIndex >= 0 ? own.length - 1 - lastIndex : own.length,
    quietMs: last ? end - last.sentMs : 0,
  };
}

/**
 * Why the figures of a `kind` cannot be claimed from what the limit did, or null when they can.
 * The sentence gives what was seen, so a reader can judge the limiter without the claim.
 */
export function tooFewRefusals(kind: LimiterModel['kind'], r: Refusals): string | null {
  const needed = MIN_SHUTS[kind];
  if (r.shuts >= needed) return null;
  const s = (ms: number | null) => (ms === null ? '?' : (ms / 1000).toFixed(2));
  const when = r.firstMs === r.lastMs ? `at ${s(r.firstMs)} s` : `between ${s(r.firstMs)} s and ${s(r.lastMs)} s`;
  return (
    `${NOT_IDENTIFIED}the limit shut ${r.shuts} time${r.shuts === 1 ? '' : 's'} (${r.refused} refused ${when}), then let the ${r.sentAfter} requests of the next ${s(r.quietMs)} s through; ` +
    `reading a ${kind.replace('-', ' ')} takes it shutting at least ${needed} times, so no kind, limit or rate is claimed (a limit that stopped refusing, or refusals that were not the limit's)`
  );
}
