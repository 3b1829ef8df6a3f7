// probe/trickle-lines.ts on hand-made answers: a limiter model answers a drain at 200 req/s and then
// pings on a schedule, each seen the moment it is sent (no network), so the lines are exactly the
// limiter's. The silent 300 per 10 s counter whose drain straddled an edge is sized from the two
// rates either side of the next edge; one whose drain ended before an edge from the line that
// starts there; a bucket's single line from the shut is neither, and a limiter whose rate rises for
// another reason (a second bucket) fails the drain's count, so none is claimed.

import { describe, expect, it } from 'vitest';
import { createLimiter, type Limiter, type LimiterModel } from '../../src/ratelimit/limiters/index.js';
import { counterFromTrickle } from '../../src/ratelimit/probe/trickle-lines.js';
import type { PhaseName, Sample } from '../../src/ratelimit/types.js';
import { slidingCounter } from './support.js';
import { answered } from '../helpers/answered.js';

const DRAIN_GAP_MS = 5;

/** A drain at 200 req/s from `startMs` until the first refusal, then one ping every `gapMs` until `untilMs`. */
function answers(limiter: Limiter, startMs: number, gapMs: (t: number) => number, untilMs: number): Sample[] {
  const samples: Sample[] = [];
  const send = (t: number, phase: PhaseName): Sample => {
    const s = answered(t, t, limiter.take(t).ok, phase);
    samples.push(s);
    return s;
  };
  let t = startMs;
  while (send(t, 'drain').answer === 'accepted') t += DRAIN_GAP_MS;
  for (t += gapMs(t); t < untilMs; t += gapMs(t)) send(t, 'window');
  return samples;
}

function drainOf(samples: readonly Sample[]) {
  const refusal = samples.find((s) => s.answer === 'limited')!;
  const accepted = samples.filter((s) => s.phase === 'drain' && s.answer === 'accepted').length;
  return { refusal, firstMs: samples[0]!.sentMs, limit: accepted, accepted };
}

const counter = (phase_s: number): LimiterModel => slidingCounter(300, 10, phase_s);

/** Pings at 1.5 times the fastest the counter frees (30 req/s): saturated on both lines. */
const saturating = () => 1000 / 45;

describe('a silent counter read off its trickle after the drain', () => {
  it.each([0.3, 0.75, 1.2])(
    'its drain straddled the edge at %f s: sized from the two rates either side of the next edge',
    (edgeS) => {
      const samples = answers(createLimiter(counter(edgeS)), 0, saturating, 17_000);
      const reading = counterFromTrickle(samples, drainOf(samples));
      expect(reading.model, 'why' in reading ? reading.why : '').not.toBeNull();
      if (!reading.model) return;
      expect(reading.model.window_s).toBeGreaterThan(9.85);
      expect(reading.model.window_s).toBeLessThan(10.15);
      expect(Math.abs(reading.model.limit - 300)).toBeLessThanOrEqual(3);
      expect(Math.abs(reading.edgeMs - edgeS * 1000)).toBeLessThan(150);
      expect(reading.evidence).toMatch(/the rate rose at an edge.*whose drain straddled an edge/);
    },
  );

  it('its drain ended 0.4 s before an edge: sized from the line that starts there', () => {
    const samples = answers(createLimiter(counter(1.9)), 0, saturating, 8_000);
    const reading = counterFromTrickle(samples, drainOf(samples));
    expect(reading.model, 'why' in reading ? reading.why : '').not.toBeNull();
    if (!reading.model) return;
    expect(reading.model.window_s).toBeGreaterThan(9.85);
    expect(reading.model.window_s).toBeLessThan(10.15);
    expect(reading.evidence).toMatch(/shut until an edge/);
  });

  it("a bucket's trickle is one line from the shut: no counter, and no rise", () => {
    const bucket = createLimiter({ kind: 'bucket', rate_rps: 30, burst: 300 });
    const samples = answers(bucket, 0, saturating, 17_000);
    const reading = counterFromTrickle(samples, drainOf(samples));
    expect(reading.model).toBeNull();
    expect('rose' in reading).toBe(false);
    expect('why' in reading && reading.why).toMatch(
      /one line of 30 req\/s from .*a bucket's, or a counter's edge at the shut/,
    );
  });

  it("a bucket drained again after a wait (its confirmation): the watch's own points, one line, no counter", () => {
    // The recovery's pings after the first drain, saturated, a wait that refills it, a
    // second drain, then the watch: the second drain moved the line on by what it took.
    const bucket = createLimiter({ kind: 'bucket', rate_rps: 50, burst: 50 });
    const first = answers(bucket, 0, () => 10, 1_000);
    const again = answers(bucket, 2_300, () => 1000 / 75, 2_300);
    const watchFromMs = again[again.length - 1]!.sentMs + 1;
    const watch = answers(bucket, watchFromMs, () => 1000 / 75, 6_000).filter((s) => s.phase === 'window');
    const samples = [...first, ...again.map((s) => ({ ...s, phase: 'recover' as const })), ...watch];
    const reading = counterFromTrickle(samples, drainOf(first), watchFromMs);
    expect(reading.model).toBeNull();
    expect('rose' in reading).toBe(false);
  });

  it('a rate that rises for another reason puts the edge before outside the drain: no counter claimed, the rise said', () => {
    // A bucket of 15 req/s that becomes one of 30 at 9 s: two lines, but no edge in the drain.
    const slow = createLimiter({ kind: 'bucket', rate_rps: 15, burst: 300 });
    const fast = createLimiter({ kind: 'bucket', rate_rps: 30, burst: 1 });
    const switching: Limiter = {
      take: (t) => (t < 9_000 ? slow.take(t) : fast.take(t)),
      test: (t) => (t < 9_000 ? slow.test(t) : fast.test(t)),
    };
    const samples = answers(switching, 0, saturating, 17_000);
    const reading = counterFromTrickle(samples, drainOf(samples));
    expect(reading).toMatchObject({ model: null, rose: true, why: expect.stringMatching(/outside the drain/) });
  });

  it("a counter another client used just before the probe fails the drain's count: not sized", () => {
    // Credentials shared: 20 requests of another job in the window before the edge the drain
    // straddles. The first rate weighs them too; the drain alone did not let that many through.
    const shared = createLimiter(counter(0.75));
    for (let i = 0; i < 20; i++) shared.take(-3_000 + 10 * i);
    const samples = answers(shared, 0, saturating, 17_000);
    const reading = counterFromTrickle(samples, drainOf(samples));
    expect(reading).toMatchObject({
      model: null,
      rose: true,
      why: expect.stringMatching(/the first rate says \d+ passed before the edge/),
    });
  });
});
