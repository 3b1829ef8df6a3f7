// The report's rate_limit section from an estimate: the contract's fields, the non-conformant
// 503, "no limit", and how report.md and the terminal show the probe's extra figures.

import { describe, expect, it } from 'vitest';
import { rateLimitFacts } from '../../src/report/sections/rate-limit/words.js';
import { resetSeconds } from '../../src/ratelimit/answers.js';
import { recommend } from '../../src/ratelimit/recommend.js';
import { proofRound } from '../../src/ratelimit/proof-loop.js';
import { summaryLines, toRateLimitResult } from '../../src/ratelimit/result.js';
import type { Estimate } from '../../src/ratelimit/types.js';

const ESTIMATE: Estimate = {
  endpoint: 'tokens.validate',
  limiting_status: 429,
  sustained_rps: 49.98,
  sustained_precision: 0.004,
  burst: 50,
  burst_from_idle: true,
  recovery_s: 0.041,
  refill_s: 1,
  retry_after_header: 'truthful',
  retry_after_max_s: 1,
  scope: 'unknown',
  latency_p95_ms: 3.2,
  requests_sent: 412,
  requests_limited: 61,
  duration_s: 7.9,
  timeline: [
    { t: 0, offered: 200, accepted: 70, limited: 12, phase: 'drain' },
    { t: 1, offered: 62, accepted: 50, limited: 12, phase: 'window' },
  ],
  limiter: { kind: 'bucket', rate_rps: 50, burst: 50 },
  limiter_evidence: [
    'after the first refusal a request passed again within 20 ms, then one every 20 ms: a bucket refilling at a steady rate',
  ],
  notes: [
    'burst: 70 requests passed back-to-back at 200 req/s from idle; 50 after taking away what the limit refilled meanwhile',
  ],
  partial: false,
};

describe('toRateLimitResult', () => {
  it('fills every field the contract names, and the optional figures', () => {
    const r = toRateLimitResult(ESTIMATE, recommend(ESTIMATE), { rate_429: 0, goodput_rps: 39.9, lost_requests: 0 });
    expect(Object.keys(r)).toEqual(
      expect.arrayContaining([
        'endpoint',
        'observed_429',
        'sustained_rps',
        'burst',
        'scope',
        'retry_after_header',
        'recovery_s',
        'requests_sent',
        'requests_limited',
        'recommendation',
      ]),
    );
    expect(r.observed_429).toBe(true);
    expect(r.recommendation).toEqual({
      target_rps: 39,
      max_concurrency: 1,
      backoff: expect.objectContaining({ jitter: 'full' }),
    });
    expect(r.proof).toEqual({ rate_429: 0, goodput_rps: 39.9, lost_requests: 0 });
    expect(r.timeline).toHaveLength(2);
    expect(r.notes?.some((n) => n.startsWith('recommendation: target 39 req/s'))).toBe(true);
    // The probe's own reading carries how far it may be off, rounded up: ±0.4 %.
    expect(r.sustained_precision).toBe(0.004);
    expect(rateLimitFacts(r)).toEqual(
      expect.arrayContaining([
        ['Sustained rate', '50.0/s (±0.4 %)'],
        ['Recovery', '41 ms'],
        ['Refill of the burst', '1 s'],
        ['Probe duration', '7.9 s'],
      ]),
    );
  });

  it('shows a 503 limit as non-conformant, not as an observed 429', () => {
    const estimate: Estimate = {
      ...ESTIMATE,
      limiting_status: 503,
      notes: ['non-conformant: §7 wants 429 for a rate limit; the limit answered 503 (61 times)'],
    };
    const r = toRateLimitResult(estimate, recommend(estimate), null);
    expect(r.observed_429).toBe(false);
    expect(r.sustained_rps).toBe(49.98);
    expect(rateLimitFacts(r)).toContainEqual(['Limiting answer', '503 (non-conformant: §7 wants 429)']);
    expect(summaryLines(r)[0]).toContain('(503, non-conformant: §7 wants 429)');
  });

  const NONE: Estimate = {
    ...ESTIMATE,
    limiting_status: null,
    sustained_rps: null,
    burst: null,
    recovery_s: null,
    refill_s: null,
    requests_limited: 0,
    limiter: null,
    limiter_evidence: [],
    no_limit_up_to: { rps: 187.3, over_s: 2.1, max_rps: 200, tested: true },
  };

  it('says when there is nothing to recommend, and how far "no limit" was tested: the rate reached and over how long', () => {
    const r = toRateLimitResult(NONE, recommend(NONE), null);
    expect(r.recommendation).toBeNull();
    expect(r.notes).toContain('no recommendation: the probe did not measure a sustained rate to size a client by');
    expect(r.no_limit_up_to).toEqual({ rps: 187.3, over_s: 2.1, max_rps: 200, tested: true });
    expect(summaryLines(r)).toEqual([
      'rate limit on tokens.validate: no limit up to 187.3 req/s over 2.1 s (max_rps 200: a limit between the two is not tested); 412 requests sent',
      '  probe: 412 requests, 0 limited (0.0 %), 7.9 s',
      'recommend: nothing (no sustained rate measured)',
    ]);
    // report.md, report.html and junit.xml all say it through the facts.
    expect(rateLimitFacts(r)).toContainEqual([
      'Sustained rate',
      'no limit up to 187.3/s over 2.1 s (max_rps 200: a limit between the two is not tested)',
    ]);
    const atMax = toRateLimitResult(
      { ...NONE, no_limit_up_to: { rps: 198, over_s: 2, max_rps: 200, tested: true } },
      null,
      null,
    );
    expect(summaryLines(atMax)[0]).toBe(
      'rate limit on tokens.validate: no limit up to 198 req/s over 2 s; 412 requests sent',
    );
  });

  it('never says "none" when the probe could not reach a meaningful rate: not tested, with the rate it reached', () => {
    const slow = { ...NONE, no_limit_up_to: { rps: 41.6, over_s: 7.2, max_rps: 200, tested: false } };
    const r = toRateLimitResult(slow, recommend(slow), null);
    const line = summaryLines(r)[0]!;
    expect(line).toBe(
      "rate limit on tokens.validate: not tested: no limit met, but the probe's requests went out, or were taken in, at only 41.6 req/s over 7.2 s, under half the 200 req/s max_rps asked (a loaded machine, slow answers or a service that takes no more held it back), so a limit above that rate would look like none; run it again on a quieter machine, or against a service that takes more; 412 requests sent",
    );
    expect(line).not.toMatch(/none observed|no limit up to/);
    expect(rateLimitFacts(r).find(([label]) => label === 'Sustained rate')?.[1]).toMatch(
      /^not tested: no limit met, but the probe's requests went out, or were taken in, at only 41\.6\/s over 7\.2 s,/,
    );
  });

  it('says a figure was not measured rather than print a placeholder (a limit met but not sized)', () => {
    const unsized: Estimate = { ...ESTIMATE, sustained_rps: null, burst: null, recovery_s: null, limiter: null };
    const r = toRateLimitResult(unsized, recommend(unsized), null);
    expect(summaryLines(r)[0]).toBe(
      'rate limit on tokens.validate (429): not sized, Retry-After truthful, scope unknown',
    );
    // A Retry-After the probe stopped before waiting out (a silent minute under run: 57 s) is not judged, not unseen.
    const notWaited = toRateLimitResult({ ...unsized, retry_after_header: 'unknown' }, null, null);
    expect(summaryLines(notWaited)[0]).toBe(
      'rate limit on tokens.validate (429): not sized, Retry-After not judged, scope unknown',
    );
    const noBurst = toRateLimitResult({ ...ESTIMATE, burst: null }, null, null);
    expect(summaryLines(noBurst)[0]).toMatch(
      /: sustained 49\.98 req\/s \(±0\.4 %\), burst not measured, recovery 0\.041 s,/,
    );
    expect(summaryLines(noBurst).join('\n')).not.toContain('?');
  });

  it('a policy the proof rounds held, where the probe sized nothing, is given without "no recommendation" beside it', () => {
    // The bench's HAProxy 1 s + 60 s tables: the probe's reading refuted, the sustained rate not
    // identified, 7.8 req/s held over the horizon and recommended.
    const unsized: Estimate = { ...ESTIMATE, sustained_rps: null, limiter: null };
    const held = { ...recommend(ESTIMATE)!, target_rps: 7.8 };
    const r = toRateLimitResult(unsized, held, null);
    expect(r.recommendation?.target_rps).toBe(7.8);
    expect(r.notes?.filter((n) => n.startsWith('no recommendation'))).toEqual([]);
    // No reading, no precision: the probe's 0.004 belongs to no figure here.
    expect(r.sustained_precision).toBeUndefined();
  });

  it('ends with estimate, recommendation and proof on the terminal', () => {
    const held = { rate_429: 0.0012, goodput_rps: 39.9, lost_requests: 0 };
    const r = toRateLimitResult(ESTIMATE, recommend(ESTIMATE), held, [], {
      verdict: 'proven',
      rounds: [proofRound(recommend(ESTIMATE)!, held)],
    });
    expect(summaryLines(r)).toEqual([
      'rate limit on tokens.validate (429): sustained 49.98 req/s (±0.4 %), burst 50, recovery 0.041 s, Retry-After truthful, scope unknown',
      '  limiter: token bucket 50 req/s, burst 50',
      '  probe: 412 requests, 61 limited (14.8 %), 7.9 s',
      'recommend: ≤ 39 req/s, ≤ 1 in flight; on 429 honour Retry-After, else backoff 90–1000 ms full jitter, ≤ 5 retries',
      'proof (k6 at 39 req/s): 0.12 % 429, goodput 39.9 req/s, 0 lost',
    ]);
    // The identified limiter and the chart's reference lines travel in the result data.
    expect(r.limiter).toEqual({ kind: 'bucket', rate_rps: 50, burst: 50 });
    expect(r.limiter_evidence).toHaveLength(1);
    expect(r.reference_lines).toEqual([
      { label: 'limit (token bucket 50 req/s, burst 50)', rps: 49.98 },
      { label: 'recommended rate', rps: 39 },
    ]);
    expect(r.timeline?.[0]?.phase).toBe('drain');
  });
});

describe('resetSeconds', () => {
  it.each([
    [{ 'ratelimit-reset': '5' }, 5],
    [{ 'x-ratelimit-reset': '2' }, 2],
    [{ 'x-ratelimit-reset': String(1_700_000_030) }, 30],
    [{ ratelimit: '"default";r=0;t=7' }, 7],
    [{ ratelimit: 'limit=10, remaining=0, reset=3' }, 3],
    [{ 'ratelimit-policy': '10;w=1' }, undefined],
  ])('%j → %s s', (headers, seconds) => {
    expect(resetSeconds(headers as Record<string, string>, 1_700_000_000_000)).toBe(seconds);
  });

  it('says "not proven" with every round, and recommends nothing, when no round held', () => {
    const first = recommend(ESTIMATE)!;
    const rounds = [
      proofRound(first, { rate_429: 0.39, goodput_rps: 24, lost_requests: 0 }),
      proofRound({ ...first, target_rps: 19 }, { rate_429: 0.2, goodput_rps: 15, lost_requests: 2 }),
    ];
    const r = toRateLimitResult(ESTIMATE, null, { rate_429: 0.2, goodput_rps: 15, lost_requests: 2 }, [], {
      verdict: 'not proven',
      rounds,
    });
    expect(r.recommendation).toBeNull();
    expect(r.proof_verdict).toBe('not proven');
    expect(r.proof_rounds).toHaveLength(2);
    // The limiter the probe read (a bucket at 50/s) was refuted by both rounds: no line names it.
    expect(summaryLines(r).join('\n')).not.toMatch(/token bucket|49\.98/);
    expect(summaryLines(r).slice(-3)).toEqual([
      'recommend: nothing — NOT PROVEN: no policy kept its promise (≤ 1 % 429, no call lost) in 2 k6 proof rounds',
      '  proof round 1: at 39.0/s: 39.00% 429, goodput 24.0/s, 0 lost: fails (39.0 % of requests got 429 (promise: ≤ 1.00 %))',
      '  proof round 2: at 19.0/s: 20.00% 429, goodput 15.0/s, 2 lost: fails (20.0 % of requests got 429 (promise: ≤ 1.00 %); 2 calls lost after their retries (promise: 0))',
    ]);
    expect(r.notes).toContain(
      'no recommendation: not proven, none of the 2 policies tried kept the promise in its k6 proof',
    );
  });
});
