// Little's law sizing of the probes' in-flight count: what a rate needs at a latency, within bounds.
import { describe, expect, it } from 'vitest';
import { MAX_IN_FLIGHT, MIN_IN_FLIGHT, inFlightFor, reachableRps } from '../../src/ratelimit/in-flight.js';

describe('inFlightFor', () => {
  it.each([
    { rps: 200, latencyMs: 0, want: MIN_IN_FLIGHT, why: 'nothing measured yet' },
    { rps: 200, latencyMs: 5, want: MIN_IN_FLIGHT, why: 'quick answers: the pacing sets the rate' },
    { rps: 200, latencyMs: 100, want: 26, why: '200/s × 0.1 s × 1.25 + 1' },
    { rps: 50, latencyMs: 2_000, want: 126, why: '50/s × 2 s × 1.25 + 1' },
    { rps: 200, latencyMs: 2_000, want: MAX_IN_FLIGHT, why: 'would be 501: bounded' },
  ])('$rps/s at $latencyMs ms → $want ($why)', ({ rps, latencyMs, want }) => {
    const n = inFlightFor(rps, latencyMs);
    expect(n).toBe(want);
    if (n < MAX_IN_FLIGHT) expect(reachableRps(n, latencyMs)).toBeGreaterThanOrEqual(rps);
  });

  it('a smaller cap bounds it', () => {
    expect(inFlightFor(200, 2_000, 32)).toBe(32);
    expect(reachableRps(32, 2_000)).toBe(16);
  });
});
