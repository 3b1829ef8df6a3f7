// A token bucket's burst as a busy machine reads it. A request needs a whole token, so the
// capacity lies between what passed less the refill until the last admission and one more less the
// refill until the first refusal; the first end alone, rounded, read x/time/rate's burst of 40 as 38
// or 39 (CI s38, the real httprate test 4 of 26 runs) and a burst of 5 at 10 req/s as 4: its 5
// passed over 54 ms, 4.46 left. burstOf takes the middle of the two ends. Exact before, after:
// 20/40 44 -> 56 of 60, 10/5 2 -> 49 (and one read 3 before).

import { describe, expect, it } from 'vitest';
import { discoverVirtual, gcra } from './virtual-limit.js';

describe("a token bucket's burst read with the machine up to 20 ms late, 60 seeds", () => {
  it.each([
    { rate: 20, burst: 40, exact: 55 },
    { rate: 10, burst: 5, exact: 48 },
  ])(
    'NewLimiter($rate, $burst): within one request always, exact at $exact or more',
    async ({ rate, burst, exact }) => {
      const read: number[] = [];
      for (let seed = 1; seed <= 60; seed++) {
        const e = await discoverVirtual(
          { limiter: () => gcra(rate, burst), status: 429, busy: { lateMs: 20, seed } },
          { maxDurationS: 60 },
        );
        read.push(e.limiter?.kind === 'bucket' ? e.limiter.burst : -1);
      }
      const off = read.filter((b) => Math.abs(b - burst) > 1);
      expect(off, read.join(' ')).toEqual([]);
      expect(read.filter((b) => b === burst).length, read.join(' ')).toBeGreaterThanOrEqual(exact);
    },
    120_000,
  );
});
