// A drain that admitted nothing: the probe's set-up requests (a token, the validate method) used up
// a small limit (nginx `burst=1` holds two) before it began. Without a drain there is no shape to
// read and no refill timed, and the stream would pilot at max_rps, where most requests are refused.
// So: one ping at a time until the limit lets one through (a first refill, timed), a wait that
// refills a limit of a few requests at that pace, then a drain again, from idle.

import { drainFigures, firstGapMs, type DrainFigures } from './recover.js';
import { drainAt, drainFits, pingUntilAccepted } from './ping.js';
import type { Probe } from './probe.js';
import type { Sample } from '../types.js';

/** Refills the wait allows for: the set-up requests a limit may hold, with room to spare. */
const REFILLS = 8;

export async function drainAgainFromIdle(probe: Probe, refusal: Sample): Promise<DrainFigures | undefined> {
  const recovery = await pingUntilAccepted(probe, 'drain', refusal.sentMs, firstGapMs(probe), 1.5);
  if (!recovery.accepted) return undefined;
  const paceMs = recovery.accepted.sentMs - refusal.sentMs;
  const waitMs = Math.max(REFILLS * paceMs, 300);
  const fromMs = probe.elapsed();
  if (!drainFits(probe, fromMs, waitMs, 3 * REFILLS + 20, 1 / 4)) return undefined;
  const samples = await drainAt(probe, 'drain', fromMs + waitMs, 3 * REFILLS + 20);
  // Nothing but the wait preceded it: what passed is the whole limit.
  return samples && drainFigures(samples);
}
