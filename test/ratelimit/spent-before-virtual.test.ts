// A limit already spent when the probe begins: `run`'s checks drain it seconds before (in `check`,
// ratelimit.limit-enforced), or another client of the same credentials did. The probe's first
// request is refused, so its drain admits nothing; it pings until one passes, waits, and drains
// again from idle (probe/redrain.ts). That second drain was capped at a small limit's room (44):
// a sliding log of 50 per 1 s ended it unrefused, the probe went on with no drain to read, and a
// fixed window of 100 per 2 s read its first ping and the drain 2.6 s later as one ("a bucket at
// 30.19 req/s"): both "not identified" at every seed, where the same limits at rest are sized.
// Now the drain goes until its first refusal, and the pings before it are the limit still shut.

import { describe, expect, it } from 'vitest';
import type { Limits } from '../../src/ratelimit/limiters/index.js';
import { discoverVirtual, fromModel } from './virtual-limit.js';

/** `model`'s limiter with everything it admits at one instant spent just before the probe's set-up. */
const spent = (model: Limits) => () => {
  const limiter = fromModel(model);
  for (let i = 0; i < 400; i++) limiter(-20);
  return limiter;
};

describe('a limit spent before the probe began (virtual clock, loopback jitter, 3 seeds each)', () => {
  it.each([
    {
      name: 'fixed window 100 per 2 s',
      model: { kind: 'fixed-window', limit: 100, window_s: 2, phase_s: 0.3, counts_refused: false },
      rps: 50,
    },
    {
      name: 'sliding log 50 per 1 s',
      model: { kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: false },
      rps: 50,
    },
    { name: 'bucket 50/s, burst 50', model: { kind: 'bucket', rate_rps: 50, burst: 50 }, rps: 50 },
    // Back at its edge 10 s in: a drain after the 80 s a small limit's refill wants did not fit the
    // budget, so none was made ("not identified"); any drain within the window drains it whole.
    {
      name: 'silent fixed window 120 per 60 s',
      model: { kind: 'fixed-window', limit: 120, window_s: 60, phase_s: 10, counts_refused: false },
      rps: 2,
      maxDurationS: 150,
    },
    { name: 'slow bucket 1/s, burst 10', model: { kind: 'bucket', rate_rps: 1, burst: 10 }, rps: 1, maxDurationS: 150 },
  ] as Array<{ name: string; model: Limits; rps: number; maxDurationS?: number }>)(
    '$name: identified as its kind, within 2 %',
    async ({ model, rps, maxDurationS }) => {
      const readings: string[] = [];
      for (const seed of [1, 2, 3]) {
        const e = await discoverVirtual(
          { limiter: spent(model), status: 429, network: { oneWayMs: 1, jitterMs: 0.8, seed } },
          maxDurationS ? { maxDurationS } : {},
        );
        const off = e.sustained_rps === null ? null : Math.abs(e.sustained_rps / rps - 1);
        readings.push(
          `seed ${seed}: ${e.limiter?.kind ?? 'not identified'} ${e.sustained_rps} ${off !== null && off <= 0.02 ? 'ok' : e.notes.join('; ').slice(0, 200)}`,
        );
      }
      const kind = (model as { kind: string }).kind;
      expect(readings.filter((r) => !(r.includes(`: ${kind} `) && r.endsWith(' ok')))).toEqual([]);
    },
  );
});
