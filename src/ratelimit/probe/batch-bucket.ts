// Telling a bucket refilled by a timer in whole batches (Envoy's token_bucket: max_tokens,
// tokens_per_fill, fill_interval) from the fixed window on the clock it looks like. Drained, both
// give a whole batch back at each tick of the clock and nothing between, so the edge walk reads
// "fixed window, batch per interval", its rate exact. They differ from idle: a window never lets
// more than its limit through between two edges, a bucket saves batches up to its capacity and
// lets all of it through at once (50 every 1 s, max_tokens 100: a burst of 100, read as 50 before).
//
// The drain from idle already says which, when it fell between two edges: more than the limit
// passed there → a bucket, its capacity what passed. A drain that straddled an edge proves nothing
// (a window lets its limit through on each side), so then a clump sent just after the second edge
// after the last request: a bucket has two batches by then, a window only its limit.

import type { BucketModel, FixedWindowModel } from '../limiters/index.js';
import { drainAt, drainFits } from './ping.js';
import type { Probe } from './probe.js';
import type { DrainFigures } from './recover.js';
import { countUntilRefused } from './recover.js';
import { lastSentMs } from './counter-edge.js';
import { fastestTripMs, latestReachedMs } from './arrival.js';
import type { Sample } from '../types.js';

/** Edges are known to about 1 % of a window (window-edges.ts): a drain this close to one may straddle it. */
const EDGE_MARGIN = 0.02;
/** Where the clump goes after an edge at the earliest: past the edge's uncertainty, with most of the window left. */
const CLUMP_AFTER_EDGE = 0.05;

export interface BatchFindings {
  /** A bucket refilled in batches, or null: the fixed window stands (unless `neither`). */
  model: (BucketModel & { fill_interval_s: number }) | null;
  evidence: string | null;
  /** Neither the fixed window nor a bucket: why (the limiter is then not identified). */
  neither?: string;
}

/** Only for a fixed window with edges on the clock; undefined when nothing could be told (no budget, a clump across an edge). */
export async function batchBucketPhase(
  probe: Probe,
  window: FixedWindowModel,
  drain: DrainFigures,
): Promise<BatchFindings | undefined> {
  const windowMs = window.window_s * 1000;
  const offsetMs = edgeOffsetMs(probe, window);
  const edgeIndex = (ms: number) => Math.floor((ms - offsetMs) / windowMs);
  const straddles = (fromMs: number, toMs: number) =>
    edgeIndex(toMs + EDGE_MARGIN * windowMs) !== edgeIndex(fromMs - EDGE_MARGIN * windowMs);
  // Judged on the drain's own requests (set-up requests sent before an edge are a window's too),
  // the capacity read with the set-up requests sent just before it (recover.ts): the real
  // Envoy-like bucket, 100 tokens, let 98 of the drain through. Until the last of them can have
  // reached the limiter, not until it was sent: behind toxiproxy (CI land33) a drain's requests on
  // connections opened for them reached it ~100 ms after their send times, the window's edge
  // among them, and 64 across an edge were read as a bucket's capacity.
  // Its acceptances may have overtaken the refusal (recover.ts counts them): up to the later of the two.
  const drainRun = probe.samples.filter((s) => s.sentMs >= drain.firstMs);
  if (!straddles(drain.firstMs, reachedByMs(probe, drainRun, Math.max(drain.lastMs, drain.refusal.sentMs))))
    return verdict(window, drain.accepted, 'the drain from idle', drain.limit);

  // Two ticks after the last request give a bucket two batches, more than a window's limit (a
  // window, so, costs one or two windows of waiting and one clump); when the clump took all of
  // them, the bucket may hold more: as many ticks again as the drain passed batches, and one more.
  const first = await clumpAfterEdge(probe, window, edgeIndex(lastSentMs(probe.samples)) + 2, drain, straddles);
  if (first === undefined || first <= window.limit + 1)
    return first === undefined ? undefined : verdict(window, first, 'a clump from idle');
  if (first < 2 * window.limit - 1) return confirmedCapacity(probe, window, first, drain, straddles, edgeIndex);
  const refills = Math.ceil(drain.limit / window.limit) + 1;
  const full = await clumpAfterEdge(probe, window, edgeIndex(lastSentMs(probe.samples)) + refills, drain, straddles);
  return verdict(window, full ?? first, 'a clump from idle');
}

/**
 * More than the limit but under two batches after two ticks: a bucket that holds less than two, or
 * no fixed window at all. A sliding-window counter whose edges the walk misread (httprate 50 per
 * 1 s as 50 per 0.787 s, one phase in 237) lets a clump that straddles its own edge through past
 * its limit; a bucket lets its capacity through wherever the clump falls. So a second clump, just
 * after an edge this time, must pass as many, within one; if not, neither is what the edges said.
 */
async function confirmedCapacity(
  probe: Probe,
  window: FixedWindowModel,
  first: number,
  drain: DrainFigures,
  straddles: (fromMs: number, toMs: number) => boolean,
  edgeIndex: (ms: number) => number,
): Promise<BatchFindings | undefined> {
  const index = edgeIndex(lastSentMs(probe.samples)) + 2;
  const again = await clumpAfterEdge(probe, window, index, drain, straddles, CLUMP_AFTER_EDGE);
  if (again === undefined) return undefined;
  if (Math.abs(again - first) <= 1) return verdict(window, Math.min(first, again), 'a clump from idle');
  return {
    model: null,
    evidence: null,
    neither: `a clump from idle let ${first} requests through between two edges, another just after an edge ${again}: not a fixed window's ${window.limit} each time, nor a bucket's capacity wherever it falls`,
  };
}

/**
 * Requests a clump let through, sent just after the edge `index` (or the next one, if it has
 * passed), in the middle of the window unless `afterEdgeShare` says where; undefined when it cannot tell.
 */
async function clumpAfterEdge(
  probe: Probe,
  window: FixedWindowModel,
  index: number,
  drain: DrainFigures,
  straddles: (fromMs: number, toMs: number) => boolean,
  afterEdgeShare?: number,
): Promise<number | undefined> {
  const windowMs = window.window_s * 1000;
  const offsetMs = edgeOffsetMs(probe, window);
  const nextIndex = Math.max(index, Math.floor((probe.elapsed() - offsetMs) / windowMs) + 1);
  const cap = drain.limit + window.limit + 5;
  // A window's limit at max_rps in the middle of the window, as far from both edges as it can be
  // (edges extrapolated a few windows on may be off by more than a twentieth: a clump that
  // straddled one read a window's two limits as a bucket's saved batches), unless a bucket's
  // whole clump would then run into the next edge.
  const spanMs = (n: number) => (n * 1000) / probe.maxRps;
  const afterEdgeMs =
    afterEdgeShare !== undefined
      ? afterEdgeShare * windowMs
      : Math.max(
          CLUMP_AFTER_EDGE * windowMs,
          Math.min((windowMs - spanMs(window.limit)) / 2, (1 - EDGE_MARGIN) * windowMs - spanMs(cap)),
        );
  const atMs = offsetMs + nextIndex * windowMs + afterEdgeMs;
  if (!drainFits(probe, probe.elapsed(), atMs - probe.elapsed(), cap, 1)) return undefined;
  const clump = await drainAt(probe, 'idle-burst', atMs, cap);
  const refusal = clump?.find((s) => s.answer === 'limited');
  if (!clump || !refusal || straddles(clump[0]!.sentMs, reachedByMs(probe, clump, refusal.sentMs))) return undefined;
  return countUntilRefused(clump);
}

/**
 * What a fixed window on the clock is claimed with when no clump from idle fell between two of its
 * edges (batchBucketPhase undefined: no budget left, or every clump straddled one), or when a faster
 * limit in front lets `frontCut` requests at most through at once, fewer than the window's limit
 * (so a clump from idle cannot show more than the limit, whatever the limit behind saved): its rate
 * stands either way, but a bucket refilled by a timer would let more than its limit through from idle.
 */
export const batchUntold = (window: FixedWindowModel, frontCut?: number): string =>
  `not tested: whether it is a bucket refilled by a timer (${window.limit} tokens every ${window.window_s} s, as Envoy's token_bucket) rather than a window; drained, both give back ${window.limit} at each edge, and only requests sent from idle between two edges tell them apart (a window lets ${window.limit} through, such a bucket all it saved), ${frontCut !== undefined ? `and the faster limit in front lets ${frontCut} through at once, fewer than the ${window.limit} it would take to tell` : 'none of which the probe could send clear of an edge within its budget'}; the sustained rate is the same either way, but a burst from idle may be larger than the ${window.limit} said`;

/** `passed`: the requests let through between two edges; `capacity`: with the set-up requests that preceded them. */
function verdict(window: FixedWindowModel, passed: number, what: string, capacity = passed): BatchFindings {
  // One over the limit is a set-up request's slot, not a saved batch.
  if (passed <= window.limit + 1)
    return {
      model: null,
      evidence: `${what} let ${passed} requests through between two edges, no more than the ${window.limit} that come back at each: a window, not a bucket refilled by a timer that saves its batches`,
    };
  const rate = window.limit / window.window_s;
  return {
    model: {
      kind: 'bucket',
      rate_rps: Math.round(rate * 100) / 100,
      burst: capacity,
      fill_interval_s: window.window_s,
    },
    evidence: `${what} let ${capacity} requests through between two edges, more than the ${window.limit} that come back at each: a bucket refilled by a timer, ${window.limit} tokens every ${window.window_s} s up to ${capacity}, not a fixed window`,
  };
}

/** The latest the requests of `run` sent until `untilSentMs` can have reached the limiter, on the probe's send clock (arrival.ts). */
const reachedByMs = (probe: Probe, run: readonly Sample[], untilSentMs: number): number =>
  latestReachedMs(
    run.filter((s) => s.sentMs <= untilSentMs),
    fastestTripMs(probe.samples) ?? 0,
  );

/** Where the clock's edges fall on the probe's own clock, ms modulo the window (phase_s is on Unix time). */
function edgeOffsetMs(probe: Probe, window: FixedWindowModel): number {
  const windowMs = window.window_s * 1000;
  return (((window.phase_s * 1000 - probe.startedEpochMs) % windowMs) + windowMs) % windowMs;
}
