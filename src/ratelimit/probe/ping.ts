// Single requests at chosen moments: how the identification phases ask a limit a yes/no question
// without feeding it a stream. A limiter that counts refused requests against the client is kept
// shut by a stream above its rate, so after the first refusal the probe only ever sends one
// request at a time, spaced out, or a clump it knows will pass.

import type { PhaseName, Sample } from '../types.js';
import type { Probe } from './probe.js';

/** Sends one request at `atMs` on the probe's clock (at once when that has passed); undefined when the budget ran out first. */
export async function pingAt(probe: Probe, phase: PhaseName, atMs: number): Promise<Sample | undefined> {
  const wait = atMs - probe.elapsed();
  if (probe.elapsed() + Math.max(0, wait) > probe.maxDurationMs) {
    probe.outOfTime();
    return undefined;
  }
  if (wait > 0) await probe.clock.sleep(Math.ceil(wait), probe.signal);
  if (probe.outOfBudget()) return undefined;
  return probe.send(phase);
}

export interface Recovery {
  /** The first request that passed; undefined when none did within the budget. */
  accepted?: Sample;
  /** The last one refused before it: the limit was still shut then. */
  lastRefused?: Sample;
  refused: number;
  /**
   * How much later than planned the request that passed went out, ms (a stalled machine, or the
   * answer before it late): the limit may have been back that much before its time showed, by no
   * more than the gap planned before it.
   */
  overdueMs?: number;
}

/** The first gap of a recovery search: two pacing intervals, never under 5 ms (timer resolution). */
export const firstGapMs = (probe: Probe) => Math.max(2000 / probe.maxRps, 5);

/**
 * From `fromMs`, one request after `firstGapMs`, then gaps growing by `growth` (the gap before each
 * ping is `growth` times the one before), until one passes: when the limit came back, to within
 * the last gap, for a number of refusals that grows with the log of the wait. `growth` may instead
 * give the next gap from the last one and the last ping (undefined: stop looking, nothing passed).
 */
export async function pingUntilAccepted(
  probe: Probe,
  phase: PhaseName,
  fromMs: number,
  firstGapMs: number,
  growth: number | ((gap: number, last: Sample) => number | undefined) = 2,
): Promise<Recovery> {
  let gap = Math.max(1, firstGapMs);
  let at = fromMs + gap;
  let lastRefused: Sample | undefined;
  let refused = 0;
  // Bounded by the budget: pingAt gives up at the probe's time cap, request cap or signal.
  for (;;) {
    const s = await pingAt(probe, phase, at);
    if (s === undefined) return { ...(lastRefused ? { lastRefused } : {}), refused };
    if (s.answer === 'accepted')
      return { accepted: s, ...(lastRefused ? { lastRefused } : {}), refused, overdueMs: Math.max(0, s.sentMs - at) };
    if (s.answer === 'limited') {
      lastRefused = s;
      refused++;
    }
    const next = typeof growth === 'number' ? gap * growth : growth(gap, s);
    if (next === undefined) return { ...(lastRefused ? { lastRefused } : {}), refused };
    gap = next;
    at = s.sentMs + gap;
  }
}

/**
 * One ping every `gapMs` after `fromMs`, each sent at its time rather than after the answer to the
 * one before: across a network ~100 ms away, pings that wait for answers go a round trip apart, so
 * a moment they look for is known only to a round trip (HAProxy's 300 per 10 s then timed to
 * ±1.4 %). Until the answers so far have `found` what was looked for, the next would go after
 * `untilMs`, or the budget ran out; then the answers still on their way. Read them by when the
 * limiter saw them (arrival.ts): those sent after the finding were already in flight. On loopback,
 * where answers come back within a gap, it sends what pingUntilAccepted with a constant gap sends.
 */
export async function pingsOnSchedule(
  probe: Probe,
  phase: PhaseName,
  fromMs: number,
  gapMs: number,
  untilMs: number,
  found: (answered: readonly Sample[]) => boolean,
): Promise<Sample[]> {
  const samples: Sample[] = [];
  const inFlight = new Set<Promise<void>>();
  let done = false;
  // Bounded by untilMs and the budget; in flight by the probe's bound.
  for (let at = fromMs + Math.max(1, gapMs); !done && at <= untilMs;) {
    if (at > probe.maxDurationMs) {
      probe.outOfTime();
      break;
    }
    const wait = at - probe.elapsed();
    if (wait > 0) await probe.clock.sleep(Math.ceil(wait), probe.signal);
    while (inFlight.size >= probe.maxInFlight) await Promise.race(inFlight);
    if (done || probe.outOfBudget()) break;
    const answer: Promise<void> = probe.send(phase).then((s) => {
      samples.push(s);
      done ||= found(samples);
      inFlight.delete(answer);
    });
    inFlight.add(answer);
    // Late (a busy machine): the next one a gap after this one, not a catch-up volley.
    at = Math.max(at, probe.elapsed()) + Math.max(1, gapMs);
  }
  await Promise.all(inFlight);
  return samples;
}

/**
 * Whether a drain of `cap` requests at max_rps, after waiting `waitMs` from `fromMs`, fits: wait and
 * drain within `share` of the probe's time cap, and done before the cap itself.
 */
export const drainFits = (probe: Probe, fromMs: number, waitMs: number, cap: number, share: number): boolean =>
  waitMs <= longestWaitMs(probe, fromMs, cap, share);

/** The longest wait from `fromMs` before a drain of `cap` requests that still fits (drainFits); below 0: none does. */
export function longestWaitMs(probe: Probe, fromMs: number, cap: number, share: number): number {
  const drainMs = (cap * 1000) / probe.maxRps;
  return Math.min(probe.maxDurationMs * share, probe.maxDurationMs - fromMs) - drainMs;
}

/** A drain at max_rps of up to `cap` requests (`exact`: no more sent), until the first refusal, from `atMs` on (at once when that has passed); undefined when the budget ran out first. */
export async function drainAt(
  probe: Probe,
  phase: PhaseName,
  atMs: number,
  cap: number,
  opts: { exact?: boolean } = {},
): Promise<Sample[] | undefined> {
  const wait = atMs - probe.elapsed();
  if (wait > 0) await probe.clock.sleep(Math.ceil(wait), probe.signal);
  if (probe.outOfBudget()) return undefined;
  return (await probe.burstRun(phase, cap, opts)).samples;
}

/**
 * Where a count topped up (topUp) ends, ms: its last request let through, or the first refusal
 * after it if later; -Infinity when none was sent. The pings refused after that refusal found the
 * window still shut, so they were before its edge whatever their time: counted as the count's end,
 * the top-up's own doubling gaps (to 0.9 of the shut, recover.ts) put that end on the next edge's
 * lower bound, and the count of 200 a bucket in front had cut to 198 was taken for one that ran
 * past the edge ("counted again, 1": a window of 200 per 10 s not identified at a tenth of phases).
 */
export function toppedEndMs(topped: readonly Sample[]): number {
  const lastIn = topped.findLastIndex((s) => s.answer === 'accepted');
  const ending = topped.slice(lastIn + 1).find((s) => s.answer === 'limited');
  return Math.max(-Infinity, ...[lastIn >= 0 ? topped[lastIn]! : undefined, ending].map((s) => s?.sentMs ?? -Infinity));
}

/**
 * Up to `shortBy` more let through after a run that another limit refused: a bucket in front of a
 * window (a bucket of 100 per second before a window of 200 per 10 s) shuts a run at max_rps a few
 * short of the window's count and lets them through one at a time a refill later. Pings with
 * doubling gaps from the first timer's, none sent at or past `beforeMs` (well inside the window,
 * so no admission is the next window's): the window is shut only when they stay refused that long.
 * Every request sent, in sending order.
 */
export async function topUp(probe: Probe, phase: PhaseName, shortBy: number, beforeMs: number): Promise<Sample[]> {
  const sent: Sample[] = [];
  const startGapMs = firstGapMs(probe);
  let fromMs = probe.elapsed();
  for (let i = 0; i < shortBy && fromMs + startGapMs < beforeMs && !probe.outOfBudget(); i++) {
    const found = await pingUntilAccepted(probe, phase, fromMs, startGapMs, (gap, last) => {
      sent.push(last);
      return last.sentMs + 2 * gap < beforeMs ? 2 * gap : undefined;
    });
    if (!found.accepted) break;
    sent.push(found.accepted);
    fromMs = found.accepted.sentMs;
  }
  return sent;
}
