// A probe that met no limit says how far it looked: the rate its requests actually went out at and
// over how long, not the max_rps it asked for. On a loaded machine (timers firing late, on the
// virtual clock) it reaches far less, and under half of max_rps its "none" is not tested: the
// harness held the rate down, not the service (src/ratelimit/probe/stream.ts noLimitReach).

import { describe, expect, it } from 'vitest';
import { discover } from '../../src/ratelimit/discover.js';
import { noLimitUntested, summaryLines, toRateLimitResult } from '../../src/ratelimit/result.js';
import { discoverVirtual, noLimit, virtualWorld } from './virtual-limit.js';

const budget = { maxRps: 100, maxRequests: 500, maxDurationS: 60 };

describe('no limit met: how far the probe looked', () => {
  it('on a quiet machine: no limit up to about max_rps, over the drain it sent', async () => {
    const e = await discoverVirtual({ limiter: noLimit, status: 429 }, budget);
    expect(e.limiting_status).toBeNull();
    const reach = e.no_limit_up_to!;
    expect(reach.tested).toBe(true);
    expect(reach.max_rps).toBe(100);
    expect(reach.rps).toBeGreaterThan(95);
    expect(reach.rps).toBeLessThanOrEqual(100.5);
    expect(reach.over_s).toBeGreaterThan(2.5);
    expect(noLimitUntested('tokens.validate', e)).toBeUndefined();
    expect(summaryLines(toRateLimitResult(e, null, null))[0]).toMatch(
      /^rate limit on tokens\.validate: no limit up to \d+(\.\d)? req\/s over \d(\.\d)? s; \d+ requests sent$/,
    );
  });

  it('on a loaded machine that sent at under half of max_rps: not tested, with the rate it reached', async () => {
    const e = await discoverVirtual({ limiter: noLimit, status: 429, busy: { lateMs: 40, seed: 3 } }, budget);
    expect(e.limiting_status).toBeNull();
    const reach = e.no_limit_up_to!;
    expect(reach.rps).toBeLessThan(50);
    expect(reach.tested).toBe(false);
    const why = noLimitUntested('tokens.validate', e);
    expect(why).toContain(
      `tokens.validate: not tested: no limit met, but the probe's requests went out, or were taken in, at only`,
    );
    expect(why).toContain('under half the 100 req/s max_rps asked');
    const line = summaryLines(toRateLimitResult(e, null, null))[0]!;
    expect(line).toMatch(/^rate limit on tokens\.validate: not tested: /);
    expect(line).not.toMatch(/none observed|no limit up to/);
  });

  it('every answer unusable (a body cut at the cap, on the virtual clock): no reach, nothing measured, never a rate to re-run at', async () => {
    const world = virtualWorld({ limiter: noLimit, status: 429 });
    const answered = world.calls.primary;
    const primary = async () => {
      const ex = await answered();
      throw new Error(`${ex.request} answered ${ex.status} with a body over the 65536-byte cap the client reads`);
    };
    try {
      const e = await discover({ ...budget, calls: { ...world.calls, primary }, clock: world.clock });
      expect(e.limiting_status).toBeNull();
      expect(e.no_limit_up_to).toBeUndefined();
      expect(noLimitUntested('tokens.validate', e)).toBeUndefined();
      const line = summaryLines(toRateLimitResult(e, null, null))[0]!;
      expect(line).toMatch(/^rate limit on tokens\.validate: nothing measured; \d+ requests sent$/);
      expect(e.notes.join('\n')).toContain(
        'stopped after 20 requests in a row got no valid answer (last: GET /tokens/validate answered 200 with a body over',
      );
    } finally {
      world.stop();
    }
  });
});
