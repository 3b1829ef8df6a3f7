// A bucket that holds one request (nginx's limit_req with no burst): nothing passes back-to-back,
// and a stream offered just above its rate passes at half of it. The detectors read none of it:
// "not identified: from a refusal on, 3.45 req/s passed at least: more than a bucket at the 2.58
// req/s the stream read refills" at 5 req/s, and at 1 req/s the probe ran to its 60 s cap, partial,
// so no proof ran. Its interval is now bracketed by the trace and bisected by single pings
// (probe/bucket-of-one.ts), and claimed only when the judge lets it.

import { describe, expect, it } from 'vitest';
import { oneBracket } from '../../src/ratelimit/probe/bucket-of-one.js';
import { answered } from '../helpers/answered.js';
import { discoverVirtual, gcra } from './virtual-limit.js';
import { describeEstimate, relativeError } from './support.js';

describe('a bucket of one, on the virtual clock', () => {
  it.each([
    { rps: 1, capS: 60 },
    { rps: 0.5, capS: 150 },
  ])('$rps req/s: a bucket of burst 1 within 1 %, within its stated precision, whole', async ({ rps, capS }) => {
    const e = await discoverVirtual({ limiter: () => gcra(rps, 1), status: 429 }, { maxDurationS: capS });
    const context = describeEstimate(e);
    expect(e.limiter, context).toMatchObject({ kind: 'bucket', burst: 1 });
    expect(relativeError(e.sustained_rps, rps), context).toBeLessThanOrEqual(0.01);
    expect(relativeError(e.sustained_rps, rps), context).toBeLessThanOrEqual(e.sustained_precision!);
    expect(e.burst, context).toBe(1);
    expect(e.partial, context).toBe(false);
    expect(
      e.notes.filter((n) => n.startsWith('not identified')),
      context,
    ).toEqual([]);
  });

  it('too fast for single pings to time (50 req/s, 20 ms between admissions): no bucket of one claimed past its precision', async () => {
    const e = await discoverVirtual({ limiter: () => gcra(50, 1), status: 429 });
    if (e.limiter !== null) expect(relativeError(e.sustained_rps, 50)).toBeLessThanOrEqual(e.sustained_precision!);
    expect(e.limiter?.kind === 'bucket' && e.limiter.burst === 1 && e.sustained_precision! > 0.05).toBe(false);
  });

  it('a bucket that holds two is never read as one', async () => {
    const e = await discoverVirtual({ limiter: () => gcra(2, 2), status: 429 }, { maxDurationS: 60 });
    expect(e.limiter, describeEstimate(e)).not.toMatchObject({ burst: 1 });
  });
});

describe('what the trace brackets', () => {
  /** Admissions every `everyMs` from 0, each followed by refusals `refusedAtMs` after it. */
  const trace = (everyMs: number, refusedAtMs: number[], spells: number) =>
    Array.from({ length: spells }, (_, k) => [
      answered(k * everyMs, k * everyMs + 2, true),
      ...refusedAtMs.map((at) => answered(k * everyMs + at, k * everyMs + at + 2, false)),
    ]).flat();

  it('the interval lies between the last refusal after an admission and the next admission', () => {
    expect(oneBracket(trace(500, [100, 300, 450], 4))).toMatchObject({ shutMs: 450, backMs: 500, spells: 3 });
  });

  it('two admissions closer than the limit was seen shut: no bucket of one', () => {
    const samples = [...trace(500, [100, 450], 4), answered(1520, 1522, true)].sort((a, b) => a.sentMs - b.sentMs);
    expect(oneBracket(samples)).toBeUndefined();
  });

  it('never shut between two admissions often enough: nothing bracketed', () => {
    expect(oneBracket(trace(500, [450], 2))).toBeUndefined();
  });
});
