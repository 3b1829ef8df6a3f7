// A window that came back whole: where its edges fall. If it is a fixed window on the clock, the
// edges lie on a lattice e_k = e_0 + k·W in time, whoever sends; each window costs one clump of the
// limit (it passes: the probe knows the limit) and one or two single requests that bisect where the
// next edge can be, so the window length is pinned to about 1 % in a handful of windows, with few
// refusals (identify.ts: windowLength, nextEdge). A window that opens at the client's first request
// after the last one ended (rate-limiter-flexible) puts its edges a window after the probe's own
// requests instead, off any lattice after an idle gap; the same pings pin its length from the
// request that opened each window (identify.ts: openedReading). A sliding log also lets the
// whole limit back, a period after each request: one trial from idle tells the three apart
// (identify.ts: edgeTrialPlan, edgeTrialVerdict).

import {
  clumpTiming,
  edgeTrialPlan,
  edgeTrialVerdict,
  midpoint,
  nextEdge,
  openedReading,
  windowLength,
  type Bracket,
  type WindowAnchor,
  type OpenedWindow,
} from '../identify.js';
import type { FixedWindowModel } from '../limiters/index.js';
import type { Sample } from '../types.js';
import { pingAt, pingUntilAccepted, topUp, toppedEndMs } from './ping.js';
import type { Probe } from './probe.js';
import { admittedBefore, countedToShut, countUntilRefused, firstGapMs, type WindowCount } from './recover.js';
import { acceptedBoundMs, sendingEndMs, usualGapNoiseMs } from './arrival.js';
import { median } from '../../toolkit/stats.js';
import { startedAfresh, straddleTrial } from './straddle-trial.js';

/** Half-width of the window length's bracket, relative, at which the edges are pinned (±1 %). */
export const EDGE_PRECISION = 0.01;
/** Of the shortest window the edges allow, how much sooner an edge ping keeps from the edge after next (its late arrival). */
const WINDOW_SLACK = 0.1;
/**
 * The first search for the next edge, once SCAN_WINDOWS_FROM_MS have passed since the first edge:
 * each ping at most this share of that time after the last, the gaps doubling below it (about 40
 * refused pings over a 10 s window). Doubling alone left a 10 s window's next edge 6 s wide when
 * its first edge came a second after the drain (pings 3, 6 s apart by then), and the walk spent
 * the probe's budget bisecting it: fixed windows of 100 and 200 per 10 s were "not identified" at
 * half their phases (a tenth: 3 to 7 of 20 still were, the lattice pinned too late for the trial).
 */
const NEXT_EDGE_STEP = 0.03;
/**
 * A gap of `wantedMs` between pings looking for a long window's edge, held to NEXT_EDGE_STEP of
 * `sinceMs` (the time since the edge before, or since the window shut), and never under the first
 * gap of a recovery search (ping.ts firstGapMs): the walk's gaps, its first one, and the comeback
 * after a fill behind a faster limit (behind-front.ts) all go by it.
 */
export const edgeGapMs = (probe: Probe, wantedMs: number, sinceMs: number): number =>
  Math.max(firstGapMs(probe), Math.min(wantedMs, NEXT_EDGE_STEP * sinceMs));
/**
 * Windows this long or longer (ms, as far as the edges tell) are walked with the finer pings of
 * NEXT_EDGE_STEP and EDGE_SCAN_PINGS; shorter ones as before, their edges a few pacing intervals
 * wide already, where more pings near an edge only add the network's noise (a 1 s log across
 * 50 ± 10 ms was read as another kind).
 */
const SCAN_WINDOWS_FROM_MS = 3000;
/** Whether every length reading known (a bracket whose `lo` passed its `hi` is none) says SCAN_WINDOWS_FROM_MS or more. */
const longWindow = (...lengths: Bracket[]): boolean =>
  lengths.every((b) => b.lo > b.hi || b.lo >= SCAN_WINDOWS_FROM_MS);
/** Pings across a predicted edge's bracket at most, per window (bisectEdge). */
const EDGE_SCAN_PINGS = 10;
/** Windows at most. */
const MAX_WINDOWS = 14;
/** Clumps at most that count the limit again when the recovery's did not show it (each costs about a window). */
const RECOUNTS = 2;
/** Said once when a ping let in after a shut found room left in the window, not its edge (walkEdges). */
const ROOM_LEFT =
  'a ping let in right after the window shut, whose fill was then refused at once, found room the window had left, not its edge: not taken for one';
/** The request sent last before `s`, if any. */
const lastSentBefore = (samples: readonly Sample[], s: Sample): Sample | undefined =>
  samples.reduce<Sample | undefined>(
    (last, x) => (x.sentMs < s.sentMs && (!last || x.sentMs > last.sentMs) ? x : last),
    undefined,
  );
/** Why an edge trial did not run when its first request was refused: another limit shut. */
const REFUSED_FROM_IDLE = 'a request from idle was not let through';
/** Of the limit, what an edge trial's first request and burst from idle must get through: a few fewer when a jittery network reorders the burst. */
const IDLE_SHARE = 0.9;
/** Edge trials at most: one whose requests went out late (a busy machine) proves nothing and is sent again. */
const TRIAL_ATTEMPTS = 5;
/**
 * What edgeTrial says when its requests went out too late to prove anything, with how long the
 * burst took to send on this machine, scaled to the limit (ms): the next attempt plans for it.
 */
interface Disturbed {
  disturbed: true;
  bounds: TrialBounds;
}

/** What an edge trial plans with and judges by, beside the window's length. */
interface TrialBounds {
  /** How long the limit less one takes to send on this machine, ms. */
  burstSendMs: number;
  /** From the drain's first request to its comeback, ms: a sliding log's period at least. */
  comebackMs: number;
  /** The most the probe saw pass from idle: the limit, or the drain's count if more. */
  fromIdle: number;
  /**
   * Behind a faster limit (recover.ts frontLimit): the trial's runs are topped up to the window's
   * count (ping.ts topUp), and burstSendMs is what the edge walk's fills took that way.
   */
  front: boolean;
}

export interface EdgeFindings {
  /** The fixed window, when the edges are fixed in time. */
  model: FixedWindowModel | null;
  /** When the limit came back a period after the clump instead (a sliding log): that period's bracket, ms, and whether its upper end was seen. */
  slidingPeriod?: Bracket & { hiSure: boolean };
  /**
   * No clump showed the limit (limitSeen, recountLimit): `fixed` when the edges are a fixed window's
   * (nothing else to measure it as), `no edges` when they fit none (measured from idle instead,
   * where the count is not needed).
   */
  limitUnseen?: 'fixed' | 'no edges';
  /**
   * Why the trial that tells a window opened at the first request from a sliding log (and both from
   * edges on the clock) did not decide, when it did not: a window measured from idle afterwards is
   * either of the first two, not a sliding log for sure.
   */
  anchorUntested?: string;
  /** How far the window sized may be off, relative (statedWindowPrecision); with the model only. */
  precision?: number;
  evidence: string[];
  notes: string[];
}

/**
 * A window filled after its edge was found: `afterMs`, its last request sent (pings go after it);
 * `beforeEdgeMs`, the last request known to have reached it, which the next edge is after.
 */
export interface FilledWindow {
  afterMs: number;
  beforeEdgeMs: number;
  /** The recovery's clump: what it let through until its first refusal (recover.ts); undefined when never refused. */
  counted?: WindowCount;
  /** A fill: whether the window refused any of it (fewer than the limit passed after the edge). */
  refused?: boolean;
  /** A fill topped up behind a faster limit: from its first request to the last let through, ms. */
  toppedMs?: number;
  /** A fill: how many of it the window let through, top-ups included. */
  passed?: number;
}

/**
 * `drained`: what the drain let through, which a recount's clump may need to reach (recountLimit).
 * `comebackMs`: from the drain's first request to the first let through after it, a sliding
 * period's lower bound that does not rest on the edges (straddleTrial).
 */
export async function windowEdgesPhase(
  probe: Probe,
  clumpLimit: number,
  firstEdge: Bracket,
  clump: FilledWindow,
  drained: number,
  comebackMs: number,
  { tickPeriodMs, frontLimit = false, earlierEdge }: WalkFrom = {},
): Promise<EdgeFindings> {
  const notes: string[] = [];
  const walked = await walkEdges(probe, clumpLimit, firstEdge, clump, notes, { tickPeriodMs, frontLimit, earlierEdge });
  const { edges } = walked;
  let { afterMs } = walked;
  let limit = limitSeen(clumpLimit, edges, clump.counted, walked.fillRefused);
  if (limit === undefined && !probe.outOfBudget()) {
    const recount = await recountLimit(probe, Math.max(clumpLimit, drained), edges, walked, frontLimit);
    ({ limit, afterMs } = recount);
    notes.push(
      limit === undefined
        ? `the recovery's clump of ${clumpLimit} ran past the next edge before its first refusal (late sends, a busy machine), or was never refused and a window after it was; ${recount.clumps} clumps after later edges did not show the limit either`
        : `the recovery's clump of ${clumpLimit} did not show the limit (it ran past the next edge, late sends on a busy machine, or was never refused): counted again, ${limit}, by a clump from a later edge to its first refusal, all of it sent before the edge after it`,
    );
  }
  const { length, onClock, seen, seenLength, rescued, clockLength, clockSure } = clockLattice(walked, edges);
  // Each window after the first was opened by the request that found its edge, if windows open at
  // the client's first request; a sliding log frees its first slot a period after that request, so
  // this is the length a log and an opened window share (a lattice's edges read this way give a
  // length of no consequence: the ping past its edge decides).
  const reading = openedReading(openedWindows(edges));
  const opened = reading.agreeing ?? [];
  const openedLength = reading.agreeing ? reading.length : { lo: Infinity, hi: 0 };
  const trialLength = openedLength.lo <= openedLength.hi ? openedLength : rescued ? seenLength : length;
  // No reading but the lattice within the noise: only the trial's clock ping stands for it.
  const rescuedOnly = rescued && trialLength === seenLength;
  if ((!onClock && !pinned(trialLength, 2 * EDGE_PRECISION)) || (rescuedOnly && limit === undefined))
    return notPinned(edges, length, notes, limit === undefined ? 'no edges' : undefined);
  // Edges of a fixed window whose limit no clump showed: nothing else to measure it as. (Edges
  // pinned down by neither reading are no fixed window's: measured from idle, above, with or without
  // a count; HAProxy's counter, whose clumps after the drain are not its limit, goes that way.)
  if (limit === undefined) {
    notes.push("the limit was not seen: the edges are a fixed window's, but no clump showed how many it lets through");
    return { model: null, limitUnseen: 'fixed', evidence: [], notes };
  }
  // A round window when the bracket holds one (within the arrivals' noise: the send times can leave
  // it out by a ms): the clock's next edge, several windows on from the edges seen, is then placed
  // within a few ms (the bracket's middle drifts a window's error per window).
  const clockWindowMs = exactWindow(clockLength, seenLength);
  const clock = onClock || rescued ? { edgeMs: clockEdge(seen, clockWindowMs), windowMs: clockWindowMs } : undefined;
  const { trial, straddled } = await edgeTrials(
    probe,
    limit,
    { length: trialLength, afterMs, clock, notes },
    {
      burstSendMs: Math.max(nominalBurstMs(probe, limit), walked.toppedMs),
      comebackMs,
      fromIdle: Math.max(limit, drained),
      front: frontLimit,
    },
  );
  if (straddled) {
    notes.push(`the edge trial did not run (${String(trial)}): a burst across the clock's edge told instead`);
    return clockSure ? clockModel(probe, limit, seen, clockLength, notes, straddled) : notPinned(edges, length, notes);
  }
  if (typeof trial === 'string' && rescuedOnly) return notPinned(edges, length, notes);
  if (typeof trial === 'string') {
    // Refused from idle (another limit shut: a minute's quota behind the second's), the edges'
    // lattice stands for a fixed window on the clock, as no machine disturbed it. Untested for the
    // machine's sake (late sends, a burst too slow to fit), it stands for nothing: a sliding log's
    // edges, following the probe's fills, fitted lattices 0.92–1.10 s apart for a 1 s log, 60 of 60
    // virtual runs up to 10 ms late read as fixed windows, rates up to 9 % high.
    const onClockAnyway = onClock && trial === REFUSED_FROM_IDLE;
    notes.push(
      `where the edges fall (on the clock, at the first request, or sliding) was not tested (${trial})${onClockAnyway ? ': reported as a fixed window on the clock' : ''}`,
    );
    return onClockAnyway
      ? clockModel(probe, limit, seen, length, notes, undefined)
      : { model: null, evidence: [], notes, anchorUntested: trial };
  }
  if (trial.anchor === 'clock')
    return clockSure
      ? clockModel(probe, limit, seen, clockLength, notes, trial.evidence)
      : notPinned(edges, length, notes);
  if (rescuedOnly) return notPinned(edges, length, notes);
  if (trial.anchor === 'sliding') {
    // The lattice's spacing when the edges fitted one, else the opened windows': a log frees its
    // first slot a period after the request that found the last edge, but one that counts refusals
    // lets it go sooner (each counted refusal pushes its oldest slot out), so that end is not sure.
    const period = midpoint(onClock ? length : trialLength);
    return {
      model: null,
      slidingPeriod: { lo: period.value * 0.96, hi: period.value * 1.04, hiSure: onClock },
      evidence: [trial.evidence],
      notes,
    };
  }
  // The windows read before the trial, as opened ones, and the trial's; should they disagree beyond
  // one late request's misreading, the length is read again from the trial on.
  let windows = openedReading([...opened, ...(trial.window ? [trial.window] : [])]).agreeing;
  if (windows === null) {
    notes.push(
      "the windows read before the edge trial disagreed with it in length: the window's length was read again from the trial on",
    );
    windows = trial.window ? [trial.window] : [];
  }
  if (trial.next) await walkOpenedWindows(probe, limit, windows, trial.next.startMs, trial.next.afterMs, notes);
  return openedModel(limit, windows, trial.evidence, notes);
}

/**
 * The edge trial, sent again while a stalled process disturbs it (up to TRIAL_ATTEMPTS), and when
 * it cannot tell for the machine's sake, a burst across the clock's edge (straddleTrial): what the
 * trial saw (or why it did not run), and the burst's evidence of a window on the clock, if any.
 */
async function edgeTrials(
  probe: Probe,
  limit: number,
  at: { length: Bracket; afterMs: number; clock: { edgeMs: number; windowMs: number } | undefined; notes: string[] },
  initial: TrialBounds,
): Promise<{ trial: TrialOutcome | string; straddled?: string }> {
  const { length, clock, notes } = at;
  // A busy machine's timers fire late and the burst's pace falls behind (pacing.ts never catches
  // up): a burst planned at max_rps then runs past the clock's edge every time (virtually, up to
  // 10 ms late per timer: 60 of 60 trials disturbed). Each attempt after a disturbed one plans for
  // the pace its burst was actually sent at.
  let bounds = initial;
  let trial = await edgeTrial(probe, limit, length, at.afterMs, clock, bounds);
  for (let attempt = 1; isDisturbed(trial) && attempt < TRIAL_ATTEMPTS && !probe.outOfBudget(); attempt++) {
    notes.push('an edge trial whose requests went out late (a stalled process) proves nothing: sent again');
    bounds = trial.bounds;
    trial = await edgeTrial(probe, limit, length, probe.elapsed(), clock, bounds);
  }
  const told = isDisturbed(trial) ? `its requests went out late ${TRIAL_ATTEMPTS} times` : trial;
  // Too slow a machine for that trial: one burst across the clock's edge still tells a fixed window on it.
  const straddled =
    typeof told === 'string' && told !== REFUSED_FROM_IDLE && clock && !probe.outOfBudget()
      ? await straddleTrial(probe, limit, {
          ...bounds,
          length,
          clock,
          sendMs: bounds.burstSendMs,
          lastSentMs: probe.elapsed(),
        })
      : undefined;
  return { trial: told, ...(straddled ? { straddled } : {}) };
}

/** Edges that fit no lattice, nor windows opened by the probe's requests: measured from idle instead. */
function notPinned(
  edges: readonly Bracket[],
  length: Bracket,
  notes: string[],
  limitUnseen?: 'no edges',
): EdgeFindings {
  notes.push(
    `the window's edges were not pinned down (${edges.length} edges${length.lo > length.hi ? ', not evenly spaced' : ''})`,
  );
  return { model: null, evidence: [], notes, ...(limitUnseen ? { limitUnseen } : {}) };
}

/**
 * Window after window, the edge that ends it, until its length is pinned on the clock, or (off
 * any lattice) as windows opened at the first request, or neither reading fits; each window then
 * filled with the rest of its limit. The edges, and the last request sent (ms).
 */
async function walkEdges(
  probe: Probe,
  limit: number,
  firstEdge: Bracket,
  clump: FilledWindow,
  notes: string[],
  { tickPeriodMs, frontLimit, earlierEdge }: WalkFrom,
): Promise<{ edges: Bracket[]; fillRefused: boolean; toppedMs: number; lead: Bracket[] } & FilledWindow & NoisyEdges> {
  const edges: Bracket[] = [firstEdge];
  // The earlier edge and the windows unseen after it, once the walk's own edges place it (leadOf).
  let lead: Bracket[] | undefined = earlierEdge ? undefined : [];
  let fillRefused = false;
  let toppedMs = 0;
  let { afterMs, beforeEdgeMs } = clump;
  const rebounds = new Map<number, number>();
  const noiseMs = usualGapNoiseMs(probe.samples);
  // The window was shut from the first refusal after the last admission before the first edge to
  // that edge's last refused ping: at least that long.
  const lastInMs = Math.max(
    ...probe.samples.filter((s) => s.answer === 'accepted' && s.sentMs < firstEdge.lo).map((s) => s.sentMs),
  );
  const shutFromMs = Math.min(
    ...probe.samples.filter((s) => s.answer === 'limited' && s.sentMs > lastInMs).map((s) => s.sentMs),
  );
  const firstShutMs = firstEdge.lo - shutFromMs;
  for (let w = 0; w < MAX_WINDOWS && !probe.outOfBudget(); w++) {
    lead = earlierEdge ? placedLead(lead, earlierEdge, reboundEdges(edges, rebounds), firstShutMs) : [];
    const placed = lead ?? [];
    const latticed = [...placed, ...edges];
    const lattice = windowLength(reboundEdges(latticed, ledBy(placed, rebounds)));
    const reading = openedReading(openedWindows(edges));
    const opened = reading.length;
    const offLattice = lattice.lo > lattice.hi;
    // Opened windows read off a lattice's edges can agree by chance for a while (each reads the
    // window short by how late its opening request was): while the edges still fit a lattice, the
    // lattice is pinned too, and the trial decides between the two.
    if (
      (seenCount(latticed) >= 3 && pinned(lattice, EDGE_PRECISION)) ||
      (edges.length >= 3 && offLattice && reading.agreeing !== null && pinned(opened, EDGE_PRECISION))
    )
      break;
    if (edges.length >= 2 && offLattice && opened.lo > opened.hi) break;
    // After a timer's staircase the next edge is a tick's period on: bisected there, not found by
    // pings whose gaps double (0.8 s wide for a 1 s window at 20 req/s, then 9 windows to pin it).
    const found =
      edges.length === 1 && tickPeriodMs
        ? await bisectEdge(
            probe,
            { lo: firstEdge.lo + tickPeriodMs.lo, hi: firstEdge.hi + tickPeriodMs.hi },
            afterMs,
            longWindow(tickPeriodMs),
          )
        : edges.length === 1 && placed.length === 0
          ? await pingUntilAccepted(probe, 'edges', afterMs, firstPingGapMs(probe, firstEdge, afterMs), (gap, last) =>
              last.sentMs - firstEdge.lo < SCAN_WINDOWS_FROM_MS
                ? 2 * gap
                : edgeGapMs(probe, 2 * gap, last.sentMs - firstEdge.lo),
            )
          : edges.length === 1
            ? // The lead's lattice says where (no opened windows to read yet), its first ping at the
              // near end: let through there, the edge came sooner than the lead allows.
              await bisectEdge(probe, fromNearEnd(nextEdge(latticed, lattice)), afterMs, longWindow(lattice))
            : await bisectEdge(
                probe,
                nextEdgeEitherWay(latticed, lattice, opened, w, afterMs),
                afterMs,
                longWindow(lattice, opened),
                NEXT_EDGE_STEP * shortestReading(lattice, opened),
              );
    if (!found.accepted) break;
    // Where the lattice so far put this edge: a first ping let through leaves its bracket wide.
    const predicted = lattice.lo <= lattice.hi ? nextEdge(latticed, lattice).lo : -Infinity;
    // Only where windows are long (SCAN_WINDOWS_FROM_MS, read off the shut before the first edge
    // until edges tell): a sliding log's frontier, within a second, lets a ping in and refuses the
    // fill after it as it frees the slots of a slower clump; HAProxy's 50 per 1 s, every request
    // counted, was then read from idle 2.2 % fast.
    const roomy = edges.length === 1 ? firstShutMs >= SCAN_WINDOWS_FROM_MS : longWindow(lattice, opened);
    const shutBefore =
      roomy && !found.lastRefused && lastSentBefore(probe.samples, found.accepted)?.answer === 'limited';
    edges.push(edgeBracket(probe.samples, found.lastRefused, found.accepted, beforeEdgeMs));
    // Behind a faster limit (recover.ts frontLimit), a fill that limit cut short is topped up, only
    // while the edges fit a lattice, within half its shortest window of this edge.
    const spaced = windowLength([...placed, ...edges]);
    const filled = await fillWindow(
      probe,
      limit,
      found.accepted,
      notes,
      frontLimit && edges.length >= 2 && spaced.lo <= spaced.hi
        ? Math.max(edges.at(-1)!.lo, predicted) + spaced.lo / 2
        : undefined,
    );
    ({ afterMs, beforeEdgeMs } = filled);
    // Shut at the last request, let in at the next ping, then refused at once: room the window had
    // left (a bucket in front cut the clump two short of a window of 200), not its edge. Taken for
    // one, the lattice fitted such rooms too: a window of 200 per 10 s read as 198 per 15.2 s on
    // the real emulator, a rate 35 % low. A new window lets its fill through (one found after
    // refused pings is not judged so: a front that a stream drained refuses its fill, behind-front.ts).
    if (shutBefore && (filled.passed ?? limit) < limit / 2) {
      edges.pop();
      if (!notes.includes(ROOM_LEFT)) notes.push(ROOM_LEFT);
      continue;
    }
    fillRefused ||= filled.refused === true;
    toppedMs = Math.max(toppedMs, filled.toppedMs ?? 0);
    // The window refused part of its fill: it held requests before the ping that found its edge, so
    // the edge came before that ping's lower bound (the last fill crossed it), after the last edge's ping.
    if (filled.refused && edges.length >= 2)
      rebounds.set(edges.length - 1, Math.max(found.lastRefused?.sentMs ?? -Infinity, edges[edges.length - 2]!.hi));
  }
  return { edges, afterMs, beforeEdgeMs, fillRefused, toppedMs, rebounds, noiseMs, lead: lead ?? [] };
}

/** The shorter of the lengths the lattice and the opened windows allow (a reading with none left out), ms. */
const shortestReading = (...lengths: Bracket[]): number =>
  Math.min(...lengths.map((b) => (b.lo <= b.hi && b.lo > 0 ? b.lo : Infinity)));

/**
 * The gap before the first ping after the first edge's fill: half that edge's bracket, and once the
 * edge is SCAN_WINDOWS_FROM_MS behind, no more than the NEXT_EDGE_STEP share of it the gaps after
 * are held to. A bucket before a 10 s window came back to the recovery's pings 3.5 s wide, and the
 * first ping, 1.7 s after the fill, passed 0.7 s past the next edge: the walk took six edges to pin
 * it, not four (virtual, phase 8.5 s: 79 s).
 */
function firstPingGapMs(probe: Probe, firstEdge: Bracket, afterMs: number): number {
  const half = Math.max(firstGapMs(probe), (firstEdge.hi - firstEdge.lo) / 2);
  const sinceMs = afterMs - firstEdge.lo;
  return sinceMs < SCAN_WINDOWS_FROM_MS ? half : edgeGapMs(probe, half, sinceMs);
}

/** Where the edge walk starts from beside the recovery: a timer's tick period, a faster limit in front, an edge seen before. */
interface WalkFrom {
  tickPeriodMs?: Bracket | undefined;
  frontLimit?: boolean;
  /** An edge of the window some whole windows before the first (recover.ts ShapeFindings.earlierEdge). */
  earlierEdge?: Bracket | undefined;
}

/** An edge not seen, between the earlier edge and the walk's first: anywhere, as far as the lattice's arithmetic goes. */
const UNSEEN: Bracket = { lo: -Infinity, hi: Infinity };

/** Edges seen, the unseen ones between the earlier edge and the walk's left out. */
const seenCount = (edges: readonly Bracket[]): number => edges.filter(wasSeen).length;

/** An edge the walk bracketed, not one of the UNSEEN windows between the earlier edge and its first. */
const wasSeen = (e: Bracket): boolean => Number.isFinite(e.lo) && Number.isFinite(e.hi);

/**
 * The earlier edge and the windows unseen after it, to go before the walk's `own` edges: placed
 * when exactly one count of windows between it and the first of them fits a lattice with them all
 * and a window of `shortestMs` or more (the window was seen shut that long); left out when none
 * fits or, from two edges on, several do (an earlier edge that is no edge of this window, or one
 * too far back to tell); undefined while one edge leaves several. Windows between are UNSEEN.
 */
function leadOf(earlier: Bracket, own: readonly Bracket[], shortestMs: number): Bracket[] | undefined {
  const length = windowLength(own);
  if (length.lo > length.hi || earlier.hi >= own[0]!.lo) return [];
  const fitting: Bracket[][] = [];
  // No more windows between than ones of the shortest length allowed fit there.
  const shortest = Math.max(length.lo, shortestMs, 1);
  for (let k = 1; k * shortest <= own[0]!.hi - earlier.lo && k <= MAX_WINDOWS; k++) {
    const lead = [earlier, ...Array.from({ length: k - 1 }, () => UNSEEN)];
    const fit = windowLength([...lead, ...own]);
    if (fit.lo <= fit.hi) fitting.push(lead);
  }
  if (fitting.length === 1) return fitting[0]!;
  return fitting.length === 0 || own.length >= 2 ? [] : undefined;
}

/**
 * The lead before the walk's `own` edges so far: placed once (leadOf), and dropped should a later
 * edge fit a lattice with the walk's edges but not with it (no edge of this window after all).
 */
export function placedLead(
  lead: Bracket[] | undefined,
  earlier: Bracket,
  own: readonly Bracket[],
  shortestMs: number,
): Bracket[] | undefined {
  if (lead === undefined) return leadOf(earlier, own, shortestMs);
  const fits = (edges: readonly Bracket[]) => {
    const length = windowLength(edges);
    return length.lo <= length.hi;
  };
  return lead.length > 0 && !fits([...lead, ...own]) && fits(own) ? [] : lead;
}

/**
 * `where` moved back by one of bisectEdge's scan steps, so that its first ping goes at where's near
 * end: else a ping past the edge it was looking for at first leaves the edge's lower end at the
 * last fill, whatever the lattice said (a 10 s window's edge bracketed 6.7 s wide, not 40 ms).
 */
function fromNearEnd(where: Bracket): Bracket {
  return { lo: where.lo - (where.hi - where.lo) / EDGE_SCAN_PINGS, hi: where.hi };
}

/** The walk's rebounds (by its own edges' index) moved past the lead before them. */
const ledBy = (lead: readonly Bracket[], rebounds: ReadonlyMap<number, number>): ReadonlyMap<number, number> =>
  lead.length === 0 ? rebounds : new Map([...rebounds].map(([k, v]) => [k + lead.length, v]));

/**
 * The recovery clump's count, when it is the limit: all it rests on was sent before the next edge
 * (earliestEdge). A clump stretched by late timers past
 * that edge counts the next window's admissions too (a rate above the true one), refused or not;
 * one that came after admissions of its own window (WindowCount.before) counts short of it; one
 * never refused is the limit only if no fill after it was refused either (each sent the rest of
 * that count: every window let it through). Undefined when it cannot tell.
 */
function limitSeen(limit: number, edges: readonly Bracket[], clump: WindowCount | undefined, fillRefused: boolean) {
  if (clump === undefined) return fillRefused ? undefined : limit;
  if (clump.before > 0) return undefined;
  if (edges.length < 2) return limit;
  return clump.lastCountedMs < earliestEdge(edges, windowLength(edges), 1) ? clump.count : undefined;
}

/**
 * The limit counted again after limitSeen could not tell it: from the request that found a later
 * edge, a clump until its first refusal (up to twice the larger of the recovery's clump and the
 * drain, and 5 more, in case both were short), and the edge after it; the count is the limit on
 * limitSeen's terms (all of it sent before that edge, none of the probe's other requests let in
 * before its opener). Up to RECOUNTS clumps, each from the edge the last one's pings found. A busy
 * machine stretches a clump past its edge now and then, not every time: giving up at the first
 * left most of the budget unspent (HAProxy's 40 per 0.5 s, about a run in ten under load). Each
 * edge is looked for from the last request on with short gaps, not bisected where the edges say:
 * a window still full after it (a refused ping) puts the edge past the clump's stragglers, and a
 * first ping let through would leave them on either side. The edges found join `edges`.
 */
async function recountLimit(
  probe: Probe,
  most: number,
  edges: Bracket[],
  from: FilledWindow,
  frontLimit: boolean,
): Promise<{ limit: number | undefined; afterMs: number; clumps: number }> {
  let { afterMs, beforeEdgeMs } = from;
  let found = await pingUntilAccepted(probe, 'edges', afterMs, firstGapMs(probe));
  let clumps = 0;
  for (; found.accepted && clumps < RECOUNTS && !probe.outOfBudget(); clumps++) {
    const opener = found.accepted;
    edges.push(edgeBracket(probe.samples, found.lastRefused, opener, beforeEdgeMs));
    const before = admittedBefore(probe.samples, edges[edges.length - 1]!.lo, opener);
    const { samples: clump } = await probe.burstRun('edges', 2 * most + 5);
    // Behind a faster limit the clump is cut a few short of the window's count (a bucket of 100
    // before 200 per 10 s: 199), and the next ping, let in by what is left, was taken for the edge
    // after it: the clump from there counted 1, the window's limit. Topped up to the window's shut
    // within half the shortest window the edges allow (no admission then is the next window's).
    const shortest = windowLength(edges).lo;
    const topped =
      frontLimit && clump.some((s) => s.answer === 'limited') && shortest > 0
        ? await topUp(probe, 'edges', Infinity, opener.sentMs + shortest / 2)
        : [];
    // Still let through at that bound: no count of this window's.
    if (topped.at(-1)?.answer === 'accepted') break;
    const run = [...clump, ...topped];
    const cut = countedToShut(opener, clump);
    const more = topped.filter((s) => s.answer === 'accepted').length;
    const counted = cut && { count: cut.count + more, lastCountedMs: Math.max(cut.lastCountedMs, toppedEndMs(topped)) };
    ({ afterMs, beforeEdgeMs } = filledBy(probe, opener, run));
    found = await pingUntilAccepted(probe, 'edges', afterMs, firstGapMs(probe));
    if (!found.accepted) break;
    afterMs = Math.max(afterMs, found.accepted.sentMs);
    const next = [...edges, edgeBracket(probe.samples, found.lastRefused, found.accepted, beforeEdgeMs)];
    if (counted && before === 0 && counted.lastCountedMs < earliestEdge(next, windowLength(next), next.length - 1)) {
      edges.push(next[next.length - 1]!);
      return { limit: counted.count, afterMs, clumps: clumps + 1 };
    }
  }
  return { limit: undefined, afterMs, clumps };
}

/** What seenEdges needs of a walk: the edges' lower ends a refused fill moved back, by index, and the arrivals' noise (ms). */
interface NoisyEdges {
  rebounds: ReadonlyMap<number, number>;
  noiseMs: number;
}

/**
 * The edges as the limiter may have seen them. A ping reaches the limiter a one-way delay after it
 * was sent, and across a network that delay varies: at 50 ± 10 ms each way a ping sent a few ms
 * short of an edge in send time arrives past it and is let through, its bracket ending short of the
 * edge; each bracket is widened by the arrivals' noise (`noiseMs`: usualGapNoiseMs, √2 standard
 * deviations of the round trips, about one leg's whole spread). And a fill sent a round trip after
 * the ping that found its edge, with the edge anywhere in a bracket most of a window wide, can run
 * past the next edge unseen: the next ping, let in by a window part full, is taken for that edge,
 * and the window then refuses part of its fill; such an edge's lower end goes back to the last
 * edge's ping (`rebounds`). Read on send times alone, a fixed window 50 per 1 s behind toxiproxy's
 * 50 ± 10 ms fitted no lattice ('not evenly spaced', CI), or one that left 1 s out by a ms (0.981–
 * 0.999 s: the clock's edge, placed ten windows on with 0.990 s, came 100 ms early and the trial's
 * ping past it was refused); either way it was measured as a sliding window from idle, its period
 * bracketed by where the clock's first edge fell after the drain (0.262–0.405 s), too short for the
 * trials to pin under that noise: they stopped after one.
 */
function seenEdges(edges: readonly Bracket[], rebounds: ReadonlyMap<number, number>, noiseMs: number): Bracket[] {
  return reboundEdges(edges, rebounds).map((e) => ({ lo: e.lo - noiseMs, hi: e.hi + noiseMs }));
}

/**
 * The edges on send times, an edge whose window refused part of its fill moved back to where it may
 * be (`rebounds`): the lattice must allow it, or it is pinned on a lower end the last fill's tail
 * made (virtual, handshakes, phase 0.05 s, seed 10: an edge found 0.67 s late, the fill after it
 * let through past the next edge, that edge's lower end 46 ms past the true one, the window read
 * 1.014 s with ±0.2 %). One crossing is a fixed window's mishap; a limit that refused several fills
 * is not one (a sliding counter's weighted count, a log still holding the last clump): its edges stay as sent.
 */
function reboundEdges(edges: readonly Bracket[], rebounds: ReadonlyMap<number, number>): Bracket[] {
  if (rebounds.size !== 1) return [...edges];
  return edges.map((e, k) => ({ lo: Math.min(e.lo, rebounds.get(k) ?? e.lo), hi: e.hi }));
}

/** A ping let through past an edge, and the last one refused before it (none when the first passed). */
type EdgeFound = { accepted?: Sample; lastRefused?: Sample };

/** The edge a ping found: after the last request known to reach the window before it, and the last ping refused. */
const edgeBracket = (
  run: readonly Sample[],
  lastRefused: Sample | undefined,
  accepted: Sample,
  beforeEdgeMs: number,
): Bracket => ({
  lo: Math.max(beforeEdgeMs, lastRefused?.sentMs ?? beforeEdgeMs),
  hi: acceptedBoundMs(run, accepted),
});

/**
 * The earliest edge `k` can be: the lower end of its own bracket, or of the lattice's (every
 * bracket moved by whole windows, when the edges fit one), whichever is earlier. Not the tightest
 * the brackets allow: on a busy machine a request leaves up to a few tens of ms after it was
 * stamped sent, so the lattice can place an edge that much late (seed 13 of the 20 ms sweep: a
 * clump's admission of the next window counted, 51).
 */
function earliestEdge(edges: readonly Bracket[], length: Bracket, k: number): number {
  if (length.lo > length.hi) return edges[k]!.lo;
  const lattice = Math.max(...edges.map((e, i) => (i <= k ? e.lo + (k - i) * length.lo : e.lo - (i - k) * length.hi)));
  return Math.min(edges[k]!.lo, lattice);
}

/**
 * Where the next edge can be if the edges are on the clock, or if each window opened at the request
 * that found the last edge, taking turns while the edges so far fit both: pings that bisect one
 * reading only can meet a window of the other kind late, window after window (each first ping let
 * through, none refused), and then the true reading never closes in.
 */
function nextEdgeEitherWay(
  edges: readonly Bracket[],
  lattice: Bracket,
  opened: Bracket,
  turn: number,
  afterMs: number,
): Bracket {
  const ways: Bracket[] = [];
  if (lattice.lo <= lattice.hi) ways.push(nextEdge(edges, lattice));
  if (opened.lo <= opened.hi)
    ways.push(
      withinNextWindow(
        { lo: edges[edges.length - 1]!.hi + opened.lo, hi: edges[edges.length - 1]!.hi + opened.hi },
        edges,
        lattice,
        afterMs,
      ),
    );
  return ways[turn % ways.length]!;
}

/**
 * Where to look for the next edge, cut short of the edge after it while the edges fit a lattice
 * and bisectEdge's first ping would go past it: let through past two edges, it reads as one, and
 * the edges fit the lattice's spacing no more (a fixed window 5 per 1 s at 20 req/s, the first
 * ping 1.3 s after an edge found 0.8 s late: "not tested", measured as a sliding window from idle).
 */
function withinNextWindow(where: Bracket, edges: readonly Bracket[], lattice: Bracket, afterMs: number): Bracket {
  if (lattice.lo > lattice.hi || edges.length !== 2) return where;
  const beforeNextButOne = edges[edges.length - 1]!.lo + (2 - WINDOW_SLACK) * lattice.lo;
  const firstPingMs = (Math.max(where.lo, afterMs) + where.hi) / 2;
  return firstPingMs > beforeNextButOne && where.lo < beforeNextButOne ? { lo: where.lo, hi: beforeNextButOne } : where;
}

/**
 * The lattices the walk's edges fit (the walk's, a recount's too, after the earlier edge it placed
 * and the windows unseen between): all of them (`length`, `onClock` when pinned), and those within
 * the arrivals' noise (seenEdges: a lattice only they fit is a fixed window's only if the trial's
 * ping past its edge says so, `rescued`). `clockLength`: the one a window on the clock is sized by;
 * `clockSure`: it may size one, pinned and the only lattice the edges fit (twoEdgesFit); else no
 * window's length is claimed, whatever the trial tells of where the edges fall (only the opened
 * windows' reading was pinned).
 */
function clockLattice(
  walked: { lead: Bracket[]; rebounds: ReadonlyMap<number, number>; noiseMs: number },
  edges: Bracket[],
) {
  const latticed = [...walked.lead, ...edges];
  const rebounds = ledBy(walked.lead, walked.rebounds);
  const reboundLattice = reboundEdges(latticed, rebounds);
  const length = windowLength(reboundLattice);
  const enough = seenCount(latticed) >= 3;
  const onClock = enough && pinned(length, 2 * EDGE_PRECISION) && !twoEdgesFit(reboundLattice, length);
  const seen = seenEdges(latticed, rebounds, walked.noiseMs);
  const seenLength = windowLength(seen);
  const seenSure = pinned(seenLength, 2 * EDGE_PRECISION) && !twoEdgesFit(seen, seenLength);
  const clockLength = onClock ? length : seenLength;
  return {
    length,
    onClock,
    seen,
    seenLength,
    rescued: !onClock && enough && seenSure,
    clockLength,
    clockSure: onClock || seenSure,
  };
}

/**
 * Whether one of `edges`, as wide as the shortest window `length` allows, may hold two edges where
 * the walk took one, and the edges fit a lattice read that way too: then the walk's lattice is one
 * of two, and its window no surer than the other's. Small fixed windows across loopback's jitter: a
 * ping let through after a fill past two edges, its bracket 1.33 s wide, and nine edges fitted
 * 1.204 s ±0.7 % where the window is 1 s: "fixed window 20 per 1.2 s", 17 % slow (5 per 1 s read
 * as 5 per 1.169 s the same way).
 */
function twoEdgesFit(edges: readonly Bracket[], length: Bracket): boolean {
  return edges.some((e, k) => {
    if (!wasSeen(e) || e.hi - e.lo < length.lo) return false;
    const twice = windowLength([...edges.slice(0, k + 1), e, ...edges.slice(k + 1)]);
    return twice.lo <= twice.hi;
  });
}

/** Half-width of a bracket, relative, at most `precision` (and not empty). */
const pinned = (b: Bracket, precision: number) => b.lo <= b.hi && midpoint(b).precision <= precision;

/**
 * The rest of the window's limit after the request that found its edge, known to pass. `afterMs`:
 * its last request (the next ping goes after it); `beforeEdgeMs`: the last one the next edge is
 * after, that is, the last that went out at the pace asked for (or a refusal, the window full then).
 * A busy machine's late timers delay the pace without catching up (pacing.ts), so a fill can take
 * a window or more: its late tail crosses the next edge unseen (the next window lets it through
 * too), and its end taken for a bound put the next edge after where it was ('not evenly spaced',
 * or a window read long). That the window holds the fill sent on time, filling it assumes anyway.
 */
async function fillWindow(
  probe: Probe,
  limit: number,
  edgeFound: Sample,
  notes: string[],
  topUpBeforeMs?: number,
): Promise<FilledWindow> {
  const { samples } = await probe.burstRun('edges', limit - 1, { exact: true });
  // The run stops at its first refusal: short by what it did not get through.
  const refused = samples.some((s) => s.answer === 'limited');
  const shortBy = refused ? limit - 1 - samples.filter((s) => s.answer === 'accepted').length : 0;
  const topped = shortBy > 0 && topUpBeforeMs !== undefined ? await topUp(probe, 'edges', shortBy, topUpBeforeMs) : [];
  const toppedIn = topped.filter((s) => s.answer === 'accepted');
  const passed = samples.filter((s) => s.answer === 'accepted').length + toppedIn.length;
  const filled = { ...filledBy(probe, edgeFound, [...samples, ...topped]), passed };
  if (shortBy > 0 && toppedIn.length >= shortBy)
    return { ...filled, refused: false, toppedMs: toppedIn.at(-1)!.sentMs - Math.min(...samples.map((s) => s.sentMs)) };
  if (filled.refused && !notes.some((n) => n.startsWith('a window let fewer')))
    notes.push(`a window let fewer than ${limit} requests through after its edge`);
  return filled;
}

/** A window after `edgeFound` that a run at max_rps filled: fillWindow's bounds. */
function filledBy(probe: Probe, edgeFound: Sample, samples: readonly Sample[]): FilledWindow {
  const refused = samples.filter((s) => s.answer === 'limited').map((s) => s.sentMs);
  const sent = samples.map((s) => s.sentMs);
  // One interval more than the schedule, for the timers' ms rounding (pacing.ts rounds waits up).
  const onTimeMs = Math.min(...sent) + sent.length * (1000 / probe.maxRps);
  return {
    afterMs: Math.max(edgeFound.sentMs, ...sent),
    beforeEdgeMs: Math.max(edgeFound.sentMs, ...refused, ...sent.filter((t) => t <= onTimeMs)),
    refused: refused.length > 0,
  };
}

/** The windows the edges say, read as windows opened by the request that found each edge: open until the next edge's bracket, over by its end. */
function openedWindows(edges: readonly Bracket[]): OpenedWindow[] {
  return edges.slice(1).map((e, k) => ({ startMs: edges[k]!.hi, openMs: e.lo, closedMs: e.hi }));
}

/**
 * More windows opened by the probe's own request, each with pings that bisect where it ends, until
 * its length is pinned and one more window confirmed it; the last request sent (ms).
 */
async function walkOpenedWindows(
  probe: Probe,
  limit: number,
  opened: OpenedWindow[],
  startMs: number,
  afterMs: number,
  notes: string[],
): Promise<number> {
  let confirmed = false;
  let beforeEdgeMs = afterMs;
  for (let w = 0; w < MAX_WINDOWS && !probe.outOfBudget(); w++) {
    const reading = openedReading(opened);
    const length = reading.length;
    if (length.lo > length.hi) break;
    const lengthPinned =
      reading.agreeing !== null && opened.length >= 2 && midpoint(length).precision <= EDGE_PRECISION;
    if (lengthPinned && confirmed) break;
    let found: { accepted?: Sample; lastRefused?: Sample };
    if (lengthPinned) {
      const check = await confirmLength(probe, length, startMs, afterMs);
      found = check.found;
      if (check.contradicts) {
        // None set aside: the checking request itself went out late; the next window checks again.
        const kept = opened.filter((o) => !check.contradicts!(o));
        if (kept.length < opened.length)
          notes.push(
            `a window's end was misread (a request that reached the limit late): ${opened.length - kept.length} of the window readings set aside`,
          );
        opened.splice(0, opened.length, ...kept);
      } else confirmed = found.accepted !== undefined;
    } else
      found = await bisectEdge(
        probe,
        { lo: startMs + length.lo, hi: startMs + length.hi },
        afterMs,
        longWindow(length),
      );
    if (!found.accepted) break;
    opened.push({
      startMs,
      openMs: Math.max(beforeEdgeMs, found.lastRefused?.sentMs ?? beforeEdgeMs),
      closedMs: found.accepted.sentMs,
    });
    startMs = found.accepted.sentMs;
    ({ afterMs, beforeEdgeMs } = await fillWindow(probe, limit, found.accepted, notes));
  }
  return afterMs;
}

/**
 * One window that checks a pinned length from both ends: a request a little short of it must be
 * refused, one a little past it let through. A request that reached the limit late (a busy machine)
 * misreads one window's end, and the windows after it, pinged where that reading says, agree with
 * it; what the check contradicts says which readings to set aside.
 */
async function confirmLength(
  probe: Probe,
  length: Bracket,
  startMs: number,
  afterMs: number,
): Promise<{ found: { accepted?: Sample; lastRefused?: Sample }; contradicts?: (o: OpenedWindow) => boolean }> {
  const margin = 2 * EDGE_PRECISION * midpoint(length).value;
  const short = await pingAt(probe, 'edges', Math.max(afterMs, startMs + length.lo - margin));
  if (short?.answer === 'accepted')
    return { found: { accepted: short }, contradicts: (o) => o.openMs - o.startMs >= short.sentMs - startMs };
  if (short?.answer !== 'limited') return { found: {} };
  const past = await pingAt(probe, 'edges', startMs + length.hi + margin);
  if (past?.answer === 'accepted') return { found: { accepted: past, lastRefused: short } };
  if (past?.answer !== 'limited') return { found: { lastRefused: short } };
  // Still refused past the end: find it, and set aside the readings that ended before this.
  const rest = await pingUntilAccepted(probe, 'edges', past.sentMs, margin);
  return {
    found: { ...(rest.accepted ? { accepted: rest.accepted } : {}), lastRefused: rest.lastRefused ?? past },
    contradicts: (o) => o.closedMs - o.startMs <= past.sentMs - startMs,
  };
}

/** A window that lets its limit through after each edge, and whose edges stay put on the clock. */
function clockModel(
  probe: Probe,
  limit: number,
  edges: readonly Bracket[],
  length: Bracket,
  notes: string[],
  /** What the edge trial saw that put the edges on the clock; undefined when it did not run. */
  trialEvidence: string | undefined,
): EdgeFindings {
  const w = midpoint(length);
  const windowMs = exactWindow(length, windowLength(edges));
  const exact = windowMs !== w.value;
  // The first edge as every bracket, moved back by its whole windows, allows it: the narrow ones decide.
  const firstMs = clockEdge(edges, windowMs);
  // Rounded to the ms before wrapping, so an edge a fraction of a ms before a multiple reads 0, not a whole window.
  const phaseMs =
    (((Math.round(exact ? probe.startedEpochMs + firstMs : firstMs) % windowMs) + windowMs) % windowMs) %
    Math.round(windowMs);
  return {
    model: {
      kind: 'fixed-window',
      limit,
      window_s: Math.round(windowMs) / 1000,
      phase_s: Math.round(phaseMs) / 1000,
      counts_refused: false,
    },
    precision: statedWindowPrecision(windowMs, windowLength(edges)),
    evidence: [
      `${seenCount(edges)} window edges ${fmt(w.value)} apart (±${(w.precision * 100).toFixed(1)} %${exact ? `: ${fmt(windowMs)}` : ''}), ${limit} requests let through after each: a fixed window, ` +
        `edges at ${(Math.round(phaseMs) / 1000).toFixed(3)} s past every multiple of ${fmt(windowMs)} ${exact ? 'of Unix time' : "of the probe's clock"}`,
      ...(trialEvidence ? [trialEvidence] : []),
      REFUSALS_FORGIVEN,
    ],
    notes,
  };
}

/** A window that opens at the client's first request after the last one ended. */
function openedModel(
  limit: number,
  opened: readonly OpenedWindow[],
  trialEvidence: string,
  notes: string[],
): EdgeFindings {
  const reading = openedReading(opened);
  const length = reading.length;
  if (reading.agreeing === null || !pinned(length, 2 * EDGE_PRECISION)) {
    notes.push(
      `windows open at the client's first request, but their length was not pinned down (${opened.length} windows${reading.agreeing === null ? ', of different lengths' : ''})`,
    );
    return { model: null, evidence: [trialEvidence], notes };
  }
  const w = midpoint(length);
  const windowMs = exactWindow(length);
  return {
    model: {
      kind: 'fixed-window',
      limit,
      window_s: Math.round(windowMs) / 1000,
      phase_s: 0,
      counts_refused: false,
      edges: 'first-request',
    },
    precision: statedWindowPrecision(windowMs, length),
    evidence: [
      `${opened.length} windows opened by the probe's own request, each over ${fmt(w.value)} after it (±${(w.precision * 100).toFixed(1)} %${windowMs !== w.value ? `: ${fmt(windowMs)}` : ''}), ${limit} requests let through in each: ` +
        'a fixed window starting at the first request after a window ends (its edges move with the client, so they have no phase)',
      trialEvidence,
      REFUSALS_FORGIVEN,
    ],
    notes,
  };
}

/**
 * What a window sized at `windowMs` may be off by, relative, as the report states it: never less
 * than the ±1 % the walk pins its edges to, and as far as the edges' lattice reaches from it either
 * way (within the arrivals' noise, for edges on the clock): a walk that ended before the lattice was
 * pinned (out of windows, out of budget), or whose round window sits off its middle, says so.
 */
export function statedWindowPrecision(windowMs: number, lattice: Bracket): number {
  return Math.max(EDGE_PRECISION, (lattice.hi - windowMs) / windowMs, (windowMs - lattice.lo) / windowMs);
}

const REFUSALS_FORGIVEN =
  'refused requests cannot matter to a fixed window (its count starts afresh at each edge): reported as not counting';

/** Round figures a window is configured in, roundest first, ms. */
const ROUND_WINDOWS_MS = [1000, 500, 100];

/**
 * Windows are configured in round figures (1 s, 500 ms, 1 min): the roundest figure within the
 * bracket is the window, exactly (only then can clock edges be placed on Unix time), the nearest
 * the middle of those as round; else the middle. A whole second before a tenth: a 10 s window
 * bracketed 9.987-10.147 s was read 10.1 s by the tenth nearest the middle (1 % slow).
 */
export function exactWindow(length: Bracket, roomy: Bracket = length): number {
  const middle = midpoint(length).value;
  for (const stepMs of ROUND_WINDOWS_MS) {
    const near = Math.round(middle / stepMs) * stepMs;
    const within = [near, near - stepMs, near + stepMs].filter((ms) => ms > 0 && ms >= roomy.lo && ms <= roomy.hi);
    if (within.length > 0) return within.reduce((a, b) => (Math.abs(a - middle) <= Math.abs(b - middle) ? a : b));
  }
  return middle;
}

/** One clock edge (ms, the probe's clock), from every edge bracket moved back by its whole windows: the narrow ones decide. */
function clockEdge(edges: readonly Bracket[], windowMs: number): number {
  const first = {
    lo: Math.max(...edges.map((e, k) => e.lo - k * windowMs)),
    hi: Math.min(...edges.map((e, k) => e.hi - k * windowMs)),
  };
  return first.lo <= first.hi ? midpoint(first).value : midpoint(edges[0]!).value;
}

const isDisturbed = (t: TrialOutcome | Disturbed | string): t is Disturbed => typeof t === 'object' && 'disturbed' in t;

/** The limit less one sent at max_rps, ms: the edge trial's burst on an idle machine. */
const nominalBurstMs = (probe: Probe, limit: number) => ((limit - 1) * 1000) / probe.maxRps;

/**
 * A run at max_rps until its first refusal; behind a faster limit (`front`), topped up one request
 * at a time until `front.count` passed or `front.beforeMs` (ping.ts topUp). Every request, run first.
 */
async function runToCount(
  probe: Probe,
  cap: number,
  front: { count: number; beforeMs: number } | undefined,
): Promise<Sample[]> {
  const { samples } = await probe.burstRun('edges', cap);
  const shortBy = front ? front.count - samples.filter((s) => s.answer === 'accepted').length : 0;
  if (!front || shortBy <= 0 || !samples.some((s) => s.answer === 'limited')) return samples;
  return [...samples, ...(await topUp(probe, 'edges', shortBy, front.beforeMs))];
}

/** What a run let through: until its first refusal, or every admission of a run topped up behind a faster limit. */
const passedOf = (run: readonly Sample[], front: boolean): number =>
  front ? run.filter((s) => s.answer === 'accepted').length : countUntilRefused(run);

/**
 * How long a burst of `limit` less one takes at the pace `burst` was sent at until its first
 * refusal, ms: its median gap, so that one stall (100–300 ms) does not make every later plan too long to fit.
 */
function sentPace(burst: readonly Sample[], limit: number): number {
  const endMs = sendingEndMs(burst);
  const sent = burst
    .filter((s) => endMs !== undefined && s.sentMs <= endMs)
    .map((s) => s.sentMs)
    .sort((a, b) => a - b);
  const gaps = sent.slice(1).map((ms, i) => ms - sent[i]!);
  if (gaps.length === 0) return 0;
  return median(gaps) * (limit - 1);
}

interface TrialOutcome {
  anchor: WindowAnchor;
  evidence: string;
  /** The window the trial's first request opened, if windows open at the first request. */
  window?: OpenedWindow;
  /** The window the trial's last clump opened: where to go on pinning its length. */
  next?: { startMs: number; afterMs: number };
}

/**
 * From idle (a window length after the last request: every kind of window is empty by then), the
 * requests of edgeTrialPlan: one, the rest of the limit a little later, one just past the clock's
 * next edge (when the edges may be on the clock), and a clump a window after the first. Why it
 * could not run, as a string, when it did not; Disturbed when its requests went out late.
 */
async function edgeTrial(
  probe: Probe,
  limit: number,
  length: Bracket,
  lastSentMs: number,
  clock: { edgeMs: number; windowMs: number } | undefined,
  bounds: TrialBounds,
): Promise<TrialOutcome | Disturbed | string> {
  const { burstSendMs } = bounds;
  const idleMs = 1.03 * Math.max(length.hi, clock?.windowMs ?? 0);
  const plan = edgeTrialPlan({
    length,
    burstSendMs,
    notBeforeMs: lastSentMs + idleMs,
    comebackMs: bounds.comebackMs,
    ...(clock ? { clock } : {}),
  });
  if (plan === null) return `the limit takes too long to send at ${probe.maxRps} req/s`;
  if (plan.clumpMs + 0.1 * length.hi > probe.maxDurationMs) return 'no time left';
  const first = await pingAt(probe, 'edges', plan.firstMs);
  if (first?.answer !== 'accepted') return REFUSED_FROM_IDLE;
  const wait = plan.burstMs - probe.elapsed();
  if (wait > 0) await probe.clock.sleep(Math.ceil(wait), probe.signal);
  // Until the first refusal, not just the limit as counted so far: a window that is full for sure
  // (a sliding log that counted earlier refusals let fewer through per window than it holds).
  // The ping goes at its time whether or not the burst's last answers are back: a round trip of
  // 100 ms would otherwise send it late every time. The burst filled the window before it if the
  // burst reached its first refusal on time (checked below). One ping: a second one past the clock's
  // edge, sent where a sliding log may have freed the first request's slot, changed no outcome in
  // 1,100 virtual runs of logs 10–30 ms late, and cost one (30 per 0.5 s, 10 ms late: not
  // identified; log-edge-ping-virtual.test.ts); the case it was for is caught by the rules below.
  // Behind a faster limit, topped up to the window's count, within the burst's planned end.
  const [burst, ping] = await Promise.all([
    runToCount(probe, 2 * limit + 5, bounds.front ? { count: limit - 1, beforeMs: plan.burstEndMs } : undefined),
    plan.pingMs === null ? undefined : pingAt(probe, 'edges', plan.pingMs),
  ]);
  const late = (sentMs: number, plannedMs: number) => sentMs > plannedMs + plan.lateMs;
  const disturbed: Disturbed = {
    disturbed: true,
    bounds: {
      ...bounds,
      burstSendMs: Math.max(burstSendMs, sentPace(burst, limit)),
    },
  };
  // The rest of the limit, what the trial needs of the burst, went out on time (or the machine disturbed it).
  const sent = burst.map((s) => s.sentMs).sort((a, b) => a - b);
  if (late(first.sentMs, plan.firstMs) || late(sent[Math.min(limit, sent.length) - 2] ?? 0, plan.burstEndMs))
    return disturbed;
  const burstPassed = passedOf(burst, bounds.front);
  // Well over what passed from idle, sent within less than a log's period: the count started afresh
  // mid-burst at an edge no request of the probe's set, the clock's. (The clock's edge, extrapolated
  // from a lattice read 0.85 % long, fell inside the burst 8 windows on: 67 of it passed, which the
  // check below took for a stalled process, five times over.)
  const afresh = startedAfresh([first, ...burst], bounds.fromIdle, Math.min(length.lo, bounds.comebackMs));
  if (afresh)
    return {
      anchor: 'clock',
      evidence: `one request from idle, the rest of the limit ${fmt(plan.burstMs - plan.firstMs)} later: ${afresh.passed} passed before the first refusal within ${fmt(afresh.spanMs)}, more than the ${bounds.fromIdle} seen from idle: its count started afresh mid-burst, at an edge on the clock (a sliding log, or a window opened by the first request, lets no more than its limit through within a window of it)`,
    };
  // What followed the burst's first refusal was already on its way (a round trip's worth): not late.
  if (late(Math.max(first.sentMs, sendingEndMs(burst) ?? 0), plan.burstEndMs)) return disturbed;
  if (plan.pingMs !== null && ping === undefined) return 'no time left';
  // A request's gap at max_rps of slack, as the burst's own requests get.
  if (ping && late(ping.sentMs, plan.pingMs! + 1000 / probe.maxRps)) return disturbed;
  // Every kind of window of that length is empty by the trial's first request, so the rest of the
  // limit passes. Refused well short of it, the limiter still held requests from before: its window
  // is longer than the length read. A sliding log 50 per 1 s, its edges read 0.474 s apart across a
  // jittery network, let one of the burst through, and half a second later the clump 48 at once as
  // its earlier requests aged out: read as windows opened at the first request, 105 req/s.
  if (1 + burstPassed < IDLE_SHARE * limit)
    return `after ${fmt(idleMs)} of quiet the rest of the limit was refused after ${burstPassed}: the limiter still held earlier requests, its window longer than the ${fmt(midpoint(length).value)} read`;
  if (ping?.answer === 'accepted')
    return {
      anchor: 'clock',
      evidence: `a window filled from idle was let in again just past the clock's next edge, well before a window after its first request: the edges stay put whatever the client does`,
    };
  const clumpWait = plan.clumpMs - probe.elapsed();
  if (clumpWait > 0) await probe.clock.sleep(Math.ceil(clumpWait), probe.signal);
  const clump = await runToCount(
    probe,
    limit + 5,
    bounds.front ? { count: limit, beforeMs: plan.clumpMs + length.lo / 2 } : undefined,
  );
  if (clump.length === 0) return 'no time left';
  if (late(Math.min(...clump.map((s) => s.sentMs)), plan.clumpMs)) return disturbed;
  const passed = passedOf(clump, bounds.front);
  const anchor = edgeTrialVerdict(limit, ping ? false : null, passed);
  const after = fmt(Math.min(...clump.map((s) => s.sentMs)) - first.sentMs);
  // A window opened by the first request lets the clump in a window after it; a sliding log does
  // too if the burst's slots aged out by then, when the clump came a period or more after the burst.
  // Its period is at least the drain's comeback: a log's edges read 10 % long on a busy machine (the
  // fills a round trip after each edge) put the clump that late, and the log passed for an opened window.
  const clumpAfterBurstMs = Math.min(...clump.map((s) => s.sentMs)) - (sent[0] ?? first.sentMs);
  const timing = clumpTiming(clumpAfterBurstMs, plan.clumpMs - plan.burstMs, bounds.comebackMs);
  if (anchor === 'first-request' && timing === 'late') return disturbed;
  if (anchor === 'first-request' && timing === 'undecided')
    return `the clump came ${fmt(clumpAfterBurstMs)} after the burst, no sooner than a sliding log that came back ${fmt(bounds.comebackMs)} after the drain began frees the burst's slots`;
  if (anchor === 'sliding') {
    return {
      anchor,
      evidence: `one request from idle, the rest of the limit ${fmt(plan.burstMs - plan.firstMs)} later: ${after} after the first, ${passed} passed, as a sliding log frees the first request's slot alone (a window that reset would have let ${limit} through)`,
    };
  }
  // At least three passed (edgeTrialVerdict): the first of them opened the next window.
  const opener = [...clump].sort((a, b) => a.sentMs - b.sentMs).find((s) => s.answer === 'accepted')!;
  const stillOpen = ping?.answer === 'limited' ? ping.sentMs : Math.max(first.sentMs, ...burst.map((s) => s.sentMs));
  return {
    anchor,
    evidence:
      `one request from idle, the rest of the limit ${fmt(plan.burstMs - plan.firstMs)} later${ping ? ', one past where a clock edge would be (refused)' : ''}: ` +
      `${after} after the first, ${passed} passed at once: the window reset a window after the request that opened it, not at the clock's edge, and not slot by slot as a sliding log frees them`,
    window: { startMs: first.sentMs, openMs: stillOpen, closedMs: opener.sentMs },
    next: { startMs: opener.sentMs, afterMs: Math.max(...clump.map((s) => s.sentMs)) },
  };
}

/**
 * Pings where the next edge can be, then past its far end. A refused ping costs one request and
 * the first let through costs the window. For a long window (`scan`), up to EDGE_SCAN_PINGS
 * evenly across the bracket from its near end (a pacing interval apart at least), so each window
 * narrows the edge by as many parts as pings went out: two bisecting pings narrowed it by 2-4,
 * and a 10 s window whose first edge was found 0.4 s wide was not pinned to 1 % in a 60 s probe.
 * Otherwise the middle, then the middle of what is left: a short window's bracket is a few pacing
 * intervals wide already, and more pings near its edge only add the network's noise.
 */
async function bisectEdge(
  probe: Probe,
  where: Bracket,
  afterMs: number,
  scan: boolean,
  pastCapMs = Infinity,
): Promise<EdgeFound> {
  const from = Math.max(where.lo, afterMs);
  const pings = scan
    ? Math.max(2, Math.min(EDGE_SCAN_PINGS, Math.floor((where.hi - from) / firstGapMs(probe)) - 1))
    : 2;
  const stepMs = (where.hi - from) / (pings + 1);
  const at = (lo: number, i: number) => (scan ? Math.max(lo + 1, from + i * stepMs) : (lo + where.hi) / 2);
  let lo = from;
  let lastRefused: Sample | undefined;
  for (let i = 1; i <= pings; i++) {
    const s = await pingAt(probe, 'edges', at(lo, i));
    if (!s) return lastRefused ? { lastRefused } : {};
    if (s.answer === 'accepted') return { accepted: s, ...(lastRefused ? { lastRefused } : {}) };
    lastRefused = s;
    lo = s.sentMs;
  }
  // Past where the lattice says the edge must be; should it not be, keep looking with growing gaps,
  // for a long window no longer than `pastCapMs`: the readings take turns (nextEdgeEitherWay), and
  // past an opened window's guess 7 s after the edge, gaps doubling to 2 s left the 10 s lattice's
  // edge 2 s wide (virtual, a bucket before a window of 200 per 10 s: six edges to pin it, not five).
  const rest = await pingUntilAccepted(probe, 'edges', Math.max(lo, where.hi) - 1, 2, (gap) =>
    Math.min(2 * gap, scan ? Math.max(pastCapMs, firstGapMs(probe)) : Infinity),
  );
  return {
    ...(rest.accepted ? { accepted: rest.accepted } : {}),
    ...((rest.lastRefused ?? lastRefused) ? { lastRefused: rest.lastRefused ?? lastRefused } : {}),
  };
}

const fmt = (ms: number) => `${(ms / 1000).toFixed(3)} s`;
