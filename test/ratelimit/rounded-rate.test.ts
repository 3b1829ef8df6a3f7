// A rate is given in figures a person would type (recommend.ts roundedRate: whole requests per
// second from 10 up, tenths from 1, hundredths below), down where it must not exceed a measure, up
// where it must reach a count (roundedRateUp: the search's round past a burst, search-loop.ts).
import { describe, expect, it } from 'vitest';
import { roundedRate, roundedRateUp } from '../../src/ratelimit/recommend.js';

describe('rates in typed figures', () => {
  it.each([
    [19.92, 19, 20],
    [20, 20, 20],
    [1.1, 1.1, 1.1],
    [1.14, 1.1, 1.2],
    [0.3, 0.3, 0.3],
    [0.123, 0.12, 0.13],
  ])('%s req/s: down to %s, up to %s', (raw, down, up) => {
    expect(roundedRate(raw)).toBe(down);
    expect(roundedRateUp(raw)).toBe(up);
  });
});
