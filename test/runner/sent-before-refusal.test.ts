// ratelimit.limit-enforced records, for the run history, how many requests got through before the
// limit and the rate they were sent at. Only the requests sent before the first refused one count:
// what the burst did after it (a stalled, slower end on a loaded machine, during which a bucket
// refills and admits more) once turned an unchanged service into a "regression" (102 vs 66).

import { describe, expect, it } from 'vitest';
import { sentBeforeRefusal } from '../../src/runner/limit-burst.js';
import type { Sample } from '../../src/ratelimit/types.js';
import { gcra } from '../ratelimit/virtual-limit.js';

/** A burst against a bucket of 50/s, 50 at once: `gapsMs[i]` before request i, answers 5 ms later. */
function burst(gapsMs: (i: number) => number, n: number): Sample[] {
  const bucket = gcra(50, 50);
  const samples: Sample[] = [];
  let t = 0;
  for (let i = 0; i < n; i++) {
    t += i === 0 ? 0 : gapsMs(i);
    const admitted = bucket(t) === undefined;
    samples.push({
      sentMs: t,
      doneMs: t + 5,
      status: admitted ? 200 : 429,
      answer: admitted ? 'accepted' : 'limited',
      phase: 'drain',
      client: 'primary',
    });
  }
  return samples;
}

describe('the requests sent before the first refused one', () => {
  it('a 200/s burst: 66 got through at 200/s, however slowly the burst ended after its first 429', () => {
    const brisk = burst(() => 5, 120);
    // After the 67th (the first refused), a loaded machine's tail: one request every 40 ms, which
    // the bucket's 50/s mostly admits.
    const stalledEnd = burst((i) => (i < 67 ? 5 : 40), 120);
    const allAccepted = (s: Sample[]) => s.filter((x) => x.status === 200).length;
    expect(allAccepted(stalledEnd)).toBeGreaterThan(allAccepted(brisk) + 30);
    for (const samples of [brisk, stalledEnd]) {
      const before = sentBeforeRefusal(samples)!;
      expect(before.accepted).toBe(66);
      expect(before.offeredRps).toBeCloseTo(200, 0);
    }
  });

  it('a slower burst admits more of it, and says the slower rate it was sent at', () => {
    const before = sentBeforeRefusal(burst(() => 1000 / 69, 300))!;
    expect(before.offeredRps).toBeCloseTo(69, 0);
    expect(before.accepted).toBeGreaterThan(170);
  });

  it('nothing refused: nothing to say', () => {
    expect(sentBeforeRefusal(burst(() => 40, 30))).toBeUndefined();
  });
});
