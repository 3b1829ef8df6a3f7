// A drain that straddles a long fixed window's edge lets through what the window before still held
// and then the whole next one: more than the clump the first edge gives back, which is what a
// window weighing the last one (a sliding-window counter) does too. Its ramp then let nothing
// through, and the probe said "not identified" 17 s into a 60 s probe (200 per 10 s, its edge
// 0.25 s into the drain). Now a fixed window is tried (silent-window.ts straddledFixedWindow): the
// same count again right after the next edge, and a drain of at most twice it. Limits that slide,
// whose first edge also gives back fewer than the drain, fail those tests and are not read as one
// (HAProxy's counters: test/ratelimit/unidentified-search-virtual.test.ts).

import { describe, expect, it } from 'vitest';
import { sustainedRate, type LimiterModel } from '../../src/ratelimit/limiters/index.js';
import { relativeError } from './support.js';
import { discoverVirtual, fromModel } from './virtual-limit.js';

const probe = (truth: LimiterModel) =>
  discoverVirtual({ limiter: () => fromModel(truth), status: 429 }, { maxDurationS: 60 });

describe('a silent long window the drain straddled', () => {
  it.each([
    { limit: 200, phaseS: 0.25 },
    { limit: 200, phaseS: 0.75 },
    { limit: 100, phaseS: 0.25 },
  ])(
    'a fixed window of $limit per 10 s, its edge $phaseS s into the drain: sized within 2 %',
    async ({ limit, phaseS }) => {
      const truth: LimiterModel = { kind: 'fixed-window', limit, window_s: 10, phase_s: phaseS, counts_refused: false };
      const e = await probe(truth);
      const context = `${JSON.stringify(e.limiter)} ${e.sustained_rps} req/s; ${e.notes.join('; ')}`;
      expect(e.limiter, context).toMatchObject({ kind: 'fixed-window', limit });
      expect(relativeError(e.sustained_rps, sustainedRate(truth)), context).toBeLessThanOrEqual(0.02);
      expect(e.limiter_evidence.join('\n'), context).toMatch(/the drain across one of its edges/);
      // Two windows and a little: well inside the probe's minute.
      expect(e.duration_s, context).toBeLessThan(30);
    },
  );

  // Its first edge gives back 58 of the 98 the drain let through, and after the next one 18: a
  // clump that came back whole at neither edge is no fixed window's.
  it('a sliding log of 100 per 10 s counting refused requests is not read as a fixed window', async () => {
    const e = await probe({ kind: 'sliding-window', limit: 100, period_s: 10, counts_refused: true });
    expect(e.limiter?.kind ?? null, JSON.stringify(e.limiter)).not.toBe('fixed-window');
  });
});
