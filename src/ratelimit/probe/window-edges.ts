// A window that came back whole: where its edges fall. If it is a fixed window, the edges lie on
// a lattice e_k = e_0 + k·W in time, whoever sends; each window costs one clump of the limit (it
// passes: the probe knows the limit) and one or two single requests that bisect where the next edge
// can be, so the window length is pinned to about 1 % in a handful of windows, with few refusals
// (identify.ts: windowLength, nextEdge). A sliding log also lets the whole limit back, one period
// after the clump instead of at a fixed time: a final shifted clump tells the two apart.

import { midpoint, nextEdge, windowLength, type Bracket } from '../identify.js';
import type { FixedWindowModel } from '../limiters/index.js';
import type { Sample } from '../types.js';
import { pingAt, pingUntilAccepted } from './ping.js';
import type { Probe } from './probe.js';
import { firstGapMs } from './recover.js';

/** Half-width of the window length's bracket, relative, at which the edges are pinned (±1 %). */
export const EDGE_PRECISION = 0.01;
/** Windows at most. */
const MAX_WINDOWS = 14;

export interface EdgeFindings {
  /** The fixed window, when the edges are fixed in time. */
  model: FixedWindowModel | null;
  /** When the limit came back a period after the clump instead (a sliding log): that period's bracket, ms. */
  slidingPeriod?: Bracket;
  evidence: string[];
  notes: string[];
}

export async function windowEdgesPhase(probe: Probe, limit: number, firstEdge: Bracket, clumpEndMs: number): Promise<EdgeFindings> {
  const notes: string[] = [];
  const edges: Bracket[] = [firstEdge];
  let afterMs = clumpEndMs;
  let length: Bracket = { lo: 0, hi: Infinity };
  for (let w = 0; w < MAX_WINDOWS && !probe.outOfBudget(); w++) {
    if (edges.length >= 2) {
      length = windowLength(edges);
      if (length.lo > length.hi) break;
      if (edges.length >= 3 && midpoint(length).precision <= EDGE_PRECISION) break;
    }
    const found = edges.length === 1 ? await pingUntilAccepted(probe, 'edges', afterMs, Math.max(firstGapMs(probe), (firstEdge.hi - firstEdge.lo) / 2)) : await bisectEdge(probe, nextEdge(edges, length), afterMs);
    if (!found.accepted) break;
    edges.push({ lo: Math.max(afterMs, found.lastRefused?.sentMs ?? afterMs), hi: found.accepted.sentMs });
    // The rest of the window's limit, known to pass: the next edge is after it.
    const { samples } = await probe.burstRun('edges', limit - 1, { exact: true });
    if (samples.some((s) => s.answer === 'limited')) notes.push(`a window let fewer than ${limit} requests through after its edge`);
    afterMs = Math.max(found.accepted.sentMs, ...samples.map((s) => s.sentMs));
  }
  length = windowLength(edges);
  const w = midpoint(length);
  if (edges.length < 3 || length.lo > length.hi || w.precision > 2 * EDGE_PRECISION) {
    notes.push(`the window's edges were not pinned down (${edges.length} edges${length.lo > length.hi ? ', not evenly spaced' : ''})`);
    return { model: null, evidence: [], notes };
  }
  const shifted = await shiftedClump(probe, limit, edges[edges.length - 1]!.hi, w.value);
  if (shifted === undefined) notes.push('fixed or sliding was not tested (no time left): reported as a fixed window');
  if (shifted === 'sliding') {
    return {
      model: null,
      slidingPeriod: { lo: w.value * 0.96, hi: w.value * 1.04 },
      evidence: [`a clump of ${limit} sent half a window late was not let in again half a window later, but a whole period after it: the window slides with the client's own requests`],
      notes,
    };
  }
  // Windows are configured in round figures (1 s, 500 ms, 1 min): a tenth of a second within the
  // bracket is the window, exactly; only then can the edges be placed on the wall clock (Unix
  // time modulo the window), else they are placed on the probe's own clock.
  const round = Math.round(w.value / 100) * 100;
  const exact = round > 0 && round >= length.lo && round <= length.hi;
  const windowMs = exact ? round : w.value;
  // The first edge as every bracket, moved back by its whole windows, allows it: the narrow ones decide.
  const first = { lo: Math.max(...edges.map((e, k) => e.lo - k * windowMs)), hi: Math.min(...edges.map((e, k) => e.hi - k * windowMs)) };
  const firstMs = first.lo <= first.hi ? midpoint(first).value : midpoint(edges[0]!).value;
  const phaseMs = (((exact ? probe.startedEpochMs + firstMs : firstMs) % windowMs) + windowMs) % windowMs;
  return {
    model: { kind: 'fixed-window', limit, window_s: Math.round(windowMs) / 1000, phase_s: Math.round(phaseMs) / 1000, counts_refused: false },
    evidence: [
      `${edges.length} window edges ${fmt(w.value)} apart (±${(w.precision * 100).toFixed(1)} %${exact ? `: ${fmt(windowMs)}` : ''}), ${limit} requests let through after each: a fixed window, ` +
        `edges at ${(Math.round(phaseMs) / 1000).toFixed(3)} s past every multiple of ${fmt(windowMs)} ${exact ? 'of Unix time' : "of the probe's clock"}`,
      ...(shifted === 'fixed' ? [`a clump sent half a window late was let in again at the next edge: the edges stay put whatever the client does`] : []),
      'refused requests cannot matter to a fixed window (its count starts afresh at each edge): reported as not counting',
    ],
    notes,
  };
}

/** Pings where the next edge can be: the middle, then the middle of what is left, then the far end. */
async function bisectEdge(probe: Probe, where: Bracket, afterMs: number): Promise<{ accepted?: Sample; lastRefused?: Sample }> {
  let lo = Math.max(where.lo, afterMs);
  let lastRefused: Sample | undefined;
  for (let i = 0; i < 2; i++) {
    const s = await pingAt(probe, 'edges', (lo + where.hi) / 2);
    if (!s) return lastRefused ? { lastRefused } : {};
    if (s.answer === 'accepted') return { accepted: s, ...(lastRefused ? { lastRefused } : {}) };
    lastRefused = s;
    lo = s.sentMs;
  }
  // Past where the lattice says the edge must be; should it not be, keep looking with growing gaps.
  const rest = await pingUntilAccepted(probe, 'edges', Math.max(lo, where.hi) - 1, 2);
  return { ...(rest.accepted ? { accepted: rest.accepted } : {}), ...((rest.lastRefused ?? lastRefused) ? { lastRefused: rest.lastRefused ?? lastRefused } : {}) };
}

/**
 * Half a window after an edge, a clump that fills the window, then one request
 * three quarters of a window later: a fixed window has reset by then (its edge came half a window
 * after the clump), a sliding log has not (its slots free a whole period after the clump).
 */
async function shiftedClump(probe: Probe, limit: number, edgeMs: number, windowMs: number): Promise<'fixed' | 'sliding' | undefined> {
  const startAt = edgeMs + 1.5 * windowMs;
  if (startAt + 0.8 * windowMs > probe.maxDurationMs) return undefined;
  const wait = startAt - probe.elapsed();
  if (wait > 0) await probe.clock.sleep(Math.ceil(wait), probe.signal);
  // Until the first refusal, not just the limit as counted so far: a window that is full for sure
  // (a sliding log that counted earlier refusals let fewer through per window than it holds).
  const { samples } = await probe.burstRun('edges', 2 * limit + 5);
  if (!samples.some((s) => s.answer === 'accepted')) return undefined;
  const start = Math.min(...samples.map((s) => s.sentMs));
  const s = await pingAt(probe, 'edges', start + 0.75 * windowMs);
  if (!s) return undefined;
  return s.answer === 'accepted' ? 'fixed' : s.answer === 'limited' ? 'sliding' : undefined;
}

const fmt = (ms: number) => `${(ms / 1000).toFixed(3)} s`;
