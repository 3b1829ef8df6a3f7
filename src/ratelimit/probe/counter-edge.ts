// Telling a sliding-window counter (go-chi/httprate, Cloudflare's recipe) from a window that slides
// from the client's first request (a sliding log, HAProxy's counter). Both let a drained client
// back in one request every period / limit; they differ in WHEN the first one comes. A counter's
// windows are on the clock: a drained client is let back in at the next window edge, wherever the
// drain fell in its window, and a period apart after that. A log or HAProxy frees the first slot a
// whole period after the drain's first request.
//
// So: once the counters are surely empty (two windows and a margin without a request: HAProxy's
// counters also start afresh after two idle periods), a drain from idle, and pings until the client is let back.
// Back within 85 % of a period: a counter (pings grow 10 % a time, so the one that finds the
// comeback is at most a tenth late). Otherwise either the window slides from the drain, or the
// drain fell just after a counter's edge: a second drain 40 % into the window that comeback
// marked tells, as a counter lets it back at the window's end, 60 % of a period later.

import type { Bracket } from '../identify.js';
import type { Sample } from '../types.js';
import { phaseS } from './advertised.js';
import { drainAt, drainFits, pingUntilAccepted } from './ping.js';
import type { Probe } from './probe.js';

const DRAIN_INTO_WINDOW = 0.4;
const COUNTER_COMEBACK = 0.85;

/**
 * A period the stream sized within 1 % of whole seconds is taken as those (gateways are configured
 * in whole seconds): where the edges fall is read modulo the window on Unix time, and a window off
 * by a hair puts them anywhere after 1.8 × 10¹² ms. Long by up to 1 / (limit − 1) more: a counter
 * kept saturated admits limit − 1 per window, not limit (it refuses once the rounded weighted count
 * reaches limit − ½), so the stream's rate reads up to that much low (httprate 50 per 1 s: 49.3 r/s).
 */
export function wholeSecondsNear(windowMs: number, limit = Infinity): number {
  const whole = Math.round(windowMs / 1000) * 1000;
  const saturatedLong = limit > 1 ? 1 / (limit - 1) : 0;
  return whole > 0 && windowMs >= 0.99 * whole && windowMs <= (1.01 + saturatedLong) * whole ? whole : windowMs;
}

export interface CounterEdgeFindings {
  /** Edges on the clock: the drained client came back at the window's end, not a period after the drain. */
  counter: boolean;
  /** The window, s: the stream's, or whole seconds within 1 % of it. */
  windowS: number;
  /** The stream's window was within 1 % of whole seconds, taken as those: its precision, not the stream's. */
  whole: boolean;
  /** Where the edges fall on Unix time, modulo the window, seconds (a counter only). */
  phaseS: number;
  evidence: string;
  /** What the window the drain filled held, by the ends its answers announced, where the drain straddled an edge (reset-ticks.ts announcedCounter). */
  limit?: number;
}

/**
 * `windowMs`: the period the stream sized (limit / rate). Undefined when a trial did not fit in the
 * budget or a drain from idle did not pass the limit (the counters were not empty).
 */
export async function counterEdgePhase(
  probe: Probe,
  sized: { limit: number; windowMs: number },
): Promise<CounterEdgeFindings | undefined> {
  const o = { limit: sized.limit, windowMs: wholeSecondsNear(sized.windowMs, sized.limit) };
  const { windowMs } = o;
  const idleFrom = () => Math.max(probe.elapsed(), lastSentMs(probe.samples) + 2 * windowMs + 0.1 * windowMs);
  const first = await trial(probe, o, idleFrom());
  if (!first) return undefined;
  let last = first;
  if (first.comebackMs >= COUNTER_COMEBACK * windowMs) {
    // A counter's edge is at or just before that comeback: the next drain 40 % into a window after it.
    const edgeMs = first.edge.hi;
    const k = Math.ceil((idleFrom() - edgeMs - DRAIN_INTO_WINDOW * windowMs) / windowMs);
    const second = await trial(probe, o, edgeMs + k * windowMs + DRAIN_INTO_WINDOW * windowMs);
    if (!second) return undefined;
    last = second;
  }
  const counter = last.comebackMs < COUNTER_COMEBACK * windowMs;
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  return {
    counter,
    windowS: windowMs / 1000,
    whole: windowMs !== sized.windowMs || windowMs % 1000 === 0,
    phaseS: phaseS(probe, last.edge, windowMs / 1000),
    evidence: counter
      ? `a drain from idle was let back in ${s(last.comebackMs)} after it began, at a window's edge, not a period (${s(windowMs)}) later: windows on the clock, counted and weighed (a sliding-window counter)`
      : `drains from idle were let back in ${s(first.comebackMs)} and ${s(last.comebackMs)} after they began, about a period (${s(windowMs)}) later, wherever they fell: the window slides from the client's own requests`,
  };
}

/** A drain of the limit at `atMs`, then pings until one passes: how long after the drain's first request it did. */
async function trial(
  probe: Probe,
  o: { limit: number; windowMs: number },
  atMs: number,
): Promise<{ comebackMs: number; edge: Bracket } | undefined> {
  const cap = o.limit + 10;
  if (!drainFits(probe, probe.elapsed(), atMs - probe.elapsed() + o.windowMs, cap, 1)) return undefined;
  const drained = await drainAt(probe, 'edges', atMs, cap);
  const refusal = drained?.find((x) => x.answer === 'limited');
  const first = drained?.[0];
  if (!refusal || !first || drained!.filter((x) => x.answer === 'accepted').length < o.limit - 1) return undefined;
  const back = await pingUntilAccepted(probe, 'edges', refusal.sentMs, o.windowMs / 20, 1.15);
  if (!back.accepted) return undefined;
  return {
    comebackMs: back.accepted.sentMs - first.sentMs,
    edge: { lo: back.lastRefused?.sentMs ?? refusal.sentMs, hi: back.accepted.sentMs },
  };
}

// From the last request of any answer: HAProxy's counters turn over on every request, and a
// limiter that counts refused requests counts them.
export const lastSentMs = (samples: readonly Sample[]) =>
  samples.reduce((last, x) => Math.max(last, x.sentMs), Number.NEGATIVE_INFINITY);
