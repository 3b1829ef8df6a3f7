// Answers that come back late come back in clumps of their own, at a cadence the probe's one-at-a-
// time pings set: not a timer's staircase (probe/batch-staircase.ts). Two conformant services the
// staircase once misread, on the virtual clock: the emulator's `latency` profile (a continuous
// bucket, 50 req/s, answers 50 ± 20 ms late) read 1 run in 2 as "9 requests came back at once every
// 0.199 s … capacity not measured" (so `run` said rate_limit not tested; seed 19 here did it), and
// a 25 req/s bucket behind 2 s business answers (`slow-business`: refusals come at once) spent the
// probe's time cap timing clumps and lost the "figures are latency" verdict. Both must read as
// today's path reads them.

import { describe, expect, it } from 'vitest';
import { relativeError } from './support.js';
import { discoverVirtual, gcra } from './virtual-limit.js';

const SEEDS = Array.from({ length: 30 }, (_, i) => i + 1);

describe('a continuous bucket behind jittered answers is no timer (virtual time)', () => {
  it.each(SEEDS)('50 req/s, burst 50, answers 50 ± 20 ms late (jitter seed %i)', async (seed) => {
    const e = await discoverVirtual({
      limiter: () => gcra(50, 50),
      status: 429,
      announces: 'retry-after',
      answerDelay: { meanMs: 50, jitterMs: 20, seed },
    });
    const context = JSON.stringify({ limiter: e.limiter, notes: e.notes, evidence: e.limiter_evidence });
    expect(e.limiter, context).toEqual({ kind: 'bucket', rate_rps: expect.any(Number), burst: expect.any(Number) });
    expect(relativeError(e.sustained_rps, 50), context).toBeLessThanOrEqual(0.02);
    expect(Math.abs((e.burst ?? 0) - 50), context).toBeLessThanOrEqual(2);
    expect(e.notes.join('\n'), context).not.toMatch(/not identified|refilled by a timer/);
  });
});

describe('a bucket behind slow answers says the figures are latency (virtual time)', () => {
  it.each([1, 2, 3])('25 req/s behind 2 s business answers (jitter seed %i)', async (seed) => {
    const e = await discoverVirtual(
      {
        limiter: () => gcra(25, 25),
        status: 429,
        answerDelay: { meanMs: 2000, jitterMs: 20, seed, acceptedOnly: true },
      },
      { maxRps: 60, maxDurationS: 20 },
    );
    const context = JSON.stringify({ notes: e.notes, evidence: e.limiter_evidence });
    expect(e.notes[0], context).toMatch(/^not tested: answers take 2(\.\d+)? s \(p95\), .* latency, not the limit/);
    expect(e.notes.join('\n'), context).not.toMatch(/refilled by a timer/);
    expect(e.partial, context).toBe(true);
  });
});
