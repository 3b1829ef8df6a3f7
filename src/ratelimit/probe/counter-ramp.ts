// A silent sliding-window counter (go-chi/httprate's recipe), sized inside the one window that
// follows its first edge after the drain (silent-window.ts when that edge came late, discover.ts
// right after the recovery when it came sooner). There the counter weighs the drained window's
// count `prev` by the share of the window still to come, so it frees one request every window /
// prev, on a lattice fixed by the edge: once a clump has filled it, the next request passes
// exactly at a lattice point, whatever the rounding rule. Two lattice points found by close pings,
// far apart in that window, and the admissions counted between them give window / prev to a few
// ms over most of a window: the window to ±0.5 %, for two to four clumps and a few dozen pings,
// before the next edge (two windows in all at most). A single ramp fits no other kind: a log frees
// the whole limit at once, a bucket one at a time; HAProxy's counter, its period opened by the
// client, ramps the same way from an edge one window after the drain began, and is said to.

import { midpoint, type Bracket } from '../identify.js';
import { round } from '../estimators.js';
import type { SlidingCounterModel } from '../limiters/index.js';
import type { Sample } from '../types.js';
import { phaseS } from './advertised.js';
import type { WindowHeld } from './announced-ends.js';
import { inSeenOrder, reorderMs, seenMs } from './arrival.js';
import { lastSentMs } from './counter-edge.js';
import { drainAt, pingsOnSchedule } from './ping.js';
import type { Probe } from './probe.js';
import { firstGapMs, type DrainFigures, type ShapeFindings } from './recover.js';

/** Pings this many to a lattice step: each lattice point to within an eighth of the step. */
const PINGS_PER_STEP = 8;
/** The shortest step timed, in the pings' shortest gaps. */
const TIMEABLE_STEP = 6;
/** A lattice point looked for this many steps at most: none by then, the counter is not ramping. */
const STEPS_SOUGHT = 4;
/** Each clump this share of the shortest window after the edge: well before the next edge. */
const CLUMP_INTO_WINDOW = 0.8;
/** Clumps after the first lattice point at most: each later one pushed later by what the last one showed. */
const MAX_CLUMPS = 3;
/** Lattice points found by pings alone, when a clump would go too soon after the last one, at most. */
const MAX_POINTS_ALONE = 12;
/**
 * Pings alone only on steps this long, ms, where the few requests a window frees are worth their
 * refusals (20 per 10 s); on shorter ones (httprate 200 per 10 s, 50 per 1 s) a clump that would go
 * too soon ends the ramp as before: pinged on, 1 of 100 phases of a silent 50 per 1 s was read as
 * a log (below its rate), and a 100 per 10 s cost 16 % of its requests refused.
 */
const ALONE_FROM_STEP_MS = 200;
/** nextClumpAt's word for "not yet": the window known so far leaves no room for a clump after the last lattice point. */
const TOO_SOON = -1;
/** The coarsest ping gap at a ramp after a drain that straddled an edge, ms: its lattice points to ±0.1 % of a 10 s window. */
const STRADDLED_GAP_MS = 10;
/**
 * The coarsest ping gap at any ramp, ms: a few requests per window step long (20 per 10 s: 500 ms)
 * read roughly off an edge found late (pings a third of the time since the drain apart, a Retry-After's
 * wait watched) came out 730 ms, pinged 184 ms apart: timed to ±6 %, not sized. At 25 ms, ±0.5 %.
 */
const LONG_STEP_GAP_MS = 25;
/**
 * Half-width of the window's bracket, as a share of it, beyond which it is not claimed: the limit and
 * window within 2 % (the silent 300 per 10 s counter, its edge 4–6 s after the drain across a
 * network, timed to 9.92–10.03 s when three clumps fit: not identified at ±0.5 %).
 */
const RAMP_PRECISION = 0.01;
/**
 * A bracket wider than this share of it each way is claimed near its long end, no shorter than
 * this far below it: the rate read is then never more than this far above the limiter's, whatever
 * the window in the bracket (the midpoint of ±1 % could be 1 % fast).
 */
const FAST_AT_MOST = 0.003;
/**
 * A clump and the lattice point after it end this share of the shortest window before the next
 * edge can come, at the rate the probe really sends: a stall between the drain and the clump slows
 * it further.
 */
const EDGE_MARGIN = 0.05;

export interface RampStart {
  /** What the drained window held: the drain's admissions and the set-up requests (its limit). */
  prev: number;
  /**
   * The limit: `prev`, unless the drain straddled an edge and filled two windows (the window before
   * the edge then held only part of it, and the limit is what the service announced, tested by the
   * ramp's line from the edge).
   */
  limit: number;
  /** The first edge after the drain: between the last refused ping and the first that passed. */
  edge: Bracket;
  /** The drain's first refusal: every request passed after it passed in the window after the edge. */
  refusal: Sample;
  /** The shortest the window can be: the drain lay in the window that ended at the edge. */
  shortestMs: number;
  /** When the service saw the drain's first admitted request. */
  drainStartMs: number;
  /** How fast the drain was really sent, req/s: a busy machine sends slower than max_rps, and so the ramp's clumps. */
  sendRps: number;
}

export interface RampFindings {
  model: SlidingCounterModel | null;
  /** The edge came one window after the drain began: HAProxy's counter, its period opened by the client, reads the same. */
  openedByClient?: boolean;
  evidence: string[];
  notes: string[];
  /** How far the rate of the window claimed may be off, relative (crossings.ts claimPrecision). */
  precision?: number;
  /** Pinged an eighth of a step apart, it let nothing through for several steps: refused requests may count. */
  shut?: boolean;
}

interface LatticePoint {
  at: Bracket;
  /** Requests the window after the edge had let through before this one. */
  before: number;
  /**
   * 1 when the acceptance may have been the counter's slack (latticeAdmission): the point `at` is
   * then the next one's, a step on, and one more passed before it.
   */
  slack: 0 | 1;
}

const fmt = (ms: number) => `${round(ms / 1000, 2)} s`;

export async function counterRampPhase(probe: Probe, start: RampStart): Promise<RampFindings> {
  const { prev, limit, edge, refusal } = start;
  // Admissions in the window the edge opened: all after the drain's refusal, or, when the drain
  // straddled an edge, after this edge too (the window before let some back as the one before it
  // weighed less). Not otherwise: what passed before an edge the pings found late (a lattice point
  // taken for it) then fails the line from that edge (httprate 100 per 10 s read 101 per 13.1 s).
  // Never the drain's own before the edge: one in flight past its refusal (jitter, a stall) that got
  // through was in the drained window, which `prev` counts (HAProxy's 300 per 10 s on a busy
  // machine: counted twice, it put the line a step early, "not on a line from the edge").
  const counted = (s: Sample) =>
    s.sentMs > refusal.sentMs &&
    (prev === limit ? !(s.phase === 'drain' && seenMs(s) <= edge.lo) : seenMs(s) > edge.lo);
  const notIdentified = (why: string): RampFindings => {
    const note = `not identified: ${why}`;
    return { model: null, evidence: [note], notes: [note] };
  };
  // The first clump after the edge filled the counter: the step, roughly, from what it let through.
  const roughStepMs = roughStep(probe, edge, counted, limit - prev);
  // A window that held only part of the drain (it straddled an edge) ramps in few, long steps
  // (httprate 200 per 10 s holding 36: 278 ms), each pinged no coarser than STRADDLED_GAP_MS; any
  // other no coarser than LONG_STEP_GAP_MS.
  const gapMs = Math.max(
    firstGapMs(probe),
    Math.min(roughStepMs / PINGS_PER_STEP, prev < limit ? STRADDLED_GAP_MS : LONG_STEP_GAP_MS),
  );
  const a = await latticePoint(probe, counted, gapMs, roughStepMs);
  if (!a)
    return {
      ...notIdentified(
        `a window weighing the last one (a sliding-window counter), but it let nothing more through within ${STEPS_SOUGHT} of its steps (about ${fmt(roughStepMs)} each); not sized`,
      ),
      shut: true,
    };
  const { window, steps, lastPoint, late } = await rampAcross(probe, start, { counted, gapMs, roughStepMs, a });
  if (!window || steps < 2)
    return notIdentified(
      `a sliding-window counter, but too little of its window was left after its first edge, or of the budget, to time its ramp${late ? ` (${late})` : ''}; not sized`,
    );
  const bracketed = midpoint(window);
  const sized = { ...bracketed, value: Math.max(bracketed.value, window.hi - FAST_AT_MOST * bracketed.value) };
  if (sized.precision > RAMP_PRECISION)
    return notIdentified(
      `a sliding-window counter, but its ramp was timed only to between ${fmt(window.lo)} and ${fmt(window.hi)}; not sized`,
    );
  const stepMs = sized.value / prev;
  // The lattice starts at the edge the pings found (a rounding rule moves it by under a step), the
  // first limit − prev let through at once there.
  const edgeMs = midpoint(a.at).value - (a.before + prev - limit + 0.5) * stepMs;
  if (edgeMs < edge.lo - 1.5 * stepMs || edgeMs > edge.hi + 1.5 * stepMs)
    return notIdentified(
      `its admissions came back every ${fmt(stepMs)}, but not on a line from the edge the pings found (${fmt(edge.lo)}–${fmt(edge.hi)}): not a sliding-window counter; not sized`,
    );
  const windowS = round(sized.value / 1000, 3);
  const model: SlidingCounterModel = {
    kind: 'sliding-counter',
    limit,
    window_s: windowS,
    phase_s: phaseS(probe, { lo: edgeMs, hi: edgeMs }, windowS),
    // Pinged many times a step and still let back on the lattice: the refused pings did not count.
    counts_refused: false,
  };
  // HAProxy's stick-table counter weighs its last period the same way, its period opened by the
  // client's first request: an edge one window after the drain began may be either.
  // Not where the drain straddled an edge the announced ends showed: that window began at an edge.
  const openedByClient =
    prev === limit && Math.abs(edgeMs - (start.drainStartMs + sized.value)) <= 2 * stepMs + (edge.hi - edge.lo);
  const weighed =
    prev === limit
      ? `the ${prev} drained`
      : `the ${prev} it held (the drain straddled an edge its answers announced; the limit is the ${limit} announced, on that line)`;
  return {
    model,
    openedByClient,
    evidence: [
      `after the first edge (${fmt(edge.lo)}–${fmt(edge.hi)}) the limit let requests back one every ${round(stepMs, 1)} ms, on a line from that edge, through pings refused in between (${steps} admissions between ${fmt(a.at.hi)} and ${fmt(lastPoint.at.hi)}): a window weighing ${weighed} by its share still to come, a sliding-window counter of ${limit} per ${windowS} s` +
        (openedByClient
          ? ` (its edge came one window after the drain began: a period opened by the client's first request, as HAProxy's stick table weighs it, reads the same)`
          : ''),
    ],
    notes: [],
  };
}

/** What the ramp's lattice points after the first (`a`) say of the window, and the last of them. */
interface RampTimed {
  window: Bracket | undefined;
  steps: number;
  lastPoint: LatticePoint;
  /** Why the last lattice point was not used: let back past where the next edge may be. */
  late: string | undefined;
}

/**
 * Clumps, or lattice points by pings alone while a clump would go too soon, after the first lattice
 * point `a`, each later than the last, until the window is timed to RAMP_PRECISION or no more fit
 * before the next edge can come.
 */
async function rampAcross(
  probe: Probe,
  start: RampStart,
  o: { counted: (s: Sample) => boolean; gapMs: number; roughStepMs: number; a: LatticePoint },
): Promise<RampTimed> {
  const { prev, limit, edge } = start;
  const { counted, gapMs, roughStepMs, a } = o;
  // The window is at least the shortest the drain allows and at least what the ramp so far says
  // (the counter lets `before` through at most `before + 1` steps after the edge); each clump
  // goes most of that after the edge, so it is always inside the window the edge opened, and each
  // lattice point found after it says more of the window, so the next clump goes later. The first
  // limit − prev pass at the edge itself.
  let shortestMs = Math.max(
    start.shortestMs,
    (prev * (a.at.lo - edge.hi)) / Math.max(1, a.before + a.slack + 1 + prev - limit),
  );
  // The next edge comes no sooner than that after the earliest this one can be: a lattice point
  // seen past it may be on the next window's lattice (HAProxy's 300 per 10 s through toxiproxy on a
  // busy machine: a clump sent at half max_rps ran past its next edge, and the ramp read 10.59 s,
  // or "not on a line from the edge"); later, no sooner than the window the lattice points so far allow.
  let nextEdgeMs = edge.lo + shortestMs;
  let lastPoint = a;
  let window: Bracket | undefined;
  let steps = 0;
  let late: string | undefined;
  let sendRps = start.sendRps;
  for (let clumps = 0, points = 0; clumps < MAX_CLUMPS && points < MAX_POINTS_ALONE;) {
    const fill = fillOf(prev, sendRps, nextEdgeMs - edge.lo, admittedSince(probe, counted) - (limit - prev));
    const clumpAtMs = nextClumpAt(probe, fill, { edge, shortestMs, lastPointMs: lastPoint.at.hi, roughStepMs });
    if (clumpAtMs === undefined) break;
    // Too soon for a clump (the window known so far is short: an edge found late, by pings a third
    // of the time since the drain apart): the next lattice point by pings alone, which the counter,
    // full since the edge, lets through on its line as well, says more of the window.
    if (clumpAtMs === TOO_SOON && roughStepMs < ALONE_FROM_STEP_MS) break;
    const alone = clumpAtMs === TOO_SOON;
    if (alone) points++;
    else clumps++;
    const clump = alone ? undefined : await drainAt(probe, 'edges', clumpAtMs, prev + 5);
    if (!alone && !clump?.some((s) => s.answer === 'limited')) break;
    if (clump) sendRps = Math.min(sendRps, sentRps(clump) ?? sendRps);
    const b = await latticePoint(probe, counted, gapMs, roughStepMs);
    if (!b) break;
    if (b.at.hi > nextEdgeMs) {
      late = clump
        ? `its last clump, sent at ${round(sentRps(clump) ?? sendRps, 1)} req/s, was let back past ${fmt(nextEdgeMs)}, where the next edge may be`
        : `its last step was let back past ${fmt(nextEdgeMs)}, where the next edge may be`;
      break;
    }
    steps = b.before - a.before;
    // Either point's acceptance may have been slack: one step more or fewer between them.
    window = {
      lo: (prev * (b.at.lo - a.at.hi)) / (steps + b.slack),
      hi: (prev * (b.at.hi - a.at.lo)) / Math.max(1, steps - a.slack),
    };
    lastPoint = b;
    if (midpoint(window).precision <= RAMP_PRECISION) break;
    // The counter lets `before` through at most `before + 1` steps after the edge.
    shortestMs = Math.max(
      shortestMs,
      window.lo,
      (prev * (b.at.lo - edge.hi)) / Math.max(1, b.before + b.slack + 1 + prev - limit),
    );
    nextEdgeMs = edge.lo + shortestMs;
  }
  return { window, steps, lastPoint, late };
}

/** Requests the window after the edge let through so far. */
const admittedSince = (probe: Probe, counted: (s: Sample) => boolean) =>
  probe.samples.filter((s) => s.answer === 'accepted' && counted(s)).length;

/**
 * What a clump meets, per ms: what the probe really sends, the most the window frees (one
 * `shortestMs` long frees the fastest), and what passed since the edge beyond the first limit − prev.
 */
interface Fill {
  sendPerMs: number;
  freePerMs: number;
  before: number;
  shortestMs: number;
}

const fillOf = (prev: number, sendRps: number, shortestMs: number, before: number): Fill => ({
  sendPerMs: sendRps / 1000,
  freePerMs: prev / shortestMs,
  before,
  shortestMs,
});

/**
 * How long a clump `intoMs` after the edge sends before the counter refuses it, at most: what the
 * window has freed by then, and what it frees while the clump sends. Infinite when the probe sends
 * no faster than the counter frees.
 */
const clumpMs = (f: Fill, intoMs: number): number =>
  f.sendPerMs <= f.freePerMs ? Infinity : Math.max(0, f.freePerMs * intoMs - f.before) / (f.sendPerMs - f.freePerMs);

/**
 * When the next clump goes: CLUMP_INTO_WINDOW of the shortest window after the edge, or sooner, so
 * that it ends, with the lattice point after it (an answer's round trip and the pings' steps),
 * EDGE_MARGIN of the shortest window before the next edge can come (solved from clumpMs, which
 * grows with the time since the edge). TOO_SOON when that is too soon after the last lattice
 * point; undefined past the budget.
 */
function nextClumpAt(
  probe: Probe,
  f: Fill,
  at: { edge: Bracket; shortestMs: number; lastPointMs: number; roughStepMs: number },
): number | undefined {
  const { edge, roughStepMs } = at;
  const endByMs = (1 - EDGE_MARGIN) * f.shortestMs - probe.latencyMs() - STEPS_SOUGHT * roughStepMs;
  const latestMs =
    f.sendPerMs <= f.freePerMs
      ? Number.NEGATIVE_INFINITY
      : edge.lo + (endByMs * (f.sendPerMs - f.freePerMs) + f.before) / f.sendPerMs;
  const atMs = Math.min(edge.lo + CLUMP_INTO_WINDOW * at.shortestMs, latestMs);
  const pastBudget = (ms: number) => ms + STEPS_SOUGHT * roughStepMs > probe.maxDurationMs;
  if (atMs < at.lastPointMs + 4 * roughStepMs) return pastBudget(at.lastPointMs) ? undefined : TOO_SOON;
  return pastBudget(atMs + clumpMs(f, atMs - edge.lo)) ? undefined : atMs;
}

/** How fast the drain was really sent, req/s, at most max_rps: its acceptances over the time they took to send. */
export const drainSentRps = (probe: Probe, drain: DrainFigures): number =>
  drain.accepted > 1 && drain.lastMs > drain.firstMs
    ? Math.min(probe.maxRps, ((drain.accepted - 1) * 1000) / (drain.lastMs - drain.firstMs))
    : probe.maxRps;

/** How fast a run of requests was really sent, req/s; undefined for a run too short to say. */
export function sentRps(run: readonly Sample[]): number | undefined {
  if (run.length < 10) return undefined;
  const sent = run.map((s) => s.sentMs).sort((x, y) => x - y);
  const spanMs = sent.at(-1)! - sent[0]!;
  return spanMs > 0 ? ((sent.length - 1) * 1000) / spanMs : undefined;
}

/** The interval between admissions so far after the edge: the time since it over what passed, less the `atOnce` free at the edge. */
const roughStep = (probe: Probe, edge: Bracket, counted: (s: Sample) => boolean, atOnce: number) =>
  (probe.elapsed() - midpoint(edge).value) /
  Math.max(1, probe.samples.filter((s) => s.answer === 'accepted' && counted(s)).length - Math.max(0, atOnce));

/**
 * Whether pings can time this counter's steps: a sixth of a step no shorter than the pings' own
 * gap. The recovery's trickle reads a step roughly (httprate 100 per 10 s: 78–137 ms for 100; 50
 * per 1 s: 19–51 ms for 20), and a ramp tried on too short a step leaves the usual phases a
 * counter in disarray (50 per 1 s then read as a log 19 % fast): at 200 req/s, 60 ms parts them.
 */
export const rampTimeable = (probe: Probe, stepMs: number): boolean => stepMs >= TIMEABLE_STEP * firstGapMs(probe);

/**
 * Pings on a schedule from the last request until the limiter is seen to let one through right
 * after refusing one: the next lattice point, between the two (by when it saw them: across a
 * network ~100 ms away the pings still in flight arrive jittered, one sent later may have overtaken,
 * and the first ping may go a round trip after the clump that filled the counter, past a point
 * already), and what passed before it.
 */
async function latticePoint(
  probe: Probe,
  counted: (s: Sample) => boolean,
  gapMs: number,
  roughStepMs: number,
): Promise<LatticePoint | undefined> {
  const fromMs = lastSentMs(probe.samples);
  // Looked for over that many steps from the first ping, which goes once the last answer is back.
  const untilMs = Math.max(fromMs, probe.elapsed()) + STEPS_SOUGHT * roughStepMs + gapMs;
  let lastFound: LatticeAdmission | undefined;
  const pings = await pingsOnSchedule(probe, 'edges', fromMs, gapMs, untilMs, (answered) => {
    lastFound = latticeAdmission(answered) ?? lastFound;
    return lastFound !== undefined;
  });
  // Pings answered after one was found may widen the round trips' spread, and with it what is
  // surely after the first refusal (one a leg 40 ms late): the one found then may have been slack.
  // None surely after it within the steps sought: the first acceptance after a refusal, a step either way.
  const anyPair = backAfterRefused(pings);
  const point =
    latticeAdmission(pings) ??
    (lastFound && { ...lastFound, slack: 1 as const }) ??
    (anyPair && { ...anyPair, unsureMs: unsureOf(pings), slack: 1 as const });
  if (!point) return undefined;
  const { refused, accepted, unsureMs, slack } = point;
  return {
    at: { lo: seenMs(refused) - unsureMs, hi: seenMs(accepted) + unsureMs },
    before: probe.samples.filter((s) => s.answer === 'accepted' && counted(s) && seenMs(s) < seenMs(accepted)).length,
    slack,
  };
}

interface LatticeAdmission {
  refused: Sample;
  accepted: Sample;
  /** How far either may be off when the limiter saw it, ms. */
  unsureMs: number;
  slack: 0 | 1;
}

/**
 * The first acceptance the limiter saw right after a refusal, and surely after the pings' first
 * refusal, with that refusal. The pings begin a round trip after the last answer: the counter
 * frees a step or two meanwhile, its slack, which the first pings spend before one is refused. An
 * acceptance the limiter may have seen before that first refusal may have been slack, let through
 * a step or more before the point the pair would put it at (httprate 200 per 10 s across 50 ± 10
 * ms, the probe 10 ms late: one step miscounted, the window read 0.6 % short, its rate above the
 * limiter's). Past it the counter is full and frees one a step, for the pings a few ms apart to
 * take. When the limiter saw a ping is its round trip's middle, off by at most half what one leg
 * varies: a quarter of the spread of the round trips; two seen less than twice that apart may have
 * reached it the other way round.
 */
function latticeAdmission(pings: readonly Sample[]): LatticeAdmission | undefined {
  const unsureMs = unsureOf(pings);
  const seen = inSeenOrder(pings);
  const full = seen.find((s) => s.answer === 'limited');
  if (!full) return undefined;
  const i = seen.findIndex(
    (s, k) =>
      k > 0 && s.answer === 'accepted' && seen[k - 1]!.answer === 'limited' && seenMs(s) - seenMs(full) >= 2 * unsureMs,
  );
  if (i < 0) return undefined;
  // The point lies after a refusal the limiter surely saw before the acceptance: the one right
  // before it may have reached it after (a leg 20 ms late: the point put 24 ms late, one of 49
  // steps, httprate's window read 0.7 % short).
  const accepted = seen[i]!;
  const refused = seen.findLast((s) => s.answer === 'limited' && seenMs(s) <= seenMs(accepted) - 2 * unsureMs)!;
  return { refused, accepted, unsureMs, slack: 0 };
}

/** How far a ping's seenMs may be off when the limiter saw it: a quarter of the spread of the round trips. */
const unsureOf = (pings: readonly Sample[]): number => reorderMs(pings) / 4;

/** The first acceptance the limiter saw right after a refusal, in the order it saw them. */
export function backAfterRefused(pings: readonly Sample[]): { refused: Sample; accepted: Sample } | undefined {
  const seen = inSeenOrder(pings);
  const i = seen.findIndex((s, k) => k > 0 && s.answer === 'accepted' && seen[k - 1]!.answer === 'limited');
  return i < 0 ? undefined : { refused: seen[i - 1]!, accepted: seen[i]! };
}

/**
 * A silent smooth window whose first edge came soon after the drain (within LONG_WINDOW_S: the
 * usual phases' first recovery found it), its steps long enough to time: its ramp, before anything
 * else sends, while the window that edge opened lasts. Undefined when it is not timeable or not
 * told from HAProxy's counter: the usual phases go on (they wait for idle first).
 */
export async function rampAfterShape(probe: Probe, shape: ShapeFindings): Promise<RampFindings | undefined> {
  const { drain, recovery, figures } = shape;
  if (shape.shape !== 'smooth-window' || figures.trickleMs === null || !rampTimeable(probe, figures.trickleMs))
    return undefined;
  const edge: Bracket = { lo: seenMs(recovery.lastRefused ?? drain.refusal), hi: seenMs(recovery.accepted) };
  probe.progress(`a silent smooth window letting one back every ${fmt(figures.trickleMs)}: timing its ramp`);
  const ramp = await rampFromEdge(probe, drain, edge);
  return ramp.model && !ramp.openedByClient ? ramp : undefined;
}

/** No window this short lets a drained client back this long after the drain began: its ramp is timeable whatever it announces. */
const LATE_EDGE_MS = 1500;

/**
 * The first comeback came too long after the drain began for a window of a second or so (httprate
 * 20 per 1 s across a network: its ramp, tried on pings a round trip apart, read nothing and left
 * the phases after it a counter in disarray, not identified).
 */
export const edgeCameLate = (shape: ShapeFindings): boolean =>
  shape.recovery.accepted.sentMs - shape.drain.firstMs >= LATE_EDGE_MS;

/**
 * The ramp after the first edge the pings found after `drain`, which filled the window before it;
 * or, where the answers' announced ends say the drain straddled an edge, filled the part of it
 * after that edge (`held`, countedInWindowEndingAt), the limit then the one announced.
 */
export function rampFromEdge(
  probe: Probe,
  drain: DrainFigures,
  edge: Bracket,
  held?: WindowHeld,
): Promise<RampFindings> {
  const drainSample = probe.samples.find((s) => s.phase === 'drain' && s.sentMs === drain.firstMs);
  const drainStartMs = drainSample ? seenMs(drainSample) : drain.firstMs;
  const announced = probe.advertisements.last?.ad.limit;
  const straddled = held !== undefined && held.count !== drain.limit && announced !== undefined;
  const windowStartMs = straddled ? held.firstSeenMs : drainStartMs;
  return counterRampPhase(probe, {
    prev: straddled ? held.count : drain.limit,
    limit: straddled ? announced : drain.limit,
    edge,
    refusal: drain.refusal,
    shortestMs: edge.lo - windowStartMs,
    drainStartMs: windowStartMs,
    sendRps: drainSentRps(probe, drain),
  });
}
