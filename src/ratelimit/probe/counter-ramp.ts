// A silent sliding-window counter (go-chi/httprate's recipe) whose first edge came long after the
// drain (silent-window.ts): sized inside the one window that follows that edge. There the counter
// weighs the drained window's count `prev` by the share of the window still to come, so it frees
// one request every window / prev, on a lattice fixed by the edge: once a clump has filled it, the
// next request passes exactly at a lattice point, whatever the rounding rule. Two lattice points
// found by close pings, far apart in that window, and the admissions counted between them give
// window / prev to a few ms over most of a window: the window to well under 1 %, for a couple of
// clumps and a few dozen pings, inside the window after the first edge (about two windows in all).
// A single ramp fits no other kind: a log frees the whole limit at once, a bucket one at a time.

import { midpoint, type Bracket } from '../identify.js';
import { round } from '../estimators.js';
import type { SlidingCounterModel } from '../limiters/index.js';
import type { Sample } from '../types.js';
import { phaseS } from './advertised.js';
import { seenMs } from './arrival.js';
import { lastSentMs } from './counter-edge.js';
import { drainAt, pingUntilAccepted } from './ping.js';
import type { Probe } from './probe.js';
import { firstGapMs } from './recover.js';

/** Pings this many to a lattice step: each lattice point to within an eighth of the step. */
const PINGS_PER_STEP = 8;
/** A lattice point looked for this many steps at most: none by then, the counter is not ramping. */
const STEPS_SOUGHT = 4;
/** The second clump this share of the shortest window after the edge: well before the next edge. */
const SECOND_CLUMP = 0.8;
/** Half-width of the window's bracket, as a share of it, beyond which it is not claimed. */
const RAMP_PRECISION = 0.01;

export interface RampStart {
  /** What the drained window held: the drain's admissions and the set-up requests (its limit). */
  prev: number;
  /** The first edge after the drain: between the last refused ping and the first that passed. */
  edge: Bracket;
  /** The drain's first refusal: every request passed after it passed in the window after the edge. */
  refusal: Sample;
  /** The shortest the window can be: the drain lay in the window that ended at the edge. */
  shortestMs: number;
}

export interface RampFindings {
  model: SlidingCounterModel | null;
  evidence: string[];
  notes: string[];
}

interface LatticePoint {
  at: Bracket;
  /** Requests the window after the edge had let through before this one. */
  before: number;
}

const fmt = (ms: number) => `${round(ms / 1000, 2)} s`;

export async function counterRampPhase(probe: Probe, start: RampStart): Promise<RampFindings> {
  const { prev, edge, refusal } = start;
  const notIdentified = (why: string): RampFindings => {
    const note = `not identified: ${why}`;
    return { model: null, evidence: [note], notes: [note] };
  };
  // The first clump after the edge filled the counter: the step, roughly, from what it let through.
  const roughStepMs = (probe.elapsed() - midpoint(edge).value) / Math.max(1, passedSince(probe.samples, refusal));
  const gapMs = Math.max(firstGapMs(probe), roughStepMs / PINGS_PER_STEP);
  const a = await latticePoint(probe, refusal, gapMs, roughStepMs);
  if (!a)
    return notIdentified(
      `a window weighing the last one (a sliding-window counter), but it let nothing more through within ${STEPS_SOUGHT} of its steps (about ${fmt(roughStepMs)} each); not sized`,
    );
  // The window is at least the shortest the drain allows and at least what the ramp so far says
  // (the counter lets `before` through at most `before + 1` steps after the edge).
  const shortestMs = Math.max(start.shortestMs, (prev * (a.at.lo - edge.hi)) / (a.before + 1));
  const clumpAtMs = edge.lo + SECOND_CLUMP * shortestMs;
  if (clumpAtMs < a.at.hi + 4 * roughStepMs)
    return notIdentified(
      `a sliding-window counter, but too little of its window was left after its first edge to time its ramp; not sized`,
    );
  if (clumpAtMs + prev * (1000 / probe.maxRps) + STEPS_SOUGHT * roughStepMs > probe.maxDurationMs)
    return notIdentified(
      `a sliding-window counter, but its ramp could not be timed before the probe's time cap (${probe.maxDurationMs / 1000} s); not sized`,
    );
  const clump = await drainAt(probe, 'edges', clumpAtMs, prev + 5);
  if (!clump?.some((s) => s.answer === 'limited'))
    return notIdentified(
      `a second clump after the first edge was not refused (the budget ran out, or not a counter); not sized`,
    );
  const b = await latticePoint(probe, refusal, gapMs, roughStepMs);
  if (!b) return notIdentified(`a sliding-window counter, but the second point of its ramp was not found; not sized`);
  const steps = b.before - a.before;
  const step: Bracket = { lo: (b.at.lo - a.at.hi) / steps, hi: (b.at.hi - a.at.lo) / steps };
  const window: Bracket = { lo: prev * step.lo, hi: prev * step.hi };
  const sized = midpoint(window);
  if (steps < 2 || sized.precision > RAMP_PRECISION)
    return notIdentified(
      `a sliding-window counter, but its ramp was timed only to between ${fmt(window.lo)} and ${fmt(window.hi)}; not sized`,
    );
  // The lattice starts at the edge the pings found (a rounding rule moves it by under a step).
  const edgeMs = midpoint(a.at).value - (a.before + 0.5) * midpoint(step).value;
  if (edgeMs < edge.lo - 1.5 * step.hi || edgeMs > edge.hi + 1.5 * step.hi)
    return notIdentified(
      `its admissions came back every ${fmt(midpoint(step).value)}, but not on a line from the edge the pings found (${fmt(edge.lo)}–${fmt(edge.hi)}): not a sliding-window counter; not sized`,
    );
  const windowS = round(sized.value / 1000, 3);
  const model: SlidingCounterModel = {
    kind: 'sliding-counter',
    limit: prev,
    window_s: windowS,
    phase_s: phaseS(probe, { lo: edgeMs, hi: edgeMs }, windowS),
    // Pinged many times a step and still let back on the lattice: the refused pings did not count.
    counts_refused: false,
  };
  return {
    model,
    evidence: [
      `after the first edge (${fmt(edge.lo)}–${fmt(edge.hi)}) the limit let requests back one every ${round(midpoint(step).value, 1)} ms, on a line from that edge, through pings refused in between (${steps} admissions between ${fmt(a.at.hi)} and ${fmt(b.at.hi)}): a window weighing the ${prev} drained by its share still to come, a sliding-window counter of ${prev} per ${windowS} s`,
    ],
    notes: [],
  };
}

/** Requests let through since the drain's refusal: all of them in the window after the first edge. */
const passedSince = (samples: readonly Sample[], refusal: Sample, beforeMs = Infinity) =>
  samples.filter((s) => s.answer === 'accepted' && s.sentMs > refusal.sentMs && s.sentMs < beforeMs).length;

/** Close pings from the last request until one passes: the next lattice point, and what passed before it. */
async function latticePoint(
  probe: Probe,
  refusal: Sample,
  gapMs: number,
  roughStepMs: number,
): Promise<LatticePoint | undefined> {
  const fromMs = lastSentMs(probe.samples);
  const lastLimited = probe.samples
    .filter((s) => s.answer === 'limited')
    .sort((x, y) => x.sentMs - y.sentMs)
    .at(-1);
  const found = await pingUntilAccepted(probe, 'edges', fromMs, gapMs, (gap, s) =>
    s.sentMs - fromMs > STEPS_SOUGHT * roughStepMs ? undefined : gap,
  );
  const refused = found.lastRefused ?? lastLimited;
  if (!found.accepted || !refused) return undefined;
  return {
    at: { lo: seenMs(refused), hi: seenMs(found.accepted) },
    before: passedSince(probe.samples, refusal, found.accepted.sentMs),
  };
}
