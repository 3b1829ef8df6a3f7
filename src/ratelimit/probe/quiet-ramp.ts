// A counter weighing its last window that counts refused requests too (HAProxy's usual recipe,
// `track-sc0` before the check, at a 10 s period), sized after its first edge without knocking.
// counter-ramp.ts times a counter's lattice with pings an eighth of a step apart; here each ping is
// counted, so they keep it shut ("let nothing more through within 4 of its steps"). But then every
// request counts the same, let through or not, so whether one passes depends only on when it came
// and how many the probe sent before it: after the edge e, a request at t passes when
// C·(t − e) / W − n(t) > C − L, where C is what the window before the edge counted (the set-up
// requests and everything the probe sent before e), W the window, L the limit, n(t) the probe's
// requests since e. The last admission and the first refusal of a clump say where that line was
// (the refusal at most one request past it); after the clump that filled it the probe keeps quiet
// for most of what is left of the window, then sends one more clump: the two clumps bound C / W to
// one request over the hundred and more the quiet let back, and C is the probe's own count, so W
// to well under 1 %. Two windows at most, no more requests than the limit three times over.
//
// Every time is when the service saw the request (arrival.ts), every count the probe's own requests.

import { midpoint, type Bracket } from '../identify.js';
import { round } from '../estimators.js';
import { Counts, countingEvery, lastCrossing, type Crossing } from './crossings.js';
import { drainAt } from './ping.js';
import { nextWindowRamp } from './next-window-ramp.js';
import type { Probe } from './probe.js';
import type { RampFindings, RampStart } from './counter-ramp.js';

/** Half-width of the window's bracket, as a share of it, beyond which it is not claimed. */
const QUIET_PRECISION = 0.01;
/** The last clump ends this share of the shortest window before the next edge can come. */
const EDGE_MARGIN = 0.05;
/** The quiet spell at least this share of the shortest window: enough requests let back to count. */
const SHORTEST_QUIET = 0.3;

const fmt = (ms: number) => `${round(ms / 1000, 2)} s`;

/**
 * The slopes s = C / W (requests freed per ms) that put both crossings on one line: from `from`'s
 * refusal to `to`'s admission it rose past what the probe sent between them, from `from`'s
 * admission to `to`'s refusal not.
 */
function slopesBetween(counts: Counts, from: Crossing, to: Crossing): Bracket {
  return {
    lo: (counts.before(to.admitted) - counts.before(from.refused)) / (to.admitted - from.refused),
    hi: (counts.before(to.refused) - counts.before(from.admitted)) / (to.refused - from.admitted),
  };
}

/**
 * Where the edge e is, for slopes in `s`: a request at t passes when s·(t − e) > N(t) − L (N every
 * request seen before t, the set-up ones too: C cancels out), so a crossing puts e within a request
 * of the line.
 */
function edgeOf(counts: Counts, limit: number, at: Crossing, s: Bracket): Bracket {
  const lo = Math.min(...[s.lo, s.hi].map((x) => at.refused - (counts.before(at.refused) - limit) / x));
  const hi = Math.max(...[s.lo, s.hi].map((x) => at.admitted - (counts.before(at.admitted) - limit) / x));
  return { lo, hi };
}

const intersect = (a: Bracket, b: Bracket): Bracket => ({ lo: Math.max(a.lo, b.lo), hi: Math.min(a.hi, b.hi) });

/** `start` as counter-ramp.ts began it: the drained window's limit, the first pass, the drain's start. */
export async function quietRampPhase(
  probe: Probe,
  start: Pick<RampStart, 'prev' | 'edge' | 'drainStartMs'>,
): Promise<RampFindings> {
  const notIdentified = (why: string): RampFindings => {
    const note = `not identified: ${why}`;
    return { model: null, evidence: [note], notes: [note] };
  };
  const { prev: limit, edge: firstPass } = start;
  const counts = () => new Counts(probe.samples, probe.calls.overhead.sent);
  const clumped = lastCrossing(probe.samples);
  if (!clumped || clumped.admitted <= firstPass.hi)
    return notIdentified(
      'a window weighing the last one, but no clump after its first edge to time it from; not sized',
    );
  const firstCrossing: Crossing = { admitted: firstPass.hi, refused: firstPass.lo };
  // Roughly, from the first pass to the clump; the edge from the clump (its crossing is a request
  // wide), the window from what was seen before it, and no shorter than the edge came after the
  // drain began (the drain lay in the window before it).
  const roughSlope = slopesBetween(counts(), firstCrossing, clumped);
  if (!(roughSlope.lo > 0 && roughSlope.lo <= roughSlope.hi))
    return notIdentified(
      'a window weighing the last one that kept shut while pinged, but its first pass and the clump after it fit no line of a counter counting every request; not sized',
    );
  const roughEdge = edgeOf(counts(), limit, clumped, roughSlope);
  const shortestMs = Math.max(counts().before(roughEdge.lo) / roughSlope.hi, roughEdge.lo - start.drainStartMs);
  // The next edge a shortest window after the earliest this one can be; the last clump, every
  // request of the limit at max_rps, ends well before it.
  const clumpMs = ((limit + 5) * 1000) / probe.maxRps;
  const atMs = roughEdge.lo + shortestMs * (1 - EDGE_MARGIN) - clumpMs;
  // Too little of it left (a small limit: the window before held far more, and it opened late in
  // its window): timed across its next edge instead (100 per 10 s: "not identified" before).
  if (atMs - clumped.refused < SHORTEST_QUIET * shortestMs || atMs + clumpMs > probe.maxDurationMs) {
    const longestMs = counts().before(roughEdge.hi) / roughSlope.lo;
    return nextWindowRamp(probe, {
      limit,
      crossing: clumped,
      edge: roughEdge,
      window: { lo: shortestMs, hi: Math.max(shortestMs, longestMs) },
      why: 'too little of the window after that edge was left to time it quietly',
    });
  }
  probe.progress(
    `a window weighing the last one that counts refused requests (pinged, it stayed shut): quiet until ${fmt(atMs)}, then one clump`,
  );
  const clump = await drainAt(probe, 'edges', atMs, limit + 5);
  if (!clump?.some((s) => s.answer === 'limited'))
    return notIdentified('a window weighing the last one, but its last clump was never refused; not sized');
  const last = lastCrossing(clump);
  if (!last) return notIdentified('a window weighing the last one, but its last clump let nothing through; not sized');
  const now = counts();
  const slope = intersect(roughSlope, slopesBetween(now, clumped, last));
  const edge =
    slope.lo <= slope.hi ? intersect(edgeOf(now, limit, clumped, slope), edgeOf(now, limit, last, slope)) : null;
  // What the window before the edge held: everything seen before it.
  const held: Bracket | null =
    edge && edge.lo <= edge.hi ? { lo: now.before(edge.lo), hi: now.before(edge.hi + 1) } : null;
  const window: Bracket = held ? { lo: held.lo / slope.hi, hi: held.hi / slope.lo } : { lo: 1, hi: 0 };
  const sized = midpoint(window);
  const fits = held && edge && window.lo <= window.hi;
  // On one line, but timed only to a percent or so (200 per 10 s, the quiet 4 s): the next window
  // after one more quiet spell times it from the last clump's crossing, a whole window apart.
  if (fits && sized.precision > QUIET_PRECISION) {
    const across = await nextWindowRamp(probe, {
      limit,
      crossing: last,
      edge,
      window,
      why: `a quiet spell in the window after that edge timed it only to ${fmt(window.lo)}–${fmt(window.hi)}`,
    });
    if (across.model) return across;
  }
  if (!fits || sized.precision > QUIET_PRECISION)
    return notIdentified(
      `a window weighing the last one that counts refused requests, but its two clumps fit no one line from an edge within 1 %${window.lo <= window.hi ? ` (the window between ${fmt(window.lo)} and ${fmt(window.hi)})` : ''}; not sized`,
    );
  return countingEvery(
    probe,
    limit,
    sized.value,
    (edge.lo + edge.hi) / 2,
    `pinged after its first edge it stayed shut, so refused requests count; after a clump that filled it (${fmt(clumped.admitted)}) and a quiet ${fmt(atMs - clumped.refused)}, one more clump: its admissions and the clumps' first refusals fit one line from an edge at ${fmt(edge.lo)}–${fmt(edge.hi)}, a window weighing the ${held.lo}–${held.hi} requests of the last one by its share still to come, every request counted (±${(sized.precision * 100).toFixed(1)} %)`,
    window,
  );
}
