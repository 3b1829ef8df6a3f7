// A silent limit that trickled back after the drain faster than the recovery's pings, a round trip
// apart, could time (every one passed): watched, saturated, for as long as a bucket of the drain's
// size would take to refill twice, or until its rate rises and the two lines read a counter
// (trickle-lines.ts).
//
// A bucket and a sliding-window counter whose drain straddled an edge let the same trickle back
// from the shut on: the counter's, c1 / W, lasts until its next edge, then rises. That edge comes
// within a window, and the window is at most what the drain held over the trickle's rate (c1 is
// part of the drain): a rate unchanged for D / β after the shut is a bucket's. Streamed at the
// pings' rate instead (5.3 req/s where the silent 300 per 10 s counter let 14 back), the trickle
// was never saturated, the stream saw it rise at the next edge, and it was not identified.

import { round } from '../estimators.js';
import type { Sample } from '../types.js';
import { phaseS } from './advertised.js';
import { seenMs } from './arrival.js';
import { pingsOnSchedule } from './ping.js';
import type { Probe } from './probe.js';
import { firstGapMs, type DrainFigures } from './recover.js';
import { counterFromTrickle, type TrickleReading } from './trickle-lines.js';

/** Pings at this many times the rate last seen: saturated, a third of them refused. */
const OVER_RATE = 1.5;
/** Watched for this many times what a bucket of the drain's size takes to refill at the rate seen: a counter's edge comes within one, and then its second rate is watched for as long again. */
const REFILLS = 2;
/** Each round of pings, ms: the rate is read again after it. */
const ROUND_MS = 1_000;
/**
 * The watch ends by this share of the probe's time cap, whatever it saw: the phases after it need
 * the rest. Once the rate rose, it is no bucket's, and those phases would read none: the second
 * line may have nearly all of it (a rise of a few % is told from none only after seconds).
 */
const CAP_SHARE = 0.7;
/** A round that sent under this share of the pace it asked for was held back by the machine (late timers). */
const MACHINE_PACE = 0.8;
const RISEN_CAP_SHARE = 0.9;

export interface WatchFindings {
  /** The counter, or why the points are not one. */
  reading: TrickleReading;
  /**
   * The watch ended unsaturated at the fastest pace this machine sent its pings at: the rate that
   * passed then (req/s), which the trickle is at least. Unset when a round saturated the trickle.
   */
  passedRps?: number;
}

/** `rateRps`: the trickle's rate, a first guess (the recovery's pings, which all passed, were slower). */
export async function trickleWatchPhase(probe: Probe, drain: DrainFigures, rateRps: number): Promise<WatchFindings> {
  const shutMs = seenMs(drain.refusal);
  const refilledMs = (rps: number) => shutMs + REFILLS * (drain.limit / rps) * 1000;
  // Its own points only: a bucket drained again to confirm it (after a wait that refilled it) is
  // on a line moved on by that drain, which the recovery's points before it are not.
  const watchFromMs = probe.elapsed();
  let reading = counterFromTrickle(probe.samples, drain, watchFromMs);
  // Once the rate rose (a round that saturated nothing after one that did, or the lines show it),
  // watched on until the pings catch up and the second line is long enough to read.
  let risen = false;
  const endOf = (slowest: number) =>
    risen ? probe.maxDurationMs * RISEN_CAP_SHARE : Math.min(refilledMs(slowest), probe.maxDurationMs * CAP_SHARE);
  const untilMs = endOf(rateRps);
  if (!reading.model && probe.elapsed() < untilMs)
    probe.progress(
      `a silent trickle of about ${round(rateRps, 1)} req/s after the drain: watching it until ${round(untilMs / 1000, 1)} s at most (a bucket's rate stays; a counter's rises at its next edge)`,
    );
  let rate = rateRps;
  // The slowest rate saturated pings saw: the trickle's, which a bucket keeps and a counter leaves
  // at its edge (when the rate rises, the time it gives to refill shrinks; the watch does not).
  let slowest = Infinity;
  let passedRps: number | undefined;
  // Bounded: each round moves the clock on, and the loop ends by the cap share.
  while (!reading.model && !probe.outOfBudget()) {
    const fromMs = probe.elapsed();
    const endMs = endOf(Number.isFinite(slowest) ? slowest : rateRps);
    const gapMs = Math.max(firstGapMs(probe), 1000 / (OVER_RATE * rate));
    // A round holds a few pings however slow the trickle, and always moves the clock on.
    const untilMs = Math.min(fromMs + Math.max(ROUND_MS, 4 * gapMs), endMs);
    if (untilMs <= fromMs) break;
    const pings = await pingsOnSchedule(probe, 'edges', fromMs, gapMs, untilMs, () => false);
    const left = untilMs - probe.elapsed();
    if (left > 0) await probe.clock.sleep(Math.ceil(left), probe.signal);
    const saturated = pings.some((s) => s.answer === 'limited');
    // Every ping passed, sent as fast as this machine sends them (the gap's floor, or well short of
    // the pace asked: late timers push each ping on): no faster round can saturate the trickle, and
    // what passed is its rate at least. A bucket 50/s with every timer up to 15 ms late was watched
    // at its own rate for 33 s, unsaturated, then streamed from the 3.3 req/s the pings had read,
    // and not sized at the time cap (virtually, 60 seeds of 60).
    const offeredRps = (pings.length * 1000) / Math.max(1, untilMs - fromMs);
    if (!saturated && !Number.isFinite(slowest) && machineBound(gapMs, offeredRps, probe)) {
      passedRps = (pings.filter((s) => s.answer === 'accepted').length * 1000) / Math.max(1, untilMs - fromMs);
      break;
    }
    if (!saturated && Number.isFinite(slowest)) risen = true;
    rate = nextRate(pings, rate, untilMs - fromMs);
    if (saturated) slowest = Math.min(slowest, rate);
    reading = counterFromTrickle(probe.samples, drain, watchFromMs);
    if (!reading.model && reading.rose) risen = true;
  }
  // A rate that rose is no bucket's: why no counter was sized from it goes in the notes.
  if (!reading.model && reading.rose)
    probe.aside(`the trickle after the drain rose, but no counter was sized: ${reading.why}`);
  return { reading: onTheClock(probe, reading), ...(passedRps !== undefined ? { passedRps } : {}) };
}

/** A round sent at the gap's floor, or at under MACHINE_PACE of the pace its gap asked: the machine's pace, not the watch's. */
const machineBound = (gapMs: number, offeredRps: number, probe: Probe): boolean =>
  gapMs <= firstGapMs(probe) || offeredRps < (MACHINE_PACE * 1000) / gapMs;

/** The counter's phase on the wall clock, from the edge the drain straddled. */
function onTheClock(probe: Probe, reading: TrickleReading): TrickleReading {
  if (!reading.model) return reading;
  const edge = { lo: reading.edgeMs, hi: reading.edgeMs };
  return { ...reading, model: { ...reading.model, phase_s: phaseS(probe, edge, reading.model.window_s) } };
}

/** The rate a round's pings showed: what passed over its length when some were refused; if none was, more than it offered. */
function nextRate(pings: readonly Sample[], rate: number, roundMs: number): number {
  const refused = pings.filter((s) => s.answer === 'limited').length;
  const passed = pings.filter((s) => s.answer === 'accepted').length;
  if (refused === 0) return 2 * Math.max(rate, (passed * 1000) / roundMs);
  return Math.max((passed * 1000) / roundMs, 0.5 * rate);
}
