// The wait a bare Retry-After asks for, watched. A fixed window's library says the seconds to its
// edge, and nothing passes before it; a sliding-window counter that says a whole window whatever is
// left of it (go-chi/httprate, the emulator's `--limiter counter`) lets the drained client back at
// its first edge, anywhere in that wait, and then one request every window / limit, on a line from
// that edge (probe/counter-ramp.ts). Waited out unwatched, the edge and most of the window after it
// were gone when the first request went: a counter of 20 per 10 s (Retry-After: 10) was first asked
// 8.8 s after the drain and not identified at 7 of 8 phases of its window. Pings with gaps growing
// by half, as the recovery sends them (recover.ts firstRecovery), cost a fixed window a dozen
// refusals before its edge, and find a counter's edge to within a third of the time since the drain.

import type { Bracket } from '../identify.js';
import type { Sample } from '../types.js';
import { seenMs } from './arrival.js';
import { pingUntilAccepted } from './ping.js';
import type { Probe } from './probe.js';
import { firstGapMs } from './recover.js';

/** Each gap this much longer than the last: the edge to within a third of the time since the drain. */
const GROWTH = 1.5;

export interface BackBeforeSaid {
  /** The first edge after the drain, on the times the limiter saw: the last refused ping (or the drain's refusal), the first let through. */
  edge: Bracket;
  /** When the first request passed, ms after the drain's first refusal. */
  afterMs: number;
}

/**
 * Pings from the drain's first refusal until one would go at `untilMs` or later (where the search
 * at the said reset starts): the edge when one passed before it, else undefined (nothing passed:
 * the said reset stands to be tested).
 */
export async function backBeforeSaid(probe: Probe, untilMs: number): Promise<BackBeforeSaid | undefined> {
  const refusal = firstDrainRefusal(probe.samples);
  if (!refusal) return undefined;
  const watched = await pingUntilAccepted(probe, 'advertised', refusal.sentMs, firstGapMs(probe), (gap, last) =>
    last.sentMs + GROWTH * gap < untilMs ? GROWTH * gap : undefined,
  );
  if (!watched.accepted) return undefined;
  // Filled again at once: what passes is what a counter freed since its edge, which its ramp reads
  // its rough step off; and the next request passes on its line, not after a wait nothing watched.
  await probe.burstRun('advertised', 2 * drainLimit(probe.samples) + 5);
  return {
    edge: { lo: seenMs(watched.lastRefused ?? refusal), hi: seenMs(watched.accepted) },
    afterMs: watched.accepted.sentMs - refusal.sentMs,
  };
}

const drainLimit = (samples: readonly Sample[]): number =>
  samples.filter((s) => s.phase === 'drain' && s.answer === 'accepted').length;

function firstDrainRefusal(samples: readonly Sample[]): Sample | undefined {
  return samples
    .filter((s) => s.phase === 'drain' && s.answer === 'limited')
    .reduce<Sample | undefined>((a, b) => (a === undefined || b.sentMs < a.sentMs ? b : a), undefined);
}
