// When a drain that met no refusal has shown enough of a line to read its pace (queued-pace.ts),
// the rest of the drain adds nothing: it only waits in that line. A pacer of 20 req/s took the
// drain's whole 1,800 requests, 90 s, and one of 10 req/s the probe's whole budget, 125 s, before
// the search below the pace could begin (session 59). The drain now ends once the pace has been
// read over four times the answers a reading needs. A limit that refuses only after more requests
// than that (a quota behind the pacer) is then met by the search's rounds over the horizon, which
// the report states, or not at all, and then a limit on a longer window is said not tested.

import type { Sample } from '../types.js';
import { ownBusy } from './own-load.js';
import type { Probe } from './probe.js';
import { MIN_ANSWERS, queuedPaceOf } from './queued-pace.js';

/** Answers a drain reads its line's pace over before it may end on it. */
export const LINE_READ_ANSWERS = 4 * MIN_ANSWERS;

/** How many answers more between two readings: reading sorts the whole drain. */
const READ_EVERY = 25;

/**
 * A test for the drain's `done`: true once the drain's answers since `fromIndex` (of the probe's
 * samples) show a line's steady pace over LINE_READ_ANSWERS answers, read every READ_EVERY answers,
 * while this process was not busy (a busy machine's own line is not the service's: own-load.ts).
 */
export function lineReadTest(probe: Probe, fromIndex: number): () => boolean {
  let readAt = 0;
  let read = false;
  return () => {
    if (read) return true;
    const answered = probe.samples.length - fromIndex;
    if (answered < LINE_READ_ANSWERS || answered < readAt + READ_EVERY) return false;
    readAt = answered;
    const drain = probe.samples.slice(fromIndex).filter((s: Sample) => s.phase === 'drain');
    read = queuedPaceOf(drain, probe.askedRps) !== undefined && ownBusy(probe.ownLoad) === undefined;
    return read;
  };
}
