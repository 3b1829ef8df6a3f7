// A drain that admitted nothing: the probe's set-up requests (a token, the validate method) used up
// a small limit (nginx `burst=1` holds two) before it began, or what came before the probe spent a
// limit of any size (`run`'s and `cutover`'s checks drain it seconds before; another client of the
// same credentials). Without a drain there is no shape to read and no refill timed, and the stream
// would pilot at max_rps, where most requests are refused. So: one ping at a time until the limit
// lets one through (a first refill, timed), a wait that refills a limit of a few requests at that
// pace (as much of it as the budget allows), then a drain again, from idle, until its first refusal.

import { drainFigures, firstGapMs, type DrainFigures } from './recover.js';
import { drainAt, longestWaitMs, pingUntilAccepted } from './ping.js';
import type { Probe } from './probe.js';
import { drainCapOf } from './stream.js';
import type { Sample } from '../types.js';

/** Refills the wait allows for: the set-up requests a limit may hold, with room to spare. */
const REFILLS = 8;
/** The drain a small limit needs, for the time it takes: its room and the set-up requests, with some to spare. */
const SMALL_DRAIN = 3 * REFILLS + 20;
/** The share of the probe's time cap a wait and a small drain after it may take. */
const WAIT_SHARE = 1 / 4;

export async function drainAgainFromIdle(probe: Probe, refusal: Sample): Promise<DrainFigures | undefined> {
  // The first drain and these pings met a limit spent before the probe: labelled so, every reader
  // of the drain's samples sees the drain from idle alone (a window of 100 per 2 s spent by the
  // checks read "a bucket at 30.19 req/s" off the first ping passed and the drain 2.6 s later).
  for (const s of probe.samples) if (s.phase === 'drain') s.phase = 'shut';
  const recovery = await pingUntilAccepted(probe, 'shut', refusal.sentMs, firstGapMs(probe), 1.5);
  if (!recovery.accepted) return undefined;
  const paceMs = recovery.accepted.sentMs - refusal.sentMs;
  const fromMs = probe.elapsed();
  // As long as the budget allows, when that is less: a window came back whole at its edge, and a
  // drain anywhere in it drains it (a minute's window of 120 spent before the probe, back after
  // 10 s, wanted an 80 s wait and got none: "not identified"). A bucket's burst read from a shorter
  // wait is low; the burst from idle is measured again later (idle-burst.ts).
  const roomMs = longestWaitMs(probe, fromMs, SMALL_DRAIN, WAIT_SHARE);
  if (roomMs < 0) return undefined;
  const waitMs = Math.min(Math.max(REFILLS * paceMs, 300), roomMs);
  // Until the first refusal, as the stream's drain: the limit may be any size. Capped at a small
  // limit's room, the drain of a sliding log of 50 per 1 s spent by the checks ended unrefused
  // after 45, and the probe went on with no drain at all: "not identified".
  const samples = await drainAt(probe, 'drain', fromMs + waitMs, drainCapOf(probe.maxRequests));
  // Nothing but the wait preceded it: what passed is the whole limit.
  return samples && drainFigures(samples);
}
