// Where the answers of a limiter that announces its window's end (go-chi/httprate's
// X-RateLimit-Reset, on every answer) say their windows end, grouped by window: which window the
// limiter counted each answer in, whatever it let through. reset-ticks.ts times the windows by
// where those ends move on; advertised.ts and counter-ramp.ts tell by them what the window before
// an edge held, when the drain straddled one.

import type { Bracket } from '../identify.js';
import type { Sample } from '../types.js';
import { reorderMs, seenMs } from './arrival.js';
import type { Heard, Probe } from './probe.js';

/** Announced ends closer than this are one window's (a delta announcement moves by the answer's return leg). */
export const SAME_END_MS = 250;
/** An edge lies within a second after the end announced before it (floored to whole seconds), give or take this. */
export const EDGE_SLACK_MS = 250;

/** No answer says its window ends further off than a window, give or take this (the header's own rounding). */
const AHEAD_SLACK_MS = 25;
/** Ends of adjacent windows are whole seconds apart, to within this. */
const WHOLE_SECOND_SLACK_MS = 100;

/** What a window let through by the end of it (countedInWindowEndingAt), and when the limiter saw its first. */
export interface WindowHeld {
  count: number;
  firstSeenMs: number;
}

/** Where one answer said its window ends, probe ms (null: already past), and when the limiter saw its request. */
export interface AnnouncedEnd {
  seenMs: number;
  accepted: boolean;
  endMs: number | null;
  /** How far off the answer said its window ends, ms. */
  aheadMs: number;
}

/** The answers of one window: the end they announced, and the first and last the limiter saw. */
export interface EndCluster {
  endMs: number;
  firstSeenMs: number;
  lastSeenMs: number;
}

/** An edge: between the last answer counted in one window and the first counted in the next. */
export interface Tick {
  at: Bracket;
  /** What the window before it announced as its end. */
  fromEndMs: number;
}

/**
 * A reset in whole seconds, rounded down, is already past in the last fraction of a window (httprate
 * at 12.1 s in a window ending at 12.4 s says 12). Its value still names the window: read unclamped
 * (Advertisement.resetAheadS), it changes at every edge wherever the windows fall within the second.
 * A delta of 0 says only that the window's edge has not come yet (null). httprate starts its
 * windows with its process: started 0.95 s into a second, only the first 50 ms of each window
 * announce an end still ahead, and clamped, too few windows were heard to tick (the bench's network
 * group read it as a bucket 2.6-5 % slow, 3 runs of 3).
 */
export function announcedEnds(probe: Pick<Probe, 'heard'>, from = -Infinity): AnnouncedEnd[] {
  return probe.heard.filter((h) => h.ad.resetAheadS !== null && h.sample.sentMs >= from).map(endOf);
}

function endOf({ ad, sample }: Heard): AnnouncedEnd {
  const aheadS = ad.resetAheadS!;
  return {
    seenMs: seenMs(sample),
    accepted: sample.answer === 'accepted',
    endMs: aheadS !== 0 ? sample.doneMs + aheadS * 1000 : null,
    aheadMs: aheadS * 1000,
  };
}

/**
 * The most one window's announced ends may spread: a reset in whole seconds, rounded either way, and
 * the answers' return legs. Ends that spread further, each close to the one before, move on with
 * the answers: a bucket's "full at" counted from each answer (the emulator's RateLimit-Reset, Kong's
 * and Envoy's delta resets of a bucket), which no window's edge is.
 */
const ONE_END_SPREAD_MS = 1000 + 2 * SAME_END_MS;

/** The announced ends grouped by window, in the order of their ends; a string when they do not fall in clusters. */
export function clustersOf(ends: readonly AnnouncedEnd[]): EndCluster[] | string {
  const sorted = ends.filter((e) => e.endMs !== null).sort((x, y) => x.endMs! - y.endMs!);
  const groups: AnnouncedEnd[][] = [];
  for (const e of sorted) {
    const group = groups.at(-1);
    if (group && e.endMs! - group.at(-1)!.endMs! <= SAME_END_MS) group.push(e);
    else groups.push([e]);
  }
  if (groups.length < 2) return 'the announced reset did not move on';
  // Told before any drain is spent on them: against the emulator's bucket (run's 30 s probe), a
  // drain from idle to test these as a counter's ends waited twice the longest step between them
  // (the probe's own idle gaps: 16 s) and took the probe past its cap.
  const moving = groups.find((g) => g.at(-1)!.endMs! - g[0]!.endMs! > ONE_END_SPREAD_MS);
  if (moving)
    return `the announced resets moved on with the answers (over ${fmt(moving.at(-1)!.endMs! - moving[0]!.endMs!)}, never more than ${fmt(SAME_END_MS)} at a step): a time counted from each answer, as a bucket's "full at" is, not a window's end`;
  return groups.map((g) => ({
    endMs: g[Math.floor(g.length / 2)]!.endMs!,
    firstSeenMs: Math.min(...g.map((e) => e.seenMs)),
    lastSeenMs: Math.max(...g.map((e) => e.seenMs)),
  }));
}

/**
 * The window in whole seconds the announced ends step by, and the edges into each window seen
 * within a window after an answer of the one before; a string saying why the ends are not a
 * window's edges on the clock.
 */
export function ticksOf(ends: readonly AnnouncedEnd[], unsureMs: number): { windowMs: number; ticks: Tick[] } | string {
  const clusters = clustersOf(ends);
  if (typeof clusters === 'string') return clusters;
  const steps = clusters.slice(1).map((c, i) => c.endMs - clusters[i]!.endMs);
  const windowMs = Math.round(Math.min(...steps) / 1000) * 1000;
  if (windowMs < 1000) return 'the announced resets moved on by less than a second';
  const offWhole = steps.find((d) => Math.abs(d - Math.round(d / windowMs) * windowMs) > WHOLE_SECOND_SLACK_MS);
  if (offWhole !== undefined)
    return `the announced resets moved on by ${fmt(offWhole)}, not whole windows of ${fmt(windowMs)}: not a window's end`;
  // Steps of 1 and 2 s are all whole windows of 1 s, but a window of 1.5 s floored to its second is
  // announced up to 1.5 s ahead: httprate 75 per 1.5 s was read as 75 per 1 s, 50 % above its rate.
  const furthestMs = Math.max(...ends.map((e) => e.aheadMs));
  if (furthestMs > windowMs + AHEAD_SLACK_MS)
    return `an answer said its window ends ${fmt(furthestMs)} ahead, more than the ${fmt(windowMs)} the announced resets step by: not whole windows of that`;
  const ticks: Tick[] = [];
  for (const c of clusters.slice(1)) {
    // Before the edge: answers announcing an earlier end, or one already past (they come at the
    // end of a window: those of this window come after its first answers). Across a network the
    // last of one window and the first of the next may swap.
    const before = ends
      .filter((e) =>
        e.endMs === null
          ? e.seenMs < c.firstSeenMs
          : e.endMs < c.endMs - SAME_END_MS && e.seenMs < c.firstSeenMs + 2 * unsureMs,
      )
      .map((e) => e.seenMs);
    const lastBefore = before.length === 0 ? -Infinity : Math.max(...before);
    if (lastBefore < c.firstSeenMs - windowMs) continue;
    const at = {
      lo: Math.min(lastBefore, c.firstSeenMs) - unsureMs,
      hi: Math.max(lastBefore, c.firstSeenMs) + unsureMs,
    };
    // The edge is the end the window before announced, floored to the second: within a second after it.
    const fromEndMs = c.endMs - windowMs;
    if (at.hi < fromEndMs - EDGE_SLACK_MS || at.lo > fromEndMs + 1000 + EDGE_SLACK_MS)
      return `the window turned between ${fmt(at.lo)} and ${fmt(at.hi)}, where its announced end was ${fmt(fromEndMs)}: not where it said`;
    ticks.push({ at, fromEndMs });
  }
  return ticks.length === 0 ? 'no two adjacent windows were seen' : { windowMs, ticks };
}

/**
 * What the window that ended at `edge` let through, by the end each answer announced, and when the
 * limiter saw the first of them. A drain that straddled an edge filled two windows: after the next
 * edge only the second one's share weighs (httprate 200 per 10 s, its edge within the drain's first
 * second: a ramp timed against the whole drain read nothing, not identified). Undefined when an
 * admission before the edge said nothing of its window, or no announced end is that edge's.
 */
export function countedInWindowEndingAt(probe: Probe, edge: Bracket): WindowHeld | undefined {
  const ends = announcedEnds(probe);
  const clusters = clustersOf(ends);
  // Only ends that are a window's edges on the clock say which window counted an answer (the
  // emulator's quota announces when the next request may pass instead: 73 of a drain of 100).
  if (typeof clusters === 'string' || typeof ticksOf(ends, reorderMs(probe.samples) / 4) === 'string') return undefined;
  // Announced floored to the second: the edge within a second after the end its window announced.
  const window = clusters.find((c) => c.endMs >= edge.lo - 1000 - EDGE_SLACK_MS && c.endMs <= edge.hi + EDGE_SLACK_MS);
  if (!window) return undefined;
  const admittedBefore = probe.samples.filter((s) => s.answer === 'accepted' && seenMs(s) <= edge.lo);
  const announcedBefore = ends.filter((e) => e.accepted && e.seenMs <= edge.lo);
  if (announcedBefore.length !== admittedBefore.length || announcedBefore.some((e) => e.endMs === null))
    return undefined;
  const inWindow = ends.filter(
    (e) => e.accepted && e.endMs !== null && Math.abs(e.endMs - window.endMs) <= SAME_END_MS,
  );
  if (inWindow.length === 0) return undefined;
  const firstSeenMs = Math.min(...inWindow.map((e) => e.seenMs));
  // The set-up requests (a token, the validate method) went just before the drain: in its first window.
  const drainFirst = probe.samples.find((s) => s.phase === 'drain' && s.answer === 'accepted');
  const setUp = drainFirst && seenMs(drainFirst) >= firstSeenMs ? probe.calls.overhead.sent : 0;
  return { count: inWindow.length + setUp, firstSeenMs };
}

/** The end `sample`'s answer announced, probe ms; undefined when it announced none (or one already past, clamped). */
export function announcedEndOf(probe: Probe, sample: Sample): number | undefined {
  const heard = probe.heard.find((h) => h.sample === sample);
  return heard && heard.ad.resetAheadS !== null ? (endOf(heard).endMs ?? undefined) : undefined;
}

const fmt = (ms: number) => `${(ms / 1000).toFixed(3)} s`;
