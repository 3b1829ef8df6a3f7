// Whether a window's edges stay put on the clock, asked with one burst that needs no precise
// timing: from idle, the limit's requests sent until the first refusal, started a little before
// where the clock's next edge would be. A fixed window on the clock starts its count afresh at that
// edge, so more than its limit passes before the first refusal; a sliding log, or a window opened
// by the burst's first request, lets no more than its limit through within a period or window of
// that request, however the burst is timed. Only a "yes" proves anything (a burst sent late may
// miss the edge): it is the edge trial's second chance (window-edges.ts) when a busy machine sends
// too slowly for that trial's clump and ping to fit a window, which on the virtual clock up to
// 20 ms late per timer was every time.

import { WITHIN_PERIOD, type Bracket } from '../identify.js';
import type { Sample } from '../types.js';
import type { Probe } from './probe.js';
import { countUntilRefused } from './recover.js';
import { pingAt } from './ping.js';

/** More than this share of what passed from idle before the first refusal: a count that started afresh (a limit read a few short allowed for). */
const OVER_LIMIT = 1.1;
/** Of the burst, about what share goes before the clock's edge. */
const BEFORE_EDGE = 1 / 3;

/**
 * The evidence that the edges are the clock's, or undefined when the burst did not show it.
 * `length`: the window's (or period's) bracket; `clock`: where the edges lie if they are fixed;
 * `sendMs`: how long the limit takes to send on this machine; `lastSentMs`: the probe's last
 * request; `comebackMs`: from the drain's first request to its comeback (a log's period at least);
 * `fromIdle`: the most the probe saw pass from idle (the limit, or the drain's count if more).
 */
export async function straddleTrial(
  probe: Probe,
  limit: number,
  o: {
    length: Bracket;
    clock: { edgeMs: number; windowMs: number };
    sendMs: number;
    lastSentMs: number;
    comebackMs: number;
    fromIdle: number;
  },
): Promise<string | undefined> {
  const { edgeMs, windowMs } = o.clock;
  // Every kind of window of that length is empty a little over one of it after the last request.
  const notBeforeMs = o.lastSentMs + 1.03 * Math.max(o.length.hi, windowMs);
  const leadMs = BEFORE_EDGE * o.sendMs;
  const nextEdgeMs = edgeMs + Math.ceil((notBeforeMs + leadMs - edgeMs) / windowMs) * windowMs;
  if (nextEdgeMs + o.sendMs > probe.maxDurationMs) return undefined;
  // The burst's first request, then the rest at once: pingAt waits for the moment, burstRun paces.
  const first = await pingAt(probe, 'edges', nextEdgeMs - leadMs);
  if (first?.answer !== 'accepted') return undefined;
  const { samples } = await probe.burstRun('edges', 2 * limit + 5);
  const afresh = startedAfresh([first, ...samples], o.fromIdle, Math.min(o.length.lo, o.comebackMs));
  if (!afresh) return undefined;
  return `from idle, a burst started ${fmt(leadMs)} before where the clock's edge would be: ${afresh.passed} passed before the first refusal within ${fmt(afresh.spanMs)}, more than the ${o.fromIdle} seen from idle: its count started afresh mid-burst, at an edge on the clock (a sliding log, or a window opened by the first request, lets no more than its limit through within a window of it)`;
}

/**
 * A run from idle that passed well over `fromIdle` (the most the probe saw pass from idle) before
 * its first refusal, all of it sent within less than `periodAtLeastMs` of its first request: how
 * many passed and over how long; undefined when it did not. No sliding log lets that through, nor
 * a window opened by the run's first request: the count started afresh at an edge of its own.
 */
export function startedAfresh(
  run: readonly Sample[],
  fromIdle: number,
  periodAtLeastMs: number,
): { passed: number; spanMs: number } | undefined {
  const passed = countUntilRefused(run);
  const sent = run.map((s) => s.sentMs).sort((a, b) => a - b);
  if (sent.length === 0) return undefined;
  const spanMs = sent[Math.min(passed, sent.length) - 1]! - sent[0]!;
  return passed > OVER_LIMIT * fromIdle && spanMs < WITHIN_PERIOD * periodAtLeastMs ? { passed, spanMs } : undefined;
}

const fmt = (ms: number) => `${(ms / 1000).toFixed(3)} s`;
