// A proof round begins on a limit at rest: an announced quota the probe left short of what the
// round sends is waited for whole (src/ratelimit/proof-quota.ts), from the counts the answers said
// were left (src/ratelimit/probe/quota-left.ts). `run`'s probe against Kong's second and minute left
// 39 of 600; its round at 8 req/s for 5 s met their end at 4.7 s (CI land64).

import { describe, expect, it } from 'vitest';
import { quotaRestS, quotaRestText, roundNeeds } from '../../src/ratelimit/proof-quota.js';
import { QuotaWatch } from '../../src/ratelimit/probe/quota-left.js';
import { kongHeaders } from '../../src/spec/ratelimit-fields.js';
import type { Advertisement } from '../../src/spec/ratelimit-fields.js';
import type { QuotaLeft, Sample } from '../../src/ratelimit/types.js';
import type { LimiterSet } from '../../src/ratelimit/limiters/index.js';
import { RUN_PROBE_CAP_S } from '../../src/ratelimit/horizon.js';
import { advertising, discoverVirtual } from './virtual-limit.js';

const minute = (remaining: number, wholeByMs: number): QuotaLeft => ({
  limit: 600,
  window_s: 60,
  remaining,
  whole_by_ms: wholeByMs,
});

describe('the wait before a round for an announced quota the probe left short', () => {
  it('39 of 600 per minute left, a round at 8 req/s for 5 s needs 44: waits until the minute is whole, and says so', () => {
    expect(roundNeeds(8, 5, 60)).toBe(44);
    const round = { rps: 8, durationS: 5, sentSince: 0 };
    const wait = quotaRestS([minute(39, 60_100)], round, 22_000, 60);
    expect(wait.restS).toBeCloseTo(38.6, 5);
    expect(quotaRestText(wait, round)).toBe(
      'the probe left 39 of the announced 600 per 60 s, fewer than a round at 8 req/s for 5 s sends (44): waiting 38.6 s for its window to be whole again',
    );
  });

  it('enough left, or the window already whole: no wait', () => {
    const round = { rps: 8, durationS: 5, sentSince: 0 };
    expect(quotaRestS([minute(191, 60_100)], round, 22_000, 60)).toEqual({ restS: 0 });
    expect(quotaRestS([minute(0, 20_000)], round, 22_000, 60)).toEqual({ restS: 0 });
    expect(quotaRestS(undefined, round, 22_000, 60)).toEqual({ restS: 0 });
  });

  it('what the rounds since the probe sent counts in the same window', () => {
    const round = { rps: 8, durationS: 5, sentSince: 150 };
    const wait = quotaRestS([minute(191, 60_100)], round, 30_000, 60);
    expect(wait.restS).toBeCloseTo(30.6, 5);
    expect(quotaRestText(wait, round)).toMatch(
      /^the probe and the rounds since it left 41 of the announced 600 per 60 s/,
    );
  });

  it('a round longer than the window sends a window of its rate into it', () => {
    // 8 req/s over 120 s: 480 (×1.05, +2) into any one minute, not 960.
    expect(roundNeeds(8, 120, 60)).toBe(506);
    expect(quotaRestS([minute(505, 60_100)], { rps: 8, durationS: 120, sentSince: 0 }, 1_000, 150).restS).toBeCloseTo(
      59.6,
      5,
    );
  });

  it('a round that overruns the quota even whole waits for nothing: it tells', () => {
    expect(quotaRestS([minute(10, 60_100)], { rps: 20, durationS: 60, sentSince: 0 }, 1_000, 150)).toEqual({
      restS: 0,
    });
  });

  it('the longest of several short quotas sets the wait; one past the longest wait allowed is said, not taken', () => {
    const hour: QuotaLeft = { limit: 1000, window_s: 3600, remaining: 20, whole_by_ms: 3_000_000 };
    const round = { rps: 8, durationS: 5, sentSince: 0 };
    const both = quotaRestS([minute(39, 60_100), hour], round, 22_000, 60);
    expect(both).toMatchObject({ restS: 0, quota: hour, tooLong: true });
    expect(quotaRestText(both, round)).toMatch(
      /^the probe left 20 of the announced 1000 per 3600 s, .*; its window is not whole again within the wait a round may take/,
    );
  });
});

const answer = (doneMs: number, client: Sample['client'] = 'primary'): Sample => ({
  sentMs: doneMs - 2,
  doneMs,
  status: 200,
  answer: 'accepted',
  phase: 'drain',
  client,
});
const said = (remaining: number, resetS: number | null = null): Advertisement => ({
  limit: 600,
  windowS: 60,
  remaining,
  resetS,
  resetAheadS: resetS,
  source: 'X-RateLimit-Limit-Minute',
});

describe('what the answers said was left (QuotaWatch)', () => {
  it('the count left falls; the window is whole a window after the first answer counted in it', () => {
    const watch = new QuotaWatch();
    watch.observe(answer(100), [said(599)]);
    watch.observe(answer(900), [said(420)]);
    // Two answers swapped in flight: the lower count stands, but the window is counted from the rise.
    watch.observe(answer(905), [said(421)]);
    watch.observe(answer(910), [said(419)]);
    expect(watch.left()).toEqual([{ limit: 600, window_s: 60, remaining: 419, whole_by_ms: 60_905 }]);
  });

  it('a count that rose began a window; a reset said sooner than the window bounds it', () => {
    const watch = new QuotaWatch();
    watch.observe(answer(100), [said(3)]);
    watch.observe(answer(5_000), [said(599, 12)]);
    watch.observe(answer(6_000), [said(550, 11)]);
    expect(watch.left()).toEqual([{ limit: 600, window_s: 60, remaining: 550, whole_by_ms: 17_000 }]);
  });

  it("a second client's answers, and counts without a window, are not the target's", () => {
    const watch = new QuotaWatch();
    watch.observe(answer(100, 'second'), [said(599)]);
    watch.observe(answer(200), [{ ...said(5), windowS: null }]);
    expect(watch.left()).toEqual([]);
  });
});

/**
 * run's probe (its 30 s cap) against a bucket of 30/s and a minute of 600 whose edges fall `phaseS`
 * past each minute, announced in `fields`: the minute as the probe left it, the requests it got
 * through from `fromMs` on (those in the minute's current window), and the estimate to say it.
 */
async function probedMinute(phaseS: number, fields?: Parameters<typeof advertising>[2], fromMs = 0) {
  const truth: LimiterSet = [
    { kind: 'bucket', rate_rps: 30, burst: 30 },
    { kind: 'fixed-window', limit: 600, window_s: 60, phase_s: phaseS, counts_refused: false },
  ];
  const record: Sample[] = [];
  const estimate = await discoverVirtual(
    { limiter: () => advertising(truth, undefined, fields), status: 429 },
    { maxDurationS: RUN_PROBE_CAP_S, record },
  );
  return {
    left: estimate.quotas_left?.find((q) => q.window_s === 60),
    admitted: record.filter((s) => s.answer === 'accepted' && s.sentMs >= fromMs).length,
    context: JSON.stringify({ ...estimate, timeline: undefined, replay_timeline: undefined }),
  };
}

describe("the probe's estimate, against a second and a minute announced (a virtual clock)", () => {
  it("in Kong's fields: what run's probe left of the minute, and when it is whole again", async () => {
    // The virtual probe starts as the minute does: every request it got through is in it.
    const { left, admitted, context } = await probedMinute(0, kongHeaders);
    expect(admitted, context).toBeGreaterThan(300);
    expect(left, context).toMatchObject({ limit: 600, remaining: 600 - admitted });
    expect(left!.whole_by_ms, context).toBeGreaterThanOrEqual(60_000);
    expect(left!.whole_by_ms, context).toBeLessThanOrEqual(60_100);
  });

  it('an IETF list says each reset: the minute begun 45 s before the probe is whole at its announced end', async () => {
    // Its edge at 15 s came within the probe: what is left counts from there, whole at 75 s (the
    // reset said in whole seconds, rounded up: never sooner than the truth).
    const { left, admitted, context } = await probedMinute(15, undefined, 15_000);
    expect(left, context).toMatchObject({ limit: 600, remaining: 600 - admitted });
    expect(left!.whole_by_ms, context).toBeGreaterThanOrEqual(75_000);
    expect(left!.whole_by_ms, context).toBeLessThanOrEqual(76_000);
  });
});
