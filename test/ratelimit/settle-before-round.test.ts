// The wait before a proof round (src/ratelimit/proof-timing.ts settleBeforeRoundS): a fixed window
// on the clock is fresh from its next edge, not 1.1 windows after the probe; every other limiter
// waits proofTiming's settle, and so does a set with any such limit in it. The first round waits no
// longer than the probe's requests, replayed through the limits read, leave a client at the policy.

import { describe, expect, it } from 'vitest';
import { proofTiming, settleBeforeRoundS } from '../../src/ratelimit/proof-timing.js';
import type { LimiterModel } from '../../src/ratelimit/limiters/index.js';
import { replay } from '../../src/ratelimit/round-replay.js';
import type { TimelinePoint } from '../../src/ratelimit/types.js';

const minute: LimiterModel = { kind: 'fixed-window', limit: 600, window_s: 60, phase_s: 0, counts_refused: false };
// The probe began at Unix 1000 s, 40 s into a minute: the edges fall at 20 s, 80 s, 140 s of its clock.
const CLOCK_START_S = 1000;

describe('the wait before a round', () => {
  const { settleS } = proofTiming(60, 120, 150, 60);

  it('a minute on the clock: until its next edge and half a second, not 1.1 windows', () => {
    expect(settleS).toBe(66.5);
    expect(settleBeforeRoundS([minute], settleS, 101, CLOCK_START_S)).toBeCloseTo(39.5, 6);
    expect(settleBeforeRoundS([minute], settleS, 139.9, CLOCK_START_S)).toBeCloseTo(0.6, 6);
    // Just past an edge: a whole window, and never more than the settle.
    expect(settleBeforeRoundS([minute], settleS, 80.1, CLOCK_START_S)).toBeCloseTo(60.4, 6);
  });

  it('a window opened at the first request, a sliding one, a bucket, or none: the settle', () => {
    const opened: LimiterModel = { ...minute, edges: 'first-request' };
    const counter: LimiterModel = { ...minute, kind: 'sliding-counter' };
    const bucket: LimiterModel = { kind: 'bucket', rate_rps: 10, burst: 600 };
    for (const m of [opened, counter, bucket])
      expect(settleBeforeRoundS([m], settleS, 101, CLOCK_START_S)).toBe(settleS);
    expect(settleBeforeRoundS([], settleS, 101, CLOCK_START_S)).toBe(settleS);
  });

  it('a set: every window on the clock waits for the latest of their edges; one bucket beside them keeps the settle', () => {
    const second: LimiterModel = { ...minute, limit: 30, window_s: 1 };
    expect(settleBeforeRoundS([second, minute], settleS, 101, CLOCK_START_S)).toBeCloseTo(39.5, 6);
    const bucket: LimiterModel = { kind: 'bucket', rate_rps: 30, burst: 30 };
    expect(settleBeforeRoundS([bucket, minute], settleS, 101, CLOCK_START_S)).toBe(settleS);
  });
});

/** A probe's timeline at 100 ms: `offered` requests in each slot listed, none elsewhere, up to `endS`. */
function timelineOf(endS: number, slots: Record<number, number>): TimelinePoint[] {
  const points: TimelinePoint[] = [];
  for (let i = 0; i * 0.1 < endS; i++) {
    const t = Math.round(i * 1000) / 10000;
    const offered = slots[t] ?? 0;
    points.push({ t, offered, accepted: offered, limited: 0, phase: offered > 0 ? 'drain' : 'wait' });
  }
  return points;
}

describe('the first round: no longer than the probe left the limit for a client at the policy', () => {
  // HAProxy's 50 per 10 s counting every request, as the probe claimed it (bench, 5 Dec): its
  // periods from 0.1 s on the probe's clock, the probe's last clump of 55 at 26 s. The settle is 1.5
  // windows (15.5 s); a client at 4 req/s cannot start in the clump's period (it holds 55 already),
  // but soon after the next edge, at 30.1 s, the clump's weight (55 × the share of the window still
  // to come) and its own first second at once are under 50.
  const counter: LimiterModel = {
    kind: 'sliding-counter',
    limit: 50,
    window_s: 10,
    phase_s: 0.1,
    counts_refused: true,
  };
  const probe = timelineOf(26.6, { 0: 50, 0.1: 5, 26: 30, 26.1: 25 });
  const { settleS } = proofTiming(10, 120, 60, 10);

  it('a counter counting every request: past its next edge and a few seconds, not 1.5 windows', () => {
    expect(settleS).toBe(15.5);
    const wait = settleBeforeRoundS([counter], settleS, 26.6, 0, { rps: 4, timeline: probe });
    expect(wait).toBeGreaterThan(30.1 - 26.6);
    expect(wait).toBeLessThan(9);
    // The client it waits for, 5 % faster, meets no refusal from there; in the clump's period it does.
    const paced = (startS: number) =>
      replay(counter, probe, [{ rps: 4.2, startS, durationS: 20, tailS: 0 }], [{ firstRefusalOnly: true }]).rounds[0]!
        .firstRefusalS;
    expect(paced(26.6 + wait)).toBeNull();
    expect(paced(29.5)).not.toBeNull();
  });

  // A policy above the limit is refused from rest too: the wait is where the probe's weight no
  // longer brings that refusal sooner, past the clump's period, and the round then fails on its own.
  it('a policy above the limit: no sooner refused than from rest, so past the clump all the same', () => {
    const wait = settleBeforeRoundS([counter], settleS, 26.6, 0, { rps: 6, timeline: probe });
    expect(wait).toBeGreaterThan(30.1 - 26.6);
    expect(wait).toBeLessThan(settleS);
  });

  // nginx's queue of 10 per second (burst 5) takes the first second's 8 arrivals as 6 and refuses
  // 2 even at rest: what counts is that the probe's last drain no longer brings a refusal sooner.
  it("a queue: once the probe's last drain has left it, though a bunch is refused from rest too", () => {
    const queue: LimiterModel = { kind: 'queue', rate_rps: 10, burst: 5, delay: 0 };
    const drained = timelineOf(16.4, { 16.3: 20 });
    const { settleS: queueSettleS } = proofTiming(0.5, 120, 60, null);
    const wait = settleBeforeRoundS([queue], queueSettleS, 16.4, 0, { rps: 7.9, timeline: drained });
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThan(queueSettleS);
  });

  // The probe places an edge in the middle of its bracket, and k6's setup token goes out first: a
  // round begun half a second past the edge the probe read was refused its token (Envoy's 10 per 60 s).
  it("the probe's own window, spent just past its edge: the first round begins a second past the next", () => {
    const spent = timelineOf(101, { 80.1: 600 });
    expect(settleBeforeRoundS([minute], 66.5, 101, CLOCK_START_S, { rps: 8, timeline: spent })).toBeCloseTo(40, 6);
    // Without the probe's timeline (a later round), half a second as before.
    expect(settleBeforeRoundS([minute], 66.5, 101, CLOCK_START_S)).toBeCloseTo(39.5, 6);
  });

  it('never longer than the settle or a window on the clock says', () => {
    const quiet = timelineOf(20, { 0: 10 });
    expect(settleBeforeRoundS([counter], settleS, 20, 0, { rps: 4, timeline: quiet })).toBe(0.5);
    // Before the first round, a second past the edge the probe read (stacked-inference.ts PROBED_EDGE_MARGIN_S).
    expect(settleBeforeRoundS([minute], 66.5, 101, CLOCK_START_S, { rps: 1, timeline: quiet })).toBeLessThanOrEqual(40);
  });
});
