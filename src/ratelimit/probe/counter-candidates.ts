// The counters counting every request (HAProxy's usual recipe) that explain a probe's whole trace:
// each candidate limit, period and period start replayed over every request through the limiter's
// own model (limiters/interpolated-window.ts), and kept only when it answers each one as the
// service did. Pure: the trace carries its own times. counter-fit.ts sends the pings that split them.
//
// The candidates that explain a trace lie along a thin band in period and start: the edges near the
// trace's crossings agree within milliseconds while the period is known to a percent or two. So a
// coarse pass finds the band roughly, and the box it is scanned in is set by the period and the
// one edge its candidates agree on best (a box over periods and starts is mostly empty, and scanned
// in steps it missed the band), then scanned again finer around what it kept.
//
// Timing: the limiter decided each request somewhere in [sent, answered] (judge.ts's rule): an
// admission is explained when a candidate admits it by the answer, a refusal when it refuses it at
// the sending; each request is counted when it was seen (arrival.ts seenMs).

import type { Bracket } from '../identify.js';
import { createLimiter, type Limiter } from '../limiters/index.js';
import type { Sample } from '../types.js';
import { seenMs } from './arrival.js';

/** The shortest period tried, ms; the longest is the caller's. */
const SHORTEST_MS = 2000;
/** Steps of the coarse pass, relative: periods this far apart, starts this share of a period. */
const COARSE = 0.01;
/** Mispredictions a coarse candidate may make and still be looked at finely: its neighbours may make none. */
const COARSE_SLIP = 4;
/** Steps a box is scanned in, each way; no finer than FINEST (a share of the period, and ms). */
const SCAN_STEPS = 60;
const FINEST = { window: 0.0002, edgeMs: 1 };
/** Scans at most per look (zoom). */
const SCAN_ROUNDS = 4;

/** One request as the candidates are replayed over it. */
export interface Seen {
  sentMs: number;
  doneMs: number;
  atMs: number;
  admitted: boolean;
}

/** A counter counting every request: its limit, its period and where its periods start, ms. */
interface Trial {
  limit: number;
  windowMs: number;
  startMs: number;
}

/** A candidate that explained every request so far, its model having counted each of them. */
export interface Candidate extends Trial {
  model: Limiter;
}

/** What the trace fixes beside the candidates: the set-up requests that opened the first period, the drain, its limit. */
export interface FitStart {
  setUp: number;
  drainFirstMs: number;
  limit: number;
  /** Requests replayed so far, all candidates together: the fit's CPU time (FIT_WORK bounds it). */
  work: { replayed: number };
}

/**
 * Requests replayed at most by one fit, all candidates together: about a second of this machine's
 * CPU (the virtual suites' fits replay up to 13.4 million). A trace past it (a long probe, a limit
 * no counter explains closely, a service that answers to confuse) ends the fit, sizing nothing.
 */
export const FIT_WORK = 40_000_000;

/** Whether the fit has replayed as much as FIT_WORK allows. */
export const workSpent = (start: FitStart): boolean => start.work.replayed >= FIT_WORK;

/**
 * Where candidates are looked for: periods, ms, and one edge of theirs, the `k`-th after their
 * start (e = start + k·period), ms.
 */
interface Box {
  k: number;
  window: Bracket;
  edge: Bracket;
}

export const toSeen = (s: Sample): Seen => ({
  sentMs: s.sentMs,
  doneMs: s.doneMs,
  atMs: seenMs(s),
  admitted: s.answer === 'accepted',
});

/** The primary client's answered requests from `fromMs` on, in the order the limiter saw them. */
export function traceFrom(samples: readonly Sample[], fromMs: number): Seen[] {
  return admissionsFirst(
    samples
      .filter((s) => s.client === 'primary' && s.answer !== 'error' && s.sentMs >= fromMs)
      .map(toSeen)
      .sort((a, b) => a.atMs - b.atMs),
  );
}

/**
 * `trace` (in seen order) with each admission that was sent before a refusal's seen time, yet seen
 * after it, moved to just before that refusal (no earlier than its send). A counter counting every
 * request only fills within a clump (a slot frees every window / limit, seconds at these limits),
 * so of two requests in flight together the admitted one came first; and an admission's answer
 * carries the service's time behind the limiter, a refusal's does not, so its midpoint is the one
 * late. Real HAProxy 50 per 10 s on a loaded machine: the drain's last admission, sent at 266 ms,
 * answered at 283 behind a slow upstream, was seen after the refusal sent at 270 and answered at
 * 273, and no counter explained the trace ("not identified", 1 run of 8 under stress-ng).
 */
function admissionsFirst(trace: Seen[]): Seen[] {
  const moved = trace.map((r, i) => {
    if (!r.admitted) return r;
    const refusal = trace.slice(0, i).find((q) => !q.admitted && q.atMs >= r.sentMs);
    return refusal ? { ...r, atMs: Math.max(r.sentMs, refusal.atMs - 0.01) } : r;
  });
  return moved.sort((a, b) => a.atMs - b.atMs);
}

/** Whether `model` answers `r` as the service did (judge.ts's timing rule). */
export const explains = (model: Limiter, r: Seen): boolean =>
  r.admitted ? model.test(r.doneMs).ok : !model.test(r.sentMs).ok;

/** `t`'s model after `trace` (the set-up requests opened its first period), or null once it mispredicts more than `most`. */
function replayed(trace: readonly Seen[], start: FitStart, t: Trial, most: number): Candidate | null {
  const { setUp, work } = start;
  const model = createLimiter({
    kind: 'sliding-window',
    limit: t.limit,
    period_s: t.windowMs / 1000,
    counts_refused: true,
    counter: 'interpolated',
  });
  for (let i = 0; i < setUp; i++) model.take(t.startMs);
  let wrong = 0;
  for (const r of trace) {
    work.replayed++;
    if (!explains(model, r) && ++wrong > most) return null;
    model.take(r.atMs);
  }
  return { ...t, model };
}

/** The candidates of `left` that answer `r` as the service did, each having counted it. */
export function keptBy(left: readonly Candidate[], r: Seen): Candidate[] {
  const kept = left.filter((c) => explains(c.model, r));
  for (const c of kept) c.model.take(r.atMs);
  return kept;
}

export const periodsOf = (left: readonly Candidate[]): Bracket => ({
  lo: Math.min(...left.map((s) => s.windowMs)),
  hi: Math.max(...left.map((s) => s.windowMs)),
});

export const startsOf = (left: readonly Candidate[]): Bracket => ({
  lo: Math.min(...left.map((s) => s.startMs)),
  hi: Math.max(...left.map((s) => s.startMs)),
});

/**
 * The box around `left`: the edge whose times they agree on best (up to a period past `lastMs`),
 * that edge's bracket and the periods', two of `steps` wider each way.
 */
function boxAround(left: readonly Candidate[], lastMs: number, steps: { window: number; edge: number }): Box {
  const window = periodsOf(left);
  let best: Box = { k: 1, window, edge: { lo: -Infinity, hi: Infinity } };
  for (let k = 1; ; k++) {
    const edges = left.map((s) => s.startMs + k * s.windowMs);
    const edge = { lo: Math.min(...edges), hi: Math.max(...edges) };
    if (edge.lo > lastMs + window.hi) break;
    if (edge.hi - edge.lo < best.edge.hi - best.edge.lo) best = { k, window, edge };
  }
  return {
    k: best.k,
    window: { lo: window.lo - 2 * steps.window, hi: window.hi + 2 * steps.window },
    edge: { lo: best.edge.lo - 2 * steps.edge, hi: best.edge.hi + 2 * steps.edge },
  };
}

/** The steps a box is scanned in: SCAN_STEPS each way, no finer than FINEST. */
const stepsOf = (box: Pick<Box, 'window' | 'edge'>) => ({
  window: Math.max((box.window.hi - box.window.lo) / SCAN_STEPS, FINEST.window * box.window.lo),
  edge: Math.max((box.edge.hi - box.edge.lo) / SCAN_STEPS, FINEST.edgeMs),
});

/** Every candidate in `box` that explains the whole trace, its periods starting no later than the drain and less than a period before it. */
function scan(trace: readonly Seen[], start: FitStart, box: Box): Candidate[] {
  const steps = stepsOf(box);
  const kept: Candidate[] = [];
  for (let windowMs = box.window.lo; windowMs <= box.window.hi; windowMs += steps.window)
    for (let edgeMs = box.edge.lo; edgeMs <= box.edge.hi; edgeMs += steps.edge) {
      const startMs = edgeMs - box.k * windowMs;
      if (startMs > start.drainFirstMs || startMs <= start.drainFirstMs - windowMs) continue;
      if (workSpent(start)) return kept;
      const found = replayed(trace, start, { limit: start.limit, windowMs, startMs }, 0);
      if (found) kept.push(found);
    }
  return kept;
}

/** Scans of `box`, each over the box around what the last one kept, finer, until at FINEST (at most SCAN_ROUNDS); [] when none explains the trace. */
function zoom(trace: readonly Seen[], start: FitStart, first: Box): Candidate[] {
  const lastMs = trace.at(-1)?.atMs ?? 0;
  let box = first;
  let left: Candidate[] = [];
  for (let round = 0; round < SCAN_ROUNDS; round++) {
    const found = scan(trace, start, box);
    if (found.length === 0) return left;
    left = found;
    const next = boxAround(left, lastMs, stepsOf(box));
    const steps = stepsOf(next);
    if (steps.window <= FINEST.window * next.window.lo && steps.edge <= FINEST.edgeMs) return left;
    box = next;
  }
  return left;
}

/**
 * Every counter counting every request, its limit the drain's (its set-up requests included: a
 * table that counted them in the drain's period refuses the drain's first request past it), whose
 * period lies between SHORTEST_MS and `longestMs`, that explains the whole trace.
 */
export function candidatesOf(trace: readonly Seen[], start: FitStart, longestMs: number): Candidate[] {
  const coarse: Candidate[] = [];
  for (let windowMs = SHORTEST_MS; windowMs <= longestMs; windowMs *= 1 + COARSE)
    for (let k = 0; k < 1 / COARSE; k++) {
      const t = { limit: start.limit, windowMs, startMs: start.drainFirstMs - k * COARSE * windowMs };
      if (workSpent(start)) return [];
      const found = replayed(trace, start, t, COARSE_SLIP);
      if (found) coarse.push(found);
    }
  if (coarse.length === 0) return [];
  const step = COARSE * periodsOf(coarse).hi;
  return zoom(trace, start, boxAround(coarse, trace.at(-1)?.atMs ?? 0, { window: step, edge: step }));
}

/**
 * The candidates around `around` (those left before a ping, or after it) that explain the whole
 * trace, scanned afresh and finer: a candidate a few milliseconds off the true start mispredicts a
 * ping sent where the candidates disagree, so the band is looked at again rather than thinned.
 */
export function rescanned(trace: readonly Seen[], start: FitStart, around: readonly Candidate[]): Candidate[] {
  if (around.length === 0) return [];
  const lastMs = trace.at(-1)?.atMs ?? 0;
  return zoom(trace, start, boxAround(around, lastMs, stepsOf(boxAround(around, lastMs, { window: 0, edge: 0 }))));
}
