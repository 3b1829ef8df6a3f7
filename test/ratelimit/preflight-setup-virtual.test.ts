// The CLI's preflight (src/runner/preflight.ts) sends one request to the target just before the
// rate-limit stage fetches its token. A limit per client (HAProxy's stick table tracks every
// request from the address) counts it with the set-up requests in the drain's first window. Left
// out of them, the bench's http_req_rate(500ms) 40 drained 37 where the probe expected 38, its
// period trials bracketed 0.2 s, not 0.5 s, and both recipes ended "not identified" through the
// CLI while they passed in-process (haproxy.test.ts). The calls now count it
// (src/ratelimit/calls.ts adjacentBefore); one sent long before (`run`'s, before all its checks)
// is not a set-up request.

import { describe, expect, it } from 'vitest';
import { SET_UP_ADJACENT_MS, adjacentBefore } from '../../src/ratelimit/calls.js';
import { sustainedRate, type LimiterModel } from '../../src/ratelimit/limiters/index.js';
import { describeEstimate, relativeError } from './support.js';
import { discoverVirtual, haproxyRate } from './virtual-limit.js';

const admittedOnly: LimiterModel = { kind: 'sliding-window', limit: 40, period_s: 0.5, counts_refused: false };
const everyRequest: LimiterModel = { ...admittedOnly, counts_refused: true };

describe('a preflight request the limit counted just before the probe', () => {
  it.each([
    { recipe: 'admitted', truth: admittedOnly, preflightMs: -150 },
    { recipe: 'admitted', truth: admittedOnly, preflightMs: -30 },
    { recipe: 'every request', truth: everyRequest, preflightMs: -150 },
    { recipe: 'every request', truth: everyRequest, preflightMs: -30 },
  ])(
    'HAProxy http_req_rate(500ms) 40, $recipe counted, the preflight $preflightMs ms before',
    async ({ truth, preflightMs }) => {
      const e = await discoverVirtual(
        { limiter: () => haproxyRate(40, 500, truth.counts_refused === true), status: 429, preflightMs },
        { maxRps: 200, maxDurationS: 60 },
      );
      const context = describeEstimate(e);
      expect(e.limiter?.kind, context).toBe('sliding-window');
      if (e.limiter?.kind === 'sliding-window') {
        expect(e.limiter.limit, context).toBe(40);
        expect(e.limiter.counts_refused, context).toBe(truth.counts_refused);
      }
      expect(relativeError(e.sustained_rps, sustainedRate(truth)), context).toBeLessThanOrEqual(0.02);
    },
  );

  it('counts a request sent just before the set-up, not one sent long before it or after it began', () => {
    expect(adjacentBefore([1000 - SET_UP_ADJACENT_MS, 990], 1000)).toBe(2);
    expect(adjacentBefore([1000 - SET_UP_ADJACENT_MS - 1, 1001], 1000)).toBe(0);
  });
});
