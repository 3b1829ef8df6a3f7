// Half-second windows on a busy machine (every timer up to 10 ms late, on the virtual clock): the
// recovery's clump after the drain now and then runs past the next edge its pings find, or counts a
// straggler sent after its first refusal, and so does not show the limit. The probe gave up there,
// "limit unseen" after 2-10 s of its 60 (haproxy.test.ts's 40 per 0.5 s failed so about a run in
// ten). It counts again in clumps from later edges, and edges that fit no fixed window (HAProxy's
// counter) are measured from idle as a sliding window, the count not needed
// (src/ratelimit/probe/window-edges.ts recountLimit).

import { describe, expect, it } from 'vitest';
import { sustainedRate, type LimiterModel } from '../../src/ratelimit/limiters/index.js';
import { describeEstimate, relativeError } from './support.js';
import { discoverVirtual, fromModel, haproxyRate, openedEarlier, type Limiter } from './virtual-limit.js';

const admittedOnly: LimiterModel = { kind: 'sliding-window', limit: 40, period_s: 0.5, counts_refused: false };
const everyRequest: LimiterModel = { ...admittedOnly, counts_refused: true };

// Each gave "limit unseen" before: the lead is how long before the drain the set-up requests opened
// HAProxy's period (or the log's first slots), the seed the machine's lateness.
const cases: Array<{ name: string; limiter: () => Limiter; truth: LimiterModel; seed: number }> = [
  ...[
    { leadMs: 25, seed: 2 },
    { leadMs: 150, seed: 1 },
    { leadMs: 375, seed: 1 },
  ].map(({ leadMs, seed }) => ({
    name: `HAProxy http_req_rate(500ms) 40, admitted recipe, its period opened ${leadMs} ms before the drain, seed ${seed}`,
    limiter: () => openedEarlier(haproxyRate(40, 500, false), leadMs),
    truth: admittedOnly,
    seed,
  })),
  {
    name: 'HAProxy http_req_rate(500ms) 40, every request counted, seed 3',
    limiter: () => haproxyRate(40, 500, true),
    truth: everyRequest,
    seed: 3,
  },
  {
    name: 'a sliding log of 40 per 0.5 s, seed 1',
    limiter: () => fromModel(admittedOnly),
    truth: admittedOnly,
    seed: 1,
  },
];

describe('a half-second window on a busy machine whose recovery clump did not show the limit', () => {
  it.each(cases)('$name', async ({ limiter, truth, seed }) => {
    const e = await discoverVirtual(
      { limiter, status: 429, busy: { lateMs: 10, seed } },
      { maxRps: 200, maxDurationS: 60 },
    );
    const context = describeEstimate(e);
    expect(e.notes.join('\n'), context).not.toContain('the limit was not seen');
    expect(e.limiter?.kind, context).toBe('sliding-window');
    if (e.limiter?.kind === 'sliding-window' && truth.kind === 'sliding-window') {
      expect(e.limiter.limit, context).toBe(40);
      expect(e.limiter.counts_refused, context).toBe(truth.counts_refused);
    }
    expect(relativeError(e.sustained_rps, sustainedRate(truth)), context).toBeLessThanOrEqual(0.02);
    expect(e.partial, context).toBe(false);
  });
});
