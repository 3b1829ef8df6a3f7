// A counter weighing its last window that counts every request (HAProxy's usual recipe), timed
// across the next edge when too little of the window after its first edge is left for a quiet
// spell (quiet-ramp.ts). At a small limit (100 per 10 s) the pinged first edge comes late in that
// window: the window before it held far more than the limit (the drain's refusals and the pings
// count), and the rate falls under the limit only once most of that weight has passed. Within one
// window a quiet spell then lets back too few requests to time it: the counter frees what the last
// window held, little more than the limit, over a whole window, so two clumps a few seconds apart
// bound the window to a few percent, not one.
//
// Across an edge it is the whole window that is measured. A crossing at t in the window from edge
// E, which follows a window that held C, puts the time left in it, E + W − t, at W·(L − n) / C
// within one request: n what the window had counted before t, L the limit. The clump that filled
// the window after the first edge e is one crossing (E = e, C all the probe sent before e); after
// a quiet spell past the next edge u = e + W, one more clump late in the window from u is another
// (E = u, C what the probe sent between e and u, every request of it counted). The two put u at
// two places that agree only for the right W: the window to one request in each window's count,
// over a whole window. A ballast of refused requests right after the first clump makes the window
// before u hold more (each is counted), so the second crossing is read finer. Which pings came
// before e is not known beforehand (they came every 2 % of a window while the first edge was looked
// for): each count is tried, and kept only for the W that put e where that count holds. The probe
// keeps quiet from the ballast to the second clump, so the window before u held the probe's own count.
//
// Every time is when the service saw the request (arrival.ts), every count the probe's own requests.

import { midpoint, type Bracket } from '../identify.js';
import { round } from '../estimators.js';
import { seenMs } from './arrival.js';
import { Counts, countingEvery, lastCrossing, type Crossing } from './crossings.js';
import { drainAt, pingsOnSchedule } from './ping.js';
import type { Probe } from './probe.js';
import type { RampFindings } from './counter-ramp.js';

/** Half-width of the window's bracket, as a share of it, beyond which it is not claimed. */
const NEXT_PRECISION = 0.01;
/** A bracket claimed no shorter than this share below its long end (counter-ramp.ts's FAST_AT_MOST). */
const FAST_AT_MOST = 0.003;
/** The clump ends this share of the shortest window before the edge after the next can come. */
const EDGE_MARGIN = 0.05;

const fmt = (ms: number) => `${round(ms / 1000, 2)} s`;

export interface NextWindowStart {
  limit: number;
  /** The last crossing of the clump that filled the window after the first edge. */
  crossing: Crossing;
  /** That first edge, roughly. */
  edge: Bracket;
  /** The window, roughly. */
  window: Bracket;
  /** Why the window after the first edge did not time it: too little of it left, or timed too loosely. */
  why: string;
}

/**
 * Up to `limit` more requests at max_rps, refused and counted, ending well before the next edge
 * (`beforeMs`): the crossing after it is read to one request in what this window held, so the more
 * it held, the finer (100 per 10 s: the window after the first edge had held 76, ±0.8 %).
 */
async function ballast(probe: Probe, limit: number, beforeMs: number): Promise<void> {
  const gapMs = 1000 / probe.maxRps;
  const fromMs = probe.elapsed();
  const count = Math.min(limit, Math.floor((beforeMs - fromMs - 2 * probe.latencyMs()) / (2 * gapMs)));
  if (count > 0) await pingsOnSchedule(probe, 'edges', fromMs, gapMs, fromMs + count * gapMs, () => false);
}

/** The window and its first edge the two crossings allow, or null when they fit no one counter. */
interface Across {
  window: Bracket;
  edge: Bracket;
}

export async function nextWindowRamp(probe: Probe, start: NextWindowStart): Promise<RampFindings> {
  const { limit, crossing, edge, window } = start;
  const notIdentified = (why: string): RampFindings => {
    const note = `not identified: a window weighing the last one that counts refused requests, but ${why}; not sized`;
    return { model: null, evidence: [note], notes: [note] };
  };
  const next: Bracket = { lo: edge.lo + window.lo, hi: edge.hi + window.hi };
  await ballast(probe, limit, next.lo);
  const quietFromMs = Math.max(...probe.samples.map(seenMs));
  // Late in the window after the next edge, all of it sent well before the edge after that.
  const clumpMs = ((limit + 5) * 1000) / probe.maxRps;
  const atMs = next.lo + window.lo * (1 - EDGE_MARGIN) - clumpMs;
  if (quietFromMs >= next.lo || atMs <= next.hi || atMs + clumpMs > probe.maxDurationMs)
    return notIdentified(
      'too little of its window was left to time it quietly, and its next window, or the budget, was too short to time it across its next edge',
    );
  probe.progress(
    `a window weighing the last one that counts refused requests, late in it: quiet past its next edge (${fmt(next.lo)}–${fmt(next.hi)}) until ${fmt(atMs)}, then one clump`,
  );
  const clump = await drainAt(probe, 'edges', atMs, limit + 5);
  const later = clump && lastCrossing(clump);
  if (!clump || !later) return notIdentified('its clump after the next edge let nothing through, or was never refused');
  const counts = new Counts(probe.samples, probe.calls.overhead.sent);
  const clumpFromMs = Math.min(...clump.map(seenMs));
  const across = windowAcross(counts, limit, [crossing, later], edge, { lo: quietFromMs, hi: clumpFromMs });
  // Claimed near the bracket's long end, as counter-ramp.ts claims its own: which side of the first
  // edge a ping fell is not always known (a ping every 2 % of a window), and the rate read is then
  // never more than FAST_AT_MOST above the limiter's.
  const bracketed = across && midpoint(across.window);
  const sized = bracketed && {
    ...bracketed,
    value: Math.max(bracketed.value, across.window.hi - FAST_AT_MOST * bracketed.value),
  };
  if (!across || !sized || sized.precision > NEXT_PRECISION)
    return notIdentified(
      `its crossings before and after the next edge fit no one line of a counter${across ? ` within 1 % (the window between ${fmt(across.window.lo)} and ${fmt(across.window.hi)})` : ''}`,
    );
  return countingEvery(
    probe,
    limit,
    sized.value,
    midpoint(across.edge).value,
    `pinged after its first edge it stayed shut, so refused requests count; ${start.why}, so the probe kept quiet past the next edge and sent one more clump late in the window after it: the crossings of the clumps at ${fmt(crossing.admitted)} and ${fmt(later.admitted)} fit one counter with its edges at ${fmt(across.edge.lo)}–${fmt(across.edge.hi)} and a window later, each window weighing what the probe sent in the one before by its share still to come, every request counted (±${(sized.precision * 100).toFixed(1)} %)`,
    across.window,
  );
}

/** Windows tried across each count's bracket: its ends to a thousandth of it. */
const SCAN_STEPS = 1000;

/**
 * The windows W for which crossing `a` (in the window from the first edge e) and crossing `b` (in
 * the one from u = e + W) put u at one place, for every count the window before e may have held
 * (the requests seen within the rough `edge`); kept only where e = u − W then falls where that
 * count holds and u in the probe's quiet spell (`quiet`), so that each window held what the probe
 * sent in it. Their union, or null when no count fits.
 */
function windowAcross(counts: Counts, limit: number, crossings: [Crossing, Crossing], edge: Bracket, quiet: Bracket) {
  const atNext = counts.before(quiet.hi);
  let found: Across | null = null;
  for (let held = counts.before(edge.lo); held <= counts.before(edge.hi); held++) {
    const fits = acrossFor(counts, limit, crossings, held, atNext);
    if (!fits) continue;
    const span = counts.spanOf(held);
    // u's bracket for each W, and e's: W kept where e can be in `span` and u in the quiet spell.
    for (let i = 0; i <= SCAN_STEPS; i++) {
      const w = fits.window.lo + ((fits.window.hi - fits.window.lo) * i) / SCAN_STEPS;
      const u: Bracket = { lo: Math.max(fits.uLo(w), quiet.lo), hi: Math.min(fits.uHi(w), quiet.hi) };
      const e: Bracket = { lo: Math.max(u.lo - w, span.lo), hi: Math.min(u.hi - w, span.hi) };
      if (u.lo > u.hi || e.lo > e.hi) continue;
      const one: Across = { window: { lo: w, hi: w }, edge: e };
      found = found ? union(found, one) : one;
    }
  }
  return found;
}

const union = (x: Across, y: Across): Across => ({
  window: { lo: Math.min(x.window.lo, y.window.lo), hi: Math.max(x.window.hi, y.window.hi) },
  edge: { lo: Math.min(x.edge.lo, y.edge.lo), hi: Math.max(x.edge.hi, y.edge.hi) },
});

/**
 * For a window before e that held `held` and one before u that held `atNext − held`: each
 * crossing's admission put the time left in its window under W·(L − n) / C, its refusal at or over
 * W·(L − n′) / C (HAProxy counts a request, then refuses it when the rate with it is over L, the
 * weighted part rounded down). The W for which both put u somewhere, and u's bounds at each W.
 */
function acrossFor(
  counts: Counts,
  limit: number,
  [a, b]: [Crossing, Crossing],
  held: number,
  atNext: number,
): { window: Bracket; uLo: (w: number) => number; uHi: (w: number) => number } | null {
  const nextHeld = atNext - held;
  if (held <= 0 || nextHeld <= 0) return null;
  // The share of each window left at each request: u − t = W·a…, u + W − t = W·b….
  const share = (t: number, from: number, c: number) => (limit - (counts.before(t) - from)) / c;
  const aA = share(a.admitted, held, held);
  const aR = share(a.refused, held, held);
  const bA = share(b.admitted, atNext, nextHeld);
  const bR = share(b.refused, atNext, nextHeld);
  // u ≥ a.refused + W·aR and u ≥ b.refused − W·(1 − bR); u < a.admitted + W·aA and u < b.admitted − W·(1 − bA).
  const window: Bracket = {
    lo: (b.refused - a.admitted) / (1 + aA - bR),
    hi: (b.admitted - a.refused) / (1 + aR - bA),
  };
  if (!(window.lo > 0 && window.lo <= window.hi)) return null;
  return {
    window,
    uLo: (w) => Math.max(a.refused + w * aR, b.refused - w * (1 - bR)),
    uHi: (w) => Math.min(a.admitted + w * aA, b.admitted - w * (1 - bA)),
  };
}
