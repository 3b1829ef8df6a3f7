// The skew measurement as a table: readings of a service whose clock is a known amount off, taken
// at chosen instants on our clock; the bounds must always hold the truth, and narrow with readings.

import { describe, expect, it } from 'vitest';
import { measureSkew, READ_SLACK_S, resolutionOf, skewCheckAt, type ClockReading } from '../../src/time/clock-skew.js';

/** A reading of a service `skewS` ahead, its clock read `latencyMs / 2` after we sent at `sentMs`. */
const reading = (skewS: number, sentMs: number, latencyMs = 4): ClockReading => ({
  serviceMs: Math.floor((sentMs + latencyMs / 2 + skewS * 1000) / 1000) * 1000,
  sentAt: sentMs,
  receivedAt: sentMs + latencyMs,
});

describe('measureSkew', () => {
  it.each([0, 4, -4, 0.35, -2.7])('holds a skew of %s s within its bounds, one reading or many', (skew) => {
    const one = measureSkew([reading(skew, 1_000_123)])!;
    expect(one.minS).toBeLessThanOrEqual(skew);
    expect(one.maxS).toBeGreaterThanOrEqual(skew);
    // One reading knows the second only: its resolution is about a second.
    expect(resolutionOf(one)).toBeGreaterThan(0.9);
    // Many readings at scattered phases cut it down to about a round trip.
    const many = measureSkew(Array.from({ length: 40 }, (_, i) => reading(skew, 1_000_000 + i * 1_037)))!;
    expect(many.minS).toBeLessThanOrEqual(skew);
    expect(many.maxS).toBeGreaterThanOrEqual(skew);
    expect(resolutionOf(many)).toBeLessThan(0.1);
  });

  it('falls back to the hull when readings contradict each other (two clocks behind one name)', () => {
    const b = measureSkew([reading(0, 1_000_000), reading(3, 1_500_000)])!;
    expect(b.minS).toBeLessThanOrEqual(0);
    expect(b.maxS).toBeGreaterThanOrEqual(3);
  });

  it('has nothing to say without readings', () => {
    expect(measureSkew([])).toBeUndefined();
  });

  it('keeps the slack on the low side only: a rounded or cached timestamp can be behind, never ahead', () => {
    const b = measureSkew([reading(0, 1_000_000, 0)])!;
    expect(b.maxS).toBeCloseTo(1, 6);
    expect(b.minS).toBeCloseTo(-READ_SLACK_S, 6);
  });
});

describe('skewCheckAt', () => {
  it.each([0.42, 4.1, -3.9, 0.999])('bisects a true skew of %s s to under 20 ms in eight timed readings', (skew) => {
    const readings = [reading(skew, 5_000_000)];
    let now = 5_000_010;
    for (let i = 0; i < 8; i++) {
      const at = skewCheckAt(measureSkew(readings)!, now, 4);
      expect(at).toBeGreaterThanOrEqual(now);
      expect(at - now).toBeLessThan(1_000);
      readings.push(reading(skew, at));
      now = at + 10;
    }
    const b = measureSkew(readings)!;
    expect(b.minS).toBeLessThanOrEqual(skew);
    expect(b.maxS).toBeGreaterThanOrEqual(skew);
    expect(resolutionOf(b)).toBeLessThan(0.02);
  });
});
