// Telling the limiter's kind from what the probe saw, and the arithmetic of pinning its period.
// Pure functions of numbers the probe measured (send times in ms, counts), so each rule is tested
// on hand-made figures without a server or a clock. The probe phases that gather the figures are
// probe/recover.ts, probe/window-edges.ts and probe/sliding-period.ts.
//
// The three shapes leave different marks once drained from idle:
//  - a bucket refills one request every 1/rate: the first request after the refusal passes about
//    1/rate later, and the next ones just as often;
//  - a window that resets (a fixed window; a sliding log, whose slots free as the drained requests
//    age out) lets a whole limit through again at once;
//  - a window that slides smoothly (HAProxy's http_req_rate: two fixed windows interpolated) keeps
//    the client out for most of a period, then lets one through every period / limit.

import type { FixedWindowModel } from '../spec/limiter-model.js';
import { TAIL_SINGLES } from './probe/drain-tail.js';

/**
 * Which of the three recoveries above the drain saw: a class of limiter kinds, not a LimiterKind (a
 * resetting window is a fixed window or a sliding log; a smooth window an interpolated sliding
 * window or a sliding-window counter). The window phases then tell the kind.
 */
export type RecoveryShape = 'bucket' | 'resetting-window' | 'smooth-window';

export interface ShapeFigures {
  /** Requests that passed in the drain from idle, before the first refusal. */
  drained: number;
  /** ms from the drain's refusal to the first request that passed again. */
  recoveryMs: number;
  /** Requests that passed back to back right after that one (it included). */
  clump: number;
  /**
   * The most a smoothly sliding window could have let through at once by then: it frees its limit
   * over a period, and the request that found the recovery came up to one ping gap late (`lateMs`,
   * the gap before it) after at least `beforeMs` (the last refused ping, from the drain's start).
   */
  lateMs: number;
  beforeMs: number;
  /** Mean ms between the next few requests that passed, pinged one at a time; null when none did. */
  trickleMs: number | null;
  /**
   * Requests let through one at a time between refusals while the drain's tail still ran, before
   * the comeback (probe/drain-tail.ts tailSingles): a bucket refilling, not a window shut until it resets.
   */
  tailSingles?: number;
  /**
   * How much of `recoveryMs` the request that found the recovery went out later than the pings
   * planned it (ping.ts overdueMs): the probe's own lateness, not the limit's. 0 when on time.
   */
  overdueMs?: number;
  /**
   * How much later than it was sent the drain's first refusal may have reached the limiter: its
   * round trip past the usual of those answered before it left (probe/arrival.ts lateForItsMomentMs). A
   * service stalled while the probe went on sending decides what reached it at the stall's end,
   * the drain's tail with it, and that tail takes the refills the stall saved: the limit shut that
   * much later than `recoveryMs` counts from. 0 or unset when answered on time.
   */
  refusalLateMs?: number;
}

/**
 * The least the limit was shut for, ms: the recovery less what the probe's last ping went out late
 * and what the refusal it counts from may have reached the limiter late.
 */
export const shutAtLeastMs = (f: Pick<ShapeFigures, 'recoveryMs' | 'overdueMs' | 'refusalLateMs'>): number =>
  f.recoveryMs - (f.overdueMs ?? 0) - (f.refusalLateMs ?? 0);

/**
 * A bucket's first recovery is at most about two trickle intervals (the ping that found it may
 * be late by up to the gap before it, which doubles); a smooth sliding window's is about `limit`
 * intervals. Three and a half sits between, for any limit above about a dozen.
 */
export const SLIDING_RECOVERY_RATIO = 3.5;

/** What a smooth window frees in `lateMs` after at least `beforeMs` of a period, with half again for slack. */
export const smoothClumpMax = (f: Pick<ShapeFigures, 'drained' | 'lateMs' | 'beforeMs'>): number =>
  (1.5 * f.drained * f.lateMs) / Math.max(1, f.beforeMs);

/**
 * The limit came back whole at once, more than a smooth window frees meanwhile, and nothing came
 * back one at a time before it (a bucket's refills among the drain's tail: TAIL_SINGLES of them).
 */
export const resetWhole = (
  f: Pick<ShapeFigures, 'clump' | 'drained' | 'lateMs' | 'beforeMs' | 'tailSingles'>,
): boolean =>
  f.clump >= Math.max(3, Math.ceil(f.drained / 2)) &&
  f.clump > smoothClumpMax(f) &&
  (f.tailSingles ?? 0) < TAIL_SINGLES;

export function shapeOf(f: ShapeFigures): { shape: RecoveryShape; evidence: string } {
  if (resetWhole(f)) {
    return {
      shape: 'resetting-window',
      evidence: `after the first refusal, nothing passed for ${ms(f.recoveryMs)}, then ${f.clump} requests passed back to back: the limit came back whole, as a window's does`,
    };
  }
  // Less what the probe itself was late: a bucket's comeback found by a ping a stall held back
  // 270 ms right after the drain is no window's wait (the emulator's bucket 50/s on a busy machine,
  // "a sliding window ... not pinned down", CI land90 and land94; seed 57 of a stall sweep). And
  // less what the refusal was answered late: the emulator stalled 1.2 s in a busy test process read
  // "nothing passed for 1.41 s, then one request every 48 ms" off its bucket 20/s (CI 54f).
  if (f.trickleMs !== null && f.drained >= 4 && shutAtLeastMs(f) >= SLIDING_RECOVERY_RATIO * f.trickleMs) {
    return {
      shape: 'smooth-window',
      evidence: `after the first refusal, nothing passed for ${ms(f.recoveryMs)}, then one request every ${ms(f.trickleMs)}: kept out for most of a period, then admitted as the window slides (a bucket would admit one every ${ms(f.trickleMs)} from the start)`,
    };
  }
  const lateMs = f.recoveryMs - shutAtLeastMs(f);
  // Said when it decided the reading: a long wait read as a bucket needs its why.
  const late =
    f.trickleMs !== null && lateMs > 0 && f.recoveryMs >= SLIDING_RECOVERY_RATIO * f.trickleMs
      ? ` (${ms(lateMs)} of it the refusal's answer or the next request late)`
      : '';
  return {
    shape: 'bucket',
    evidence:
      f.trickleMs === null
        ? `after the first refusal a request passed again within ${ms(f.recoveryMs)}${late}, one at a time: a bucket refilling`
        : `after the first refusal a request passed again within ${ms(f.recoveryMs)}${late}, then one every ${ms(f.trickleMs)}: a bucket refilling at a steady rate`,
  };
}

const ms = (x: number) => (x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${Math.round(x)} ms`);

/** An interval known to hold a time: it is after `lo` and at or before `hi` (ms). */
export interface Bracket {
  lo: number;
  hi: number;
}

/**
 * Fixed-window edges e_k = e_0 + k·W, each known to lie in its bracket (after a refused request,
 * at or before the accepted one that followed): the window lengths every pair of brackets allows.
 * Empty (lo > hi) when no lattice fits: the edges are not fixed in time.
 */
export function windowLength(edges: readonly Bracket[]): Bracket {
  let lo = 0;
  let hi = Infinity;
  for (let i = 0; i < edges.length; i++) {
    for (let j = i + 1; j < edges.length; j++) {
      lo = Math.max(lo, (edges[j]!.lo - edges[i]!.hi) / (j - i));
      hi = Math.min(hi, (edges[j]!.hi - edges[i]!.lo) / (j - i));
    }
  }
  return { lo, hi };
}

/** Where the next edge (index edges.length) can be, given the window lengths allowed. */
export function nextEdge(edges: readonly Bracket[], length: Bracket): Bracket {
  const n = edges.length;
  let lo = -Infinity;
  let hi = Infinity;
  for (const [i, e] of edges.entries()) {
    lo = Math.max(lo, e.lo + (n - i) * length.lo);
    hi = Math.min(hi, e.hi + (n - i) * length.hi);
  }
  return { lo, hi };
}

/** The middle of a bracket and its half-width relative to it: the estimate and its precision. */
export function midpoint(b: Bracket): { value: number; precision: number } {
  const value = (b.lo + b.hi) / 2;
  return { value, precision: value > 0 ? (b.hi - b.lo) / 2 / value : Infinity };
}

/**
 * A window the probe opened with a request of its own, the first after the last window ended (as
 * rate-limiter-flexible opens them): still open at `openMs` (a later request was refused, or passed
 * within the limit), over by `closedMs` (a request there opened the next one).
 */
export interface OpenedWindow {
  startMs: number;
  openMs: number;
  closedMs: number;
}

/** The window lengths a set of windows opened at the client's first request allows; empty (lo > hi) when none fits. */
export function openedWindowLength(windows: readonly OpenedWindow[]): Bracket {
  let lo = 0;
  let hi = Infinity;
  for (const w of windows) {
    lo = Math.max(lo, w.openMs - w.startMs);
    hi = Math.min(hi, w.closedMs - w.startMs);
  }
  return { lo, hi };
}

/**
 * What windows opened at the first request say of their length, allowing for one misread window
 * (its opening request reached the limit late, on a busy machine): all of them agree; or all but
 * one do, and only one such window can be left out (`agreeing` then leaves it out); or several can,
 * and which was misread is not known yet (`agreeing` null, `length` every length those allow, two
 * windows that disagree included); or no one window explains it (`length` empty).
 */
export function openedReading(windows: readonly OpenedWindow[]): { length: Bracket; agreeing: OpenedWindow[] | null } {
  const all = openedWindowLength(windows);
  if (all.lo <= all.hi) return { length: all, agreeing: [...windows] };
  const allButOne = windows
    .map((_, i) => windows.filter((_, j) => j !== i))
    .filter((ws) => fits(openedWindowLength(ws)));
  if (allButOne.length === 1 && windows.length >= 3)
    return { length: openedWindowLength(allButOne[0]!), agreeing: allButOne[0]! };
  const lengths = allButOne.map(openedWindowLength);
  return {
    length:
      lengths.length === 0
        ? { lo: Infinity, hi: 0 }
        : { lo: Math.min(...lengths.map((l) => l.lo)), hi: Math.max(...lengths.map((l) => l.hi)) },
    agreeing: null,
  };
}

const fits = (b: Bracket) => b.lo <= b.hi;

/**
 * Where a window's edges are anchored (not a limiter kind): on the clock (`phase_s` + k × window,
 * whatever the client does), a window after the client's first request since the last one ended
 * (the two a fixed window's `edges` reports), or nowhere fixed (a sliding log frees each request's
 * slot a period after it).
 */
export type WindowAnchor = NonNullable<FixedWindowModel['edges']> | 'sliding';

/**
 * The edge trial, ms on the probe's clock: once idle, one request (`firstMs`: it opens a window if
 * windows open at the first request), the rest of the limit a little later (`burstMs`), one request
 * just past the clock's next edge (`pingMs`, when a lattice of edges is known), and a clump just past
 * a window after the first request (`clumpMs`), while a sliding log still holds the burst.
 */
export interface EdgeTrialPlan {
  firstMs: number;
  burstMs: number;
  /** When the burst has gone out, at the latest (a quarter slower than max_rps). */
  burstEndMs: number;
  pingMs: number | null;
  clumpMs: number;
  /** How much later than planned a request may go out before the trial proves nothing (a stalled process). */
  lateMs: number;
}

/**
 * The edge trial's times from the bracket of a window's length after the request that opened it (or
 * of a sliding log's period: the same pings measure both, `length`), how long the burst takes to
 * send at max_rps (`burstSendMs`), the first moment the limit is surely idle (`notBeforeMs`) and,
 * when the edges may be on the clock, one of those edges and their spacing (`clock`). Null when the
 * burst takes too long for the trial to fit in a window (a limit near max_rps × window).
 */
export function edgeTrialPlan(o: {
  length: Bracket;
  burstSendMs: number;
  notBeforeMs: number;
  clock?: { edgeMs: number; windowMs: number };
  /** The drain's comeback: a sliding log's period is no shorter than WITHIN_PERIOD of it. */
  comebackMs?: number;
}): EdgeTrialPlan | null {
  const { comebackMs, ...rest } = o;
  // A window opened before the drain came back sooner than its length (rate-limiter-flexible, CI
  // s37: a comeback of 0.941 s, edges 1 s apart): a log that fast would free the burst's slots
  // before a clump planned off the edges alone, and the trial could tell nothing. Planned off the
  // shorter of the two when that still fits; else off the edges, and clumpTiming says what it told.
  const logLo = comebackMs === undefined ? rest.length.lo : Math.min(rest.length.lo, WITHIN_PERIOD * comebackMs);
  return planEdgeTrial(rest, logLo) ?? (logLo < rest.length.lo ? planEdgeTrial(rest, rest.length.lo) : null);
}

function planEdgeTrial(
  o: { length: Bracket; burstSendMs: number; notBeforeMs: number; clock?: { edgeMs: number; windowMs: number } },
  logLoMs: number,
): EdgeTrialPlan | null {
  const { lo, hi } = o.length;
  const mid = (lo + hi) / 2;
  // Margins of a few hundredths of a window: more than the length's bracket is wide once pinned,
  // and than a busy machine delays a request.
  const margin = 0.05 * mid;
  // The burst goes after the first request by more than the length is uncertain (down to the
  // shortest period a log may have), so a clump a window after the first request comes before a
  // sliding log lets the burst's slots go; with 7.5 % of a window to spare on either side: for the
  // first request reaching the limit late (its window ends later), and for the burst's slots freeing early.
  const firstToBurst = hi - logLoMs + 0.15 * mid;
  // Sending runs late on a busy machine: a quarter more than max_rps allows.
  const burstEnd = firstToBurst + 1.25 * o.burstSendMs;
  // The clock's edge comes a margin after the burst, the ping a margin after the edge; both well
  // inside a window opened by the first request, and before a log could free the first request's
  // slot (else the ping let in tells a log for edges on the clock).
  const pingAfterFirst = burstEnd + 2 * margin;
  if (!(hi < Infinity) || pingAfterFirst > logLoMs - margin) return null;
  let firstMs = o.notBeforeMs;
  if (o.clock) {
    const { edgeMs, windowMs } = o.clock;
    if (burstEnd + margin > windowMs) return null;
    firstMs =
      edgeMs + Math.ceil((o.notBeforeMs + burstEnd + margin - edgeMs) / windowMs) * windowMs - burstEnd - margin;
  }
  return {
    firstMs,
    burstMs: firstMs + firstToBurst,
    burstEndMs: firstMs + burstEnd,
    pingMs: o.clock ? firstMs + pingAfterFirst : null,
    clumpMs: firstMs + hi + 0.075 * mid,
    lateMs: margin,
  };
}

/**
 * Of the shortest period a sliding log may have, the most the requests that passed may span: none
 * of them aged out of it. The edges' lattice alone is no bound: a log's edges follow the probe's
 * fills and fitted lattices up to 10 % longer than its period on a busy machine.
 */
export const WITHIN_PERIOD = 0.95;

/**
 * Whether a clump let through whole, `afterBurstMs` after the burst began, tells a window opened at
 * the first request from a sliding log: only if it came before the burst's slots could age out of
 * a log, whose period is at least the drain's comeback. `undecided` when even its plan put it that
 * late; `late` when the plan did not and the clump went out late within the margin that calls a
 * request late on its own (CI land38: planned 0.925 s after the burst, sent 0.987 s after it, against
 * a comeback of 1.011 s), the machine's doing: the trial is sent again rather than end untested.
 */
export function clumpTiming(
  afterBurstMs: number,
  plannedAfterBurstMs: number,
  comebackMs: number,
): 'told' | 'late' | 'undecided' {
  const logMayHaveFreed = WITHIN_PERIOD * comebackMs;
  if (afterBurstMs < logMayHaveFreed) return 'told';
  return plannedAfterBurstMs < logMayHaveFreed ? 'late' : 'undecided';
}

/**
 * What the edge trial saw: the ping past the clock's edge let through → edges on the clock; else a
 * clump a window after the first request let through whole (at least half the limit, and more than
 * a sliding log could free: the first request's slot and a counted refusal's) → a window opened
 * by the first request; else a sliding log.
 */
export function edgeTrialVerdict(limit: number, pingAccepted: boolean | null, clumpPassed: number): WindowAnchor {
  if (pingAccepted === true) return 'clock';
  return clumpPassed >= Math.max(3, Math.ceil(limit / 2)) ? 'first-request' : 'sliding';
}
