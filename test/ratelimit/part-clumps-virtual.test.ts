// A limit smaller than the clump the period trials send (Flask-Limiter's moving windows, 10 per
// second and 100 per minute: each clump of the second's limit from idle meets the minute, as the
// real bench's did) refuses every trial's clump in part. The report said so once per trial, the
// same line 14 times, and "not pinned down … after 14 trials"; it says it once with their count,
// and counts none of them among the trials that bound the period (probe/sliding-period.ts).

import { describe, expect, it } from 'vitest';
import type { LimiterSet } from '../../src/ratelimit/limiters/index.js';
import { discoverVirtual, fromModel } from './virtual-limit.js';

describe("the period trials' clumps refused in part", () => {
  it("Flask-Limiter's 10 per 1 s and 100 per 60 s: said once, with how many, and not counted as trials", async () => {
    const stack: LimiterSet = [
      { kind: 'sliding-window', limit: 10, period_s: 1, counts_refused: false },
      { kind: 'sliding-window', limit: 100, period_s: 60, counts_refused: false },
    ];
    const e = await discoverVirtual({ limiter: () => fromModel(stack), status: 429 }, { maxDurationS: 150 });
    const notes = [...e.notes, ...e.limiter_evidence];
    const context = notes.join('\n');
    const part = notes.filter((n) => /refused in part: the window had not emptied/.test(n));
    expect(part, context).toHaveLength(1);
    const clumps = Number(/^(\d+) clumps of/.exec(part[0]!)?.[1]);
    expect(clumps, context).toBeGreaterThan(1);
    // The trials said to bound the period are those that were not refused in part.
    const trials = notes.map((n) => /after (\d+) trials/.exec(n)?.[1]).find((t) => t !== undefined);
    expect(Number(trials) + clumps, context).toBeLessThanOrEqual(14);
  });
});
