// Evidence before a claim (src/ratelimit/evidence.ts): a limiter that refused a few requests and
// then never again within the probe is "not identified", with what was seen, never a kind with
// edges read into the probe's own pacing (the "fixed window 70 per 0.35 s, 4 window edges"
// from one refusal, at a sustained rate equal to max_rps). Whole probe on a virtual clock.

import { describe, expect, it } from 'vitest';
import { discover } from '../../src/ratelimit/discover.js';
import { MIN_SHUTS, refusalsOf, tooFewRefusals } from '../../src/ratelimit/evidence.js';
import type { Sample } from '../../src/ratelimit/types.js';
import { virtualWorld, type Limiter } from './virtual-limit.js';

/** Refuses the requests with these arrival numbers (1-based), and lets every other one through. */
const refusesOnly = (numbers: number[]): Limiter => {
  let n = 0;
  return () => (numbers.includes(++n) ? 1000 : undefined);
};

describe('a limiter that stopped refusing is not identified', () => {
  it.each([
    { name: 'refused the 70th request, then never again', numbers: [70], shuts: 1, refused: 1 },
    { name: 'refused three in a row, then never again', numbers: [70, 71, 72], shuts: 1, refused: 3 },
    { name: 'refused twice, a window apart, then never again', numbers: [70, 140], shuts: 2, refused: 2 },
  ])('$name', async ({ numbers, shuts, refused }) => {
    const world = virtualWorld({ limiter: () => refusesOnly(numbers), status: 429, announces: 'retry-after' });
    try {
      const e = await discover({
        calls: world.calls,
        clock: world.clock,
        maxRps: 200,
        maxRequests: 3_000,
        maxDurationS: 40,
      });
      const context = JSON.stringify({ ...e, timeline: e.timeline.length }, null, 1);
      expect(e.limiter, context).toBeNull();
      expect(e.sustained_rps, context).toBeNull();
      expect(e.burst, context).toBeNull();
      expect(
        e.notes.some((n) => n.startsWith('identified: ')),
        context,
      ).toBe(false);
      const verdict = e.notes.find((n) => n.startsWith('not identified: '));
      expect(verdict, context).toMatch(
        new RegExp(`^not identified: the limit shut ${shuts} times? \\(${refused} refused (at|between) [\\d.]+ s`),
      );
      expect(verdict, context).toMatch(/then let the \d+ requests of the next [\d.]+ s through/);
      expect(e.limiter_evidence, context).toEqual([verdict]);
    } finally {
      world.stop();
    }
  });
});

const sample = (sentMs: number, answer: Sample['answer'], client: Sample['client'] = 'primary'): Sample => ({
  sentMs,
  doneMs: sentMs + 1,
  status: answer === 'limited' ? 429 : 200,
  answer,
  phase: 'drain',
  client,
});

describe('refusalsOf and tooFewRefusals', () => {
  it('counts each run of refusals as one shut, the second client and errors aside', () => {
    const r = refusalsOf([
      sample(0, 'accepted'),
      sample(10, 'limited'),
      sample(20, 'limited'),
      sample(25, 'error'),
      sample(30, 'accepted'),
      sample(40, 'limited', 'second'),
      sample(50, 'limited'),
      sample(60, 'accepted'),
      sample(90, 'accepted'),
    ]);
    expect(r).toEqual({ refused: 3, shuts: 2, firstMs: 10, lastMs: 50, sentAfter: 2, quietMs: 40 });
  });

  it.each(Object.entries(MIN_SHUTS))('%s needs %i shuts', (kind, needed) => {
    const seen = (shuts: number) => ({ refused: shuts, shuts, firstMs: 0, lastMs: 100, sentAfter: 10, quietMs: 500 });
    expect(tooFewRefusals(kind as keyof typeof MIN_SHUTS, seen(needed))).toBeNull();
    expect(tooFewRefusals(kind as keyof typeof MIN_SHUTS, seen(needed - 1))).toMatch(/^not identified: /);
  });
});
