// When the identification's one-answer-after-another timings are latency rather than the limit.
import { describe, expect, it } from 'vitest';
import { latencyBound } from '../../src/ratelimit/discover.js';

describe('latencyBound', () => {
  it.each([
    { p95: 2_008, rps: 6.03, slow: true, why: '2 s business answers against a limit read at one per 166 ms' },
    { p95: 44, rps: 50, slow: false, why: 'a busy machine against a 50/s window: scheduling noise' },
    { p95: 600, rps: 1, slow: false, why: 'slow, but well inside the 1 s between admissions' },
    { p95: 600, rps: 10, slow: true, why: 'over half a second and over twice the 100 ms interval' },
    { p95: null, rps: 10, slow: false, why: 'nothing measured' },
    { p95: 2_000, rps: null, slow: false, why: 'no rate sized' },
  ])('p95 $p95 ms at $rps/s → slow: $slow ($why)', ({ p95, rps, slow }) => {
    const said = latencyBound(p95, rps);
    if (slow) expect(said).toMatch(/s \(p95\), longer than the .* between the admissions measured/);
    else expect(said).toBeUndefined();
  });
});
