// A sliding-window counter that announces its resets (go-chi/httprate's X-RateLimit-Reset: its
// window's end in whole Unix seconds, on every answer), told and timed by where those resets turn
// over. Across a network ~100 ms away the recovery's pings go a round trip apart, and a counter
// shut until its next edge, then letting one back every window / limit, looks to them like a bucket
// refilling (httprate 50 per 1 s read as a bucket 1–3 % slow, or not identified when the drain's
// tail happened to show it shut). The answers themselves say more: every one carries the end of the
// window the limiter counted it in, so the moment that end moves on is a window's edge, as the
// limiter saw it, to within the gap between two requests, whatever the round trip.
//
// The announcement is a hypothesis, tested: the ends must fall in clusters a whole number of
// seconds apart (a bucket's "full at" moves on with every answer), each edge where the end before
// it said (to the second it is rounded to). Then a drain from idle a third into a window: a counter
// stays shut until the next edge and lets requests back right at it; a bucket refills at once (all
// refused over several of its refills, it is none), a log frees a period after the drain began.
// The window is the time between an edge seen before the drain and that one, over the windows the
// announced ends count between them: to 1 %, many windows apart, and it must be the whole seconds
// they step by. Anything that does not fit leaves the limit to the usual phases as before, or says
// not identified once the drain showed it is no bucket.

import { midpoint, type Bracket } from '../identify.js';
import type { SlidingCounterModel } from '../limiters/index.js';
import type { Sample } from '../types.js';
import { phaseS } from './advertised.js';
import { announcedEnds, clustersOf, countedInWindowEndingAt, ticksOf, type Tick } from './announced-ends.js';
import { acceptedBeforeRefusal, reorderMs, seenMs, sendingEndMs } from './arrival.js';
import { lastSentMs, wholeSecondsNear, type CounterEdgeFindings } from './counter-edge.js';
import { backAfterRefused } from './counter-ramp.js';
import { drainAt, drainFits, pingsOnSchedule } from './ping.js';
import type { Probe } from './probe.js';
import { firstGapMs, type ShapeFindings } from './recover.js';
import { EDGE_PRECISION } from './window-edges.js';

/** The drain from idle this share of a window after an edge: a log would come back that much after the next one. */
const DRAIN_INTO_WINDOW = 0.3;
/** Refused for this many of the limit's steps (window / limit) after the drain: no bucket at that rate. */
const SHUT_STEPS = 5;
/** Drains from idle that may show a counter whose resets do not time it: one may fall just before an edge. */
const SHUT_TRIALS = 4;

export interface TicksFindings {
  /** The counter, sized; null with `shown` when it was shown but not sized. */
  model: SlidingCounterModel | null;
  /** A counter shown (shut until the announced edge, back at it): the usual phases must not read it. */
  shown: boolean;
  evidence: string[];
}

const fmt = (ms: number) => `${(ms / 1000).toFixed(3)} s`;

/** Why the announced resets left the limit to the usual phases, said as the probe goes and kept for the notes (a misreading after it is traced to this). */
function notUsed(probe: Probe, why: string): undefined {
  probe.aside(`announced resets not used: ${why}`);
  return undefined;
}

const width = (b: Bracket) => b.hi - b.lo;

/** The window between two edges `count` windows apart (by the ends announced before them). */
function windowBetween(a: Tick, b: Tick, windowMs: number): { count: number; window: Bracket } {
  const count = Math.round((b.fromEndMs - a.fromEndMs) / windowMs);
  return { count, window: { lo: (b.at.lo - a.at.hi) / count, hi: (b.at.hi - a.at.lo) / count } };
}

const narrowest = (ticks: readonly Tick[]): Tick =>
  ticks.reduce((best, t) => (t.at.hi - t.at.lo < best.at.hi - best.at.lo ? t : best));

/**
 * `limit`: what the drain let through (or the limit announced); `bucketRps`: the rate of the bucket
 * the usual phases read, when resets that cannot time it are to be checked against it (shutFromIdle).
 * Undefined when the service
 * announces no reset, its resets are not a window's edges on the clock, the trial does not fit the
 * budget or the limiter did not act as a counter at them: the usual phases go on as before.
 */
export async function resetTicksPhase(
  probe: Probe,
  drainedLimit: number,
  bucketRps?: number,
): Promise<TicksFindings | undefined> {
  const unsureMs = reorderMs(probe.samples) / 4;
  const found = ticksOf(announcedEnds(probe), unsureMs);
  if (typeof found === 'string')
    return bucketRps === undefined
      ? notUsed(probe, found)
      : shutFromIdle(probe, drainedLimit, bucketRps, unsureMs, found);
  const { windowMs } = found;
  // The drain may have begun in a window already counting (its figure then too high): what is announced, if anything.
  const limit = probe.advertisements.last?.ad.limit ?? drainedLimit;
  const first = narrowest(found.ticks);
  const roughMs = (first.at.hi - first.at.lo) / 2;
  const stepMs = windowMs / limit;
  // Idle long enough that a counter weighs nothing before the drain: two windows and a margin.
  const idleMs = lastSentMs(probe.samples) + 2.1 * windowMs;
  const n = Math.max(1, Math.ceil((idleMs - midpoint(first.at).value - DRAIN_INTO_WINDOW * windowMs) / windowMs));
  const edgeMs = midpoint(first.at).value + n * windowMs;
  const drainAtMs = edgeMs + DRAIN_INTO_WINDOW * windowMs;
  const cap = limit + 10;
  if (!drainFits(probe, probe.elapsed(), drainAtMs - probe.elapsed() + 1.3 * windowMs, cap, 1))
    return notUsed(probe, `a drain from idle at ${fmt(drainAtMs)} and a window after it do not fit the probe's budget`);
  probe.progress(`the announced resets turn over every ${fmt(windowMs)}: a drain from idle between two of them`);
  const drained = await drainAt(probe, 'edges', drainAtMs, cap);
  const shutMs = drained ? sendingEndMs(drained) : undefined;
  const passed = drained ? acceptedBeforeRefusal(drained).length : 0;
  if (!drained || shutMs === undefined || !drained.some((s) => s.answer === 'limited'))
    return notUsed(probe, `the drain from idle at ${fmt(drainAtMs)} saw no refusal (or the budget ran out)`);
  if (passed < limit - 1)
    return notUsed(probe, `the drain from idle at ${fmt(drainAtMs)} let ${passed} through, fewer than ${limit - 1}`);
  // Until just before the next edge, single requests at least a bucket's refill apart; across it, close ones.
  const nextMs = edgeMs + windowMs;
  const marginMs = roughMs + unsureMs + 0.05 * windowMs;
  const sparseGapMs = Math.max(firstGapMs(probe), 0.05 * windowMs, 1.5 * stepMs);
  // The close ones start on time: the sparse ones' last answers are waited for a round trip.
  const closeFromMs = nextMs - marginMs;
  const sparseUntilMs = closeFromMs - probe.latencyMs() - sparseGapMs;
  const sparse = await pingsOnSchedule(probe, 'edges', lastSentMs(probe.samples), sparseGapMs, sparseUntilMs, (a) =>
    a.some((s) => s.answer === 'accepted'),
  );
  const dense = sparse.some((s) => s.answer === 'accepted')
    ? []
    : await pingsOnSchedule(
        probe,
        'edges',
        Math.max(lastSentMs(probe.samples), closeFromMs - firstGapMs(probe)),
        firstGapMs(probe),
        nextMs + marginMs + 4 * stepMs,
        (a) => backAfterRefused(a) !== undefined,
      );
  const back = backAfterRefused([...sparse, ...dense]);
  // A bucket refilling a request every step lets the next request through after each refill: all
  // refused over several steps, it is none (as the limiter saw them: each off by up to unsureMs).
  const shut = drained.find((s) => s.sentMs === shutMs)!;
  const shutForMs = back ? seenMs(back.refused) - seenMs(shut) - 2 * unsureMs : 0;
  if (!back)
    return notUsed(probe, noComeback(drainAtMs, drained, [...sparse, ...dense], nextMs + marginMs + 4 * stepMs));
  if (shutForMs < SHUT_STEPS * stepMs)
    return notUsed(
      probe,
      `the drain from idle at ${fmt(drainAtMs)} was shut only ${fmt(shutForMs)}, less than ${SHUT_STEPS} steps of ${fmt(stepMs)}`,
    );
  const comeback: Bracket = { lo: seenMs(back.refused) - unsureMs, hi: seenMs(back.accepted) + unsureMs };
  const shownShut = `a drain from idle at ${fmt(drainAtMs)} (${passed} passed) stayed shut for ${fmt(shutForMs)}, where a bucket refilling one every ${fmt(stepMs)} would have let the next request through after each`;
  // The edge the close pings crossed, from their own announced ends.
  const crossed = ticksOf(announcedEnds(probe), unsureMs);
  const second = typeof crossed === 'string' ? undefined : crossed.ticks.find((t) => t.at.hi > closeFromMs);
  const notSized = (why: string): TicksFindings => ({
    model: null,
    shown: true,
    evidence: [`not identified: ${shownShut}, ${why}; not sized`],
  });
  if (!second) return notSized(`but the close pings saw no edge of the announced resets near ${fmt(nextMs)}`);
  // Back at the edge (within two of its steps), not before it (a bucket) nor a third of a window after it (a log).
  if (comeback.hi < second.at.lo || comeback.lo > second.at.hi + 2 * stepMs)
    return notSized(
      `and let one back between ${fmt(comeback.lo)} and ${fmt(comeback.hi)}, not at the edge the resets turned at (${fmt(second.at.lo)}–${fmt(second.at.hi)})`,
    );
  // Windows between an edge seen before the drain and this one, counted by the ends they
  // announced: the pair that pins a window closest.
  const between = found.ticks
    .filter((t) => t.at.hi < drainAtMs)
    .map((t) => windowBetween(t, second, windowMs))
    .filter((w) => w.count >= 1);
  if (between.length === 0) return notSized('back at the edge; but no earlier edge to time its window from');
  const { count, window } = between.reduce((best, w) => (width(w.window) < width(best.window) ? w : best));
  const sized = midpoint(window);
  if (sized.precision > EDGE_PRECISION || window.lo > windowMs || window.hi < windowMs)
    return notSized(
      `back at the edge; but ${count} windows between the edges measured ${fmt(window.lo)}–${fmt(window.hi)} each, not the ${fmt(windowMs)} the resets step by within ${EDGE_PRECISION * 100} %`,
    );
  const windowS = windowMs / 1000;
  const model: SlidingCounterModel = {
    kind: 'sliding-counter',
    limit: passed,
    window_s: windowS,
    phase_s: phaseS(probe, second.at, windowS),
    // Refused single requests did not keep it shut past the edge.
    counts_refused: false,
  };
  return {
    model,
    shown: true,
    evidence: [
      `${shownShut}, and let one back at the next edge of the announced resets (${fmt(second.at.lo)}–${fmt(second.at.hi)}): not a bucket, nor a log freeing a period after the drain; ${count} windows between two edges measured ${fmt(window.lo)}–${fmt(window.hi)} each, the ${windowS} s the resets step by: a sliding-window counter of ${passed} per ${windowS} s`,
    ],
  };
}

/** Why the pings after a drain from idle at `drainAtMs` saw no refusal and then a pass by `untilMs`. */
function noComeback(drainAtMs: number, drained: readonly Sample[], pings: readonly Sample[], untilMs: number): string {
  const drain = `the drain from idle at ${fmt(drainAtMs)}`;
  // Timers running late (a busy machine) stretch the drain itself past the edge its pings were to cross.
  if (pings.length === 0)
    return `${drain} sent until ${fmt(lastSentMs(drained))}: no time left for pings before ${fmt(untilMs)}`;
  if (pings.some((s) => s.answer === 'accepted')) return `a ping after ${drain} passed before any was refused`;
  return `the ${pings.length} pings after ${drain} were all refused until ${fmt(untilMs)}`;
}

/**
 * Read as a bucket at `rateRps`, a service whose announced resets jump as a window's ends do but
 * not by whole windows the ticks can time (httprate 75 per 1.5 s: its ends floored to seconds step
 * by 1 and 2 s; drained across an edge, the last window's weight comes back one request at a time
 * and the stream and the drain's tail read a bucket 42–49 req/s). Drains from idle: a counter stays
 * shut until its next edge, a bucket lets the next request through within a refill. Shut over
 * SHUT_STEPS refills: shown, not sized. Back sooner at every trial (a drain just before an edge):
 * undefined, the bucket reading stands as before.
 */
async function shutFromIdle(
  probe: Probe,
  drainedLimit: number,
  rateRps: number,
  unsureMs: number,
  untimed: string,
): Promise<TicksFindings | undefined> {
  // A reset announced only on refusals says when to retry (a bucket's 503 with "reset: 1"), not
  // where windows turn over: a window's end is on every answer (httprate's X-RateLimit-Reset).
  const onEveryAnswer = probe.heard.some((h) => h.sample.answer === 'accepted' && h.ad.resetS !== null);
  const clusters = clustersOf(announcedEnds(probe));
  if (!onEveryAnswer) return notUsed(probe, `${untimed}; and the reset is not announced on every answer`);
  if (typeof clusters === 'string' || rateRps <= 0) return notUsed(probe, untimed);
  // A window is at most the step between two adjacent windows' ends (more when one had no answer):
  // idle twice the longest, and the counter weighs nothing before the drain.
  const longestStepMs = Math.max(...clusters.slice(1).map((c, i) => c.endMs - clusters[i]!.endMs));
  const stepMs = 1000 / rateRps;
  const limit = probe.advertisements.last?.ad.limit ?? drainedLimit;
  const cap = limit + 10;
  const gapMs = Math.max(firstGapMs(probe), 1.5 * stepMs);
  for (let trial = 0; trial < SHUT_TRIALS; trial++) {
    const drainAtMs = lastSentMs(probe.samples) + 2.1 * longestStepMs;
    const pingsMs = (SHUT_STEPS + 2) * stepMs + 4 * unsureMs + probe.latencyMs();
    if (!drainFits(probe, probe.elapsed(), drainAtMs - probe.elapsed() + pingsMs, cap, 1))
      return notUsed(probe, `${untimed}; and a drain from idle at ${fmt(drainAtMs)} does not fit the probe's budget`);
    const drained = await drainAt(probe, 'edges', drainAtMs, cap);
    const shutMs = drained ? sendingEndMs(drained) : undefined;
    if (!drained || shutMs === undefined || !drained.some((s) => s.answer === 'limited'))
      return notUsed(probe, `${untimed}; and the drain from idle at ${fmt(drainAtMs)} saw no refusal`);
    const shut = drained.find((s) => s.sentMs === shutMs)!;
    const pings = await pingsOnSchedule(probe, 'edges', lastSentMs(probe.samples), gapMs, shut.sentMs + pingsMs, (a) =>
      a.some((s) => s.answer === 'accepted'),
    );
    // In the order the limiter saw them, the drain's tail too (a refill it took is a bucket's mark),
    // but not what passed before the shut and overtook it on the way.
    const passed = new Set(acceptedBeforeRefusal(drained));
    const after = [...drained, ...pings].filter(
      (s) => s.answer !== 'error' && !passed.has(s) && seenMs(s) >= seenMs(shut),
    );
    const back = backAfterRefused(after);
    const lastRefused = back?.refused ?? after.filter((s) => s.answer === 'limited').at(-1)!;
    const shutForMs = seenMs(lastRefused) - seenMs(shut) - 2 * unsureMs;
    if (shutForMs >= SHUT_STEPS * stepMs)
      return {
        model: null,
        shown: true,
        evidence: [
          `not identified: the announced resets jump as a window's ends do (not by whole windows that time it), and a drain from idle stayed shut for ${fmt(shutForMs)}, where a bucket at ${rateRps.toFixed(2)} req/s would have let the next request through within ${fmt(stepMs)}: not a bucket; not sized`,
        ],
      };
  }
  return notUsed(probe, `${untimed}; and ${SHUT_TRIALS} drains from idle each let one back within ${SHUT_STEPS} steps`);
}

/**
 * A counter too long for counter-edge.ts's drains from idle within the budget (two idle windows
 * before each: httprate 200 per 10 s, its edge 1-5 s after the drain, ended "not identified" in its
 * 25 s), shown by what it announced instead: its resets step by whole windows of the period the
 * stream read (a bucket's "full at" moves on with every answer), and the drained client came back
 * where they turned. A log announces the end of its oldest slot: a drain from idle announces one
 * end, and the first slot it frees a period on announces one a few ms later, no turn (so a drain
 * just after a counter's edge, back a period on, is told from a log too: httprate 200 per 10 s
 * read as a log of 202 per 10.1 s when this asked to be back well before a period). The window is
 * those whole seconds. Undefined, said as the probe goes, when any of it does not hold.
 */
export function announcedCounter(
  probe: Probe,
  shape: ShapeFindings,
  periodMs: number,
  limit: number,
): CounterEdgeFindings | undefined {
  const unsureMs = reorderMs(probe.samples) / 4;
  const found = ticksOf(announcedEnds(probe), unsureMs);
  if (typeof found === 'string') return notUsed(probe, found);
  const { windowMs, ticks } = found;
  if (wholeSecondsNear(periodMs, limit) !== windowMs)
    return notUsed(
      probe,
      `the stream read a period of ${fmt(periodMs)}, not within 1 % of the ${fmt(windowMs)} the announced resets step by`,
    );
  const { drain, recovery } = shape;
  const comeback: Bracket = {
    lo: seenMs(recovery.lastRefused ?? drain.refusal) - unsureMs,
    hi: seenMs(recovery.accepted) + unsureMs,
  };
  const stepMs = windowMs / limit;
  const tick = ticks.find((t) => comeback.lo <= t.at.hi + 2 * stepMs && comeback.hi >= t.at.lo);
  if (!tick)
    return notUsed(
      probe,
      `the drained client came back between ${fmt(comeback.lo)} and ${fmt(comeback.hi)}, not where the announced resets turned`,
    );
  const drainStartMs = seenMs(probe.samples.find((s) => s.sentMs === drain.firstMs) ?? drain.refusal);
  const backAfterMs = seenMs(recovery.accepted) - drainStartMs;
  // The drain may have straddled an edge: the window that ended where the client came back held what one window admits.
  const held = countedInWindowEndingAt(probe, tick.at);
  const straddled = held !== undefined && held.count < limit;
  const windowS = windowMs / 1000;
  return {
    ...(straddled ? { limit: held.count } : {}),
    counter: true,
    windowS,
    whole: true,
    phaseS: phaseS(probe, tick.at, windowS),
    evidence: `the announced resets step by whole windows of ${windowS} s, the period the stream read (${fmt(periodMs)}), and the drained client came back where they turned (${fmt(tick.at.lo)}–${fmt(tick.at.hi)}), ${fmt(backAfterMs)} after the drain began, where a log's slot frees with no turn: windows on the clock, counted and weighed (a sliding-window counter)${straddled ? `; the drain straddled an edge, and the window that ended there held ${held.count} of the ${limit} it let through` : ''}`,
  };
}
