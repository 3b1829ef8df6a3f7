// The whole probe (discover) against simulated limiters on a virtual clock: every phase in order,
// answers out of order, no server and no waiting. The figures are exact, because the run is the
// same every time; they were recorded from the probe as one long function, before it was split
// into a Probe and its phases, and the split had to give every one of them back unchanged; then
// again once the probe identified the limiter (fixed windows now read exactly, burst included);
// again once a bucket had to be confirmed by a second drain from idle (more requests and seconds,
// the same limits); again once a fixed window's edges could also open at the client's first request
// (the pings bisect both readings in turn, and one trial from idle tells them apart: the same limits).
// (How close the figures come to the truth on real servers is emulator.test.ts and nginx.test.ts.)

import { describe, expect, it } from 'vitest';
import { discover, unsizedBucketNote, unsizedRateStands, type DiscoverOptions } from '../../src/ratelimit/discover.js';
import { NOT_IDENTIFIED } from '../../src/ratelimit/evidence.js';
import type { Estimate } from '../../src/ratelimit/types.js';
import { discoverVirtual, fixedWindow, gcra, noLimit, virtualWorld, type VirtualEndpoint } from './virtual-limit.js';

type Figures = Omit<
  Estimate,
  'endpoint' | 'latency_p95_ms' | 'latency_alone_p95_ms' | 'timeline' | 'notes' | 'ratelimit_headers' | 'advertised'
>;
type Budget = Pick<DiscoverOptions, 'maxRps' | 'maxRequests' | 'maxDurationS'>;

const ROOMY = { maxRequests: 3_000, maxDurationS: 60 };
const RESET_HEADERS = {
  names: ['ratelimit-limit', 'ratelimit-reset'],
  sample: { 'ratelimit-reset': '1', 'ratelimit-limit': '1' },
  reset: 'truthful',
};

const cases: Array<{
  name: string;
  endpoint: VirtualEndpoint;
  budget: Budget;
  figures: Figures;
  headers?: unknown;
  notes: RegExp[];
}> = [
  {
    name: 'a token bucket of 20 req/s, burst 5, with a truthful Retry-After',
    endpoint: { limiter: () => gcra(20, 5), status: 429, announces: 'retry-after' },
    budget: { maxRps: 100, ...ROOMY },
    figures: {
      limiting_status: 429,
      sustained_rps: 19.98,
      sustained_precision: 0.0052,
      burst: 5,
      burst_from_idle: true,
      burst_passed: 6,
      recovery_s: 0.049,
      refill_s: 0.25,
      retry_after_header: 'truthful',
      scope: 'unknown',
      retry_after_max_s: 1,
      requests_sent: 257,
      requests_limited: 27,
      duration_s: 12.85,
      limiter: { kind: 'bucket', rate_rps: 19.98, burst: 5 },
      limiter_evidence: [
        'after the first refusal a request passed again within 20 ms, then one every 51 ms: a bucket refilling at a steady rate; the same again from idle (6 passed, one back within 50 ms)',
      ],
      partial: false,
    },
    notes: [
      /^identified: token bucket 19\.98 req\/s, burst 5/,
      /^burst: 6 requests passed back-to-back at 100 req/,
      /^scope not measured: configure rate_limit\.second_/,
    ],
  },
  {
    name: '50 req/s, burst 20, refusing with 503 and a RateLimit reset instead of Retry-After',
    endpoint: { limiter: () => gcra(50, 20), status: 503, announces: 'reset' },
    budget: { maxRps: 200, ...ROOMY },
    figures: {
      limiting_status: 503,
      sustained_rps: 50,
      sustained_precision: 0.0035,
      burst: 20,
      burst_from_idle: true,
      burst_passed: 26,
      recovery_s: 0.02,
      refill_s: 0.4,
      retry_after_header: 'absent',
      scope: 'unknown',
      retry_after_max_s: null,
      requests_sent: 411,
      requests_limited: 26,
      duration_s: 10.14,
      limiter: { kind: 'bucket', rate_rps: 50, burst: 20 },
      limiter_evidence: [
        'after the first refusal a request passed again within 25 ms, then one every 26 ms: a bucket refilling at a steady rate; the same again from idle (26 passed, one back within 10 ms)',
      ],
      partial: false,
    },
    headers: RESET_HEADERS,
    notes: [
      /^non-conformant: §7 wants 429 for a rate limit; t/,
      /^identified: token bucket 50 req\/s, burst 20/,
      /^burst: 26 requests passed back-to-back at 200 re/,
      /^no Retry-After, but RateLimit headers \(ratelimit/,
      /^scope not measured: configure rate_limit\.second_/,
      // Its reset comes on refusals alone: when to retry, not where a window turns (probe/reset-ticks.ts).
      /^announced resets not used: .*; and the reset is not announced on every answer$/,
    ],
  },
  {
    name: 'a limit shared with the second client',
    endpoint: { limiter: () => gcra(10, 5), status: 429, announces: 'retry-after', second: 'shared' },
    budget: { maxRps: 50, ...ROOMY },
    figures: {
      limiting_status: 429,
      sustained_rps: 9.99,
      sustained_precision: 0.0115,
      burst: 5,
      burst_from_idle: true,
      burst_passed: 6,
      recovery_s: 0.097,
      refill_s: 0.5,
      retry_after_header: 'truthful',
      scope: 'shared',
      retry_after_max_s: 1,
      requests_sent: 158,
      requests_limited: 22,
      duration_s: 15.09,
      limiter: { kind: 'bucket', rate_rps: 9.99, burst: 5 },
      limiter_evidence: [
        'after the first refusal a request passed again within 40 ms, then one every 123 ms: a bucket refilling at a steady rate; the same again from idle (6 passed, one back within 100 ms)',
      ],
      partial: false,
    },
    notes: [
      /^identified: token bucket 9\.99 req\/s, burst 5/,
      /^burst: 6 requests passed back-to-back at 50 req\//,
      /^scope shared: right after the configured client /,
    ],
  },
  {
    name: 'a limit of its own for the second client',
    endpoint: { limiter: () => gcra(25, 25), status: 429, announces: 'retry-after', second: 'own' },
    budget: { maxRps: 200, ...ROOMY },
    figures: {
      limiting_status: 429,
      sustained_rps: 24.99,
      sustained_precision: 0.0039,
      burst: 25,
      burst_from_idle: true,
      burst_passed: 28,
      recovery_s: 0.039,
      refill_s: 1,
      retry_after_header: 'truthful',
      scope: 'per-client',
      retry_after_max_s: 1,
      requests_sent: 404,
      requests_limited: 33,
      duration_s: 17.51,
      limiter: { kind: 'bucket', rate_rps: 24.99, burst: 25 },
      limiter_evidence: [
        'after the first refusal a request passed again within 48 ms, then one every 47 ms: a bucket refilling at a steady rate; the same again from idle (28 passed, one back within 25 ms)',
      ],
      partial: false,
    },
    notes: [
      /^identified: token bucket 24\.99 req\/s, burst 25/,
      /^burst: 28 requests passed back-to-back at 200 re/,
      /^scope per-client: right after the configured cli/,
    ],
  },
  {
    name: 'a fixed window of 10 a second: identified, its edges on Unix time, no refill subtracted from the burst',
    endpoint: { limiter: () => fixedWindow(10), status: 429, announces: 'retry-after' },
    budget: { maxRps: 100, ...ROOMY },
    figures: {
      limiting_status: 429,
      sustained_rps: 10,
      // As far as the edges' lattice reaches from the round window read (window-edges.ts statedWindowPrecision).
      sustained_precision: 0.0161,
      burst: 10,
      burst_from_idle: true,
      recovery_s: 1,
      refill_s: 1,
      retry_after_header: 'truthful',
      scope: 'unknown',
      retry_after_max_s: 1,
      requests_sent: 152,
      requests_limited: 28,
      duration_s: 14.57,
      limiter: { kind: 'fixed-window', limit: 10, window_s: 1, phase_s: 0.001, counts_refused: false },
      limiter_evidence: [
        "after the first refusal, nothing passed for 987 ms, then 10 requests passed back to back: the limit came back whole, as a window's does",
        '9 window edges 1.003 s apart (±0.8 %: 1.000 s), 10 requests let through after each: a fixed window, edges at 0.001 s past every multiple of 1.000 s of Unix time',
        "a window filled from idle was let in again just past the clock's next edge, well before a window after its first request: the edges stay put whatever the client does",
        'refused requests cannot matter to a fixed window (its count starts afresh at each edge): reported as not counting',
        'a clump from idle let 10 requests through between two edges, no more than the 10 that come back at each: a window, not a bucket refilled by a timer that saves its batches',
      ],
      partial: false,
    },
    notes: [/^identified: fixed window 10 per 1 s/, /^scope not measured: configure rate_limit\.second_/],
  },
  {
    name: 'a fixed window of 40 a second, with a RateLimit reset instead of Retry-After',
    endpoint: { limiter: () => fixedWindow(40), status: 429, announces: 'reset' },
    budget: { maxRps: 150, ...ROOMY },
    figures: {
      limiting_status: 429,
      sustained_rps: 40,
      sustained_precision: 0.0178,
      burst: 40,
      burst_from_idle: true,
      recovery_s: 1,
      refill_s: 1,
      retry_after_header: 'absent',
      scope: 'unknown',
      retry_after_max_s: null,
      requests_sent: 430,
      requests_limited: 26,
      duration_s: 12.65,
      // Edges 2 ms early (9 ms late before the edge walk kept short of the edge after next), on Unix time.
      limiter: { kind: 'fixed-window', limit: 40, window_s: 1, phase_s: 0.998, counts_refused: false },
      limiter_evidence: [
        "after the first refusal, nothing passed for 1.00 s, then 40 requests passed back to back: the limit came back whole, as a window's does",
        '7 window edges 0.993 s apart (±0.9 %: 1.000 s), 40 requests let through after each: a fixed window, edges at 0.998 s past every multiple of 1.000 s of Unix time',
        "a window filled from idle was let in again just past the clock's next edge, well before a window after its first request: the edges stay put whatever the client does",
        'refused requests cannot matter to a fixed window (its count starts afresh at each edge): reported as not counting',
        'a clump from idle let 40 requests through between two edges, no more than the 40 that come back at each: a window, not a bucket refilled by a timer that saves its batches',
      ],
      partial: false,
    },
    headers: RESET_HEADERS,
    notes: [
      /^identified: fixed window 40 per 1 s/,
      /^no Retry-After, but RateLimit headers \(ratelimit/,
      /^scope not measured: configure rate_limit\.second_/,
    ],
  },
  {
    name: 'no limit at all',
    endpoint: { limiter: noLimit, status: 429 },
    budget: { maxRps: 100, maxRequests: 500, maxDurationS: 60 },
    figures: {
      limiting_status: null,
      sustained_rps: null,
      sustained_precision: null,
      burst: null,
      burst_from_idle: false,
      recovery_s: null,
      refill_s: null,
      retry_after_header: 'unknown',
      scope: 'unknown',
      retry_after_max_s: null,
      requests_sent: 302,
      requests_limited: 0,
      duration_s: 3,
      limiter: null,
      limiter_evidence: [],
      partial: false,
      // How far it looked: the rate its requests went out at, and over how long.
      no_limit_up_to: { rps: 100, over_s: 3, max_rps: 100, tested: true },
    },
    notes: [
      /^no limit observed: 300 of 300 requests passed, reaching the service at 100 req\/s over 3 s, without a single refusal/,
    ],
  },
  {
    name: 'a request budget that runs out in the idle burst',
    endpoint: { limiter: () => gcra(20, 5), status: 429, announces: 'retry-after' },
    budget: { maxRps: 100, maxRequests: 80, maxDurationS: 60 },
    figures: {
      limiting_status: 429,
      sustained_rps: 19.89,
      sustained_precision: 0.0219,
      // The drain's 3 (of 5: the set-up requests took two) is no burst: no round waited for a refill.
      burst: null,
      burst_from_idle: false,
      recovery_s: 0.047,
      refill_s: null,
      retry_after_header: 'unknown',
      scope: 'unknown',
      retry_after_max_s: 1,
      requests_sent: 80,
      requests_limited: 20,
      duration_s: 3.01,
      limiter: null,
      limiter_evidence: [
        'after the first refusal a request passed again within 20 ms, then one every 51 ms: a bucket refilling at a steady rate; the same again from idle (6 passed, one back within 50 ms)',
      ],
      partial: true,
      // Stopped by its request budget alone: a search may still run on a bracket (src/stages/rate-limit.ts partialGuess).
      out_of_budget: 'requests',
    },
    notes: [
      /^the sustained rate rests on 44 accepted requests o/,
      /^burst not measured: no round waited for the limit to refill, and the first drain \(3 passed/,
      /^scope not measured: configure rate_limit\.second_/,
      // Where the budget went, so a probe that spent it says what it was doing.
      /^probe defect: it spent all of rate_limit\.max_requests \(80 requests\) without pinning the limiter down \((window|pilot|drain|recover|idle-burst|retry-after|scope) \d+(, [a-z-]+ \d+)*\)/,
    ],
  },
  {
    name: 'a slow limit that outlasts the time cap',
    endpoint: { limiter: () => gcra(2, 3), status: 429, announces: 'retry-after' },
    budget: { maxRps: 100, maxRequests: 3_000, maxDurationS: 8 },
    figures: {
      limiting_status: 429,
      sustained_rps: 1.93,
      sustained_precision: 0.0499,
      // The drain's 1 (of 3) is no burst: no round waited for a refill within the 8 s.
      burst: null,
      burst_from_idle: false,
      recovery_s: 0.26,
      refill_s: null,
      retry_after_header: 'unknown',
      scope: 'unknown',
      retry_after_max_s: 1,
      requests_sent: 40,
      requests_limited: 22,
      duration_s: 8,
      limiter: null,
      limiter_evidence: [
        'after the first refusal a request passed again within 645 ms, then one every 539 ms: a bucket refilling at a steady rate (not confirmed by a second drain from idle: no time for it)',
      ],
      partial: true,
      // Stopped by its time cap alone: a search may still run on it (src/stages/rate-limit.ts partialGuess).
      out_of_budget: 'time',
    },
    notes: [
      /^the sustained rate rests on 11 accepted requests/,
      /^burst not measured: no round waited for the limit to refill, and the first drain \(1 passed/,
      /^scope not measured: configure rate_limit\.second_/,
      /^stopped at the probe's time cap \(8 s\): the estim/,
    ],
  },
];

describe('discover on a virtual clock', () => {
  it.each(cases)('$name', async ({ endpoint, budget, figures, headers, notes }) => {
    const world = virtualWorld(endpoint);
    const progress: string[] = [];
    try {
      const estimate = await discover({
        calls: world.calls,
        clock: world.clock,
        ...budget,
        progress: (line) => progress.push(line),
      });
      const {
        endpoint: _,
        latency_p95_ms,
        latency_alone_p95_ms,
        timeline,
        notes: said,
        ratelimit_headers,
        advertised,
        ...rest
      } = estimate;
      expect(rest).toEqual(figures);
      expect(ratelimit_headers).toEqual(headers);
      // The made-up RateLimit-Limit of 1 the 'reset' endpoints send is an announcement the measurement contradicts.
      expect(advertised?.agrees ?? null).toBe(headers === undefined ? null : false);
      expect(said).toHaveLength(notes.length);
      notes.forEach((note, i) => expect(said[i]).toMatch(note));
      expect(progress[0]).toBe(
        `probing the rate limit on tokens.validate at up to ${budget.maxRps} req/s (at most ${budget.maxRequests} requests, ${budget.maxDurationS} s)`,
      );
    } finally {
      world.stop();
    }
  });
});

// A slow bucket's stream cut short by the time cap reads its rate off a few acceptances: the rate
// is given with its precision, no bucket is claimed from it (discover.ts, BUCKET_PRECISION; at 8 s,
// ±5 %, the case above, it is). Within ±10 % the rate stands for the recommendation and its proof
// (RATE_PRECISION: a conformant bucket behind a slow network read ±5.8 % failed the run as "not
// identified"); past it, as off 5 acceptances, the reading is not reported and the probe brackets
// the rate for the stage's k6 search (rate-bracket.ts).
describe('a bucket whose rate is known to worse than ±5 %', () => {
  it('gcra 2/s burst 3 in a 6 s cap (±8.3 %): its rate stands, no bucket claimed, and why', async () => {
    const e = await discoverVirtual(
      { limiter: () => gcra(2, 3), status: 429, announces: 'retry-after' },
      { maxRps: 100, maxRequests: 3_000, maxDurationS: 6 },
    );
    expect(e.sustained_precision).toBeGreaterThan(0.05);
    expect(e.sustained_precision).toBeLessThanOrEqual(0.1);
    expect(e.sustained_rps).not.toBeNull();
    expect(e.limiter).toBeNull();
    expect(e.notes).toContainEqual(
      expect.stringMatching(
        /^no limiter claimed: a bucket's trickle, but its rate is known to ±[\d.]+ % only, over [\d.]+ s \(a bucket is claimed within ±5 %\); the rate stands within ±10 %, and the proof checks it$/,
      ),
    );
    expect(e.notes.some((n) => n.startsWith('not identified'))).toBe(false);
  });

  it('gcra 2/s burst 3 in a 5 s cap (±25 %): not identified, its reading not reported, the rate bracketed for the search', async () => {
    const e = await discoverVirtual(
      { limiter: () => gcra(2, 3), status: 429, announces: 'retry-after' },
      { maxRps: 100, maxRequests: 3_000, maxDurationS: 5 },
    );
    expect(e.sustained_rps).toBeNull();
    expect(e.sustained_precision).toBeNull();
    expect(e.refill_s).toBeNull();
    expect(e.limiter).toBeNull();
    expect(e.notes).toContainEqual(
      expect.stringMatching(
        /^not identified: a bucket's trickle, but its rate is known to ±([\d.]+) % only, over [\d.]+ s \(a rate stands within ±10 % over 2 s or more\): its [\d.]+ req\/s is not reported$/,
      ),
    );
    const loose = e.notes.map((n) => /known to ±([\d.]+) %/.exec(n)).find(Boolean)!;
    expect(Number(loose[1])).toBeGreaterThan(10);
    // The drain was refused at a pace no sustained rate reaches: the search starts below it.
    expect(e.rate_bracket).toBeDefined();
    expect(e.rate_bracket!.high).toBeGreaterThan(2);
    expect(e.rate_bracket!.low).toBeLessThan(e.rate_bracket!.high);
  });
});

// CI land29: a bucket of 50/s across 50 ± 10 ms read 44.37 req/s "to ±6 %" off 305 acceptances over
// 0.3 s, 11 % low; the rate stood, headed the report and no search ran. A rate stands without a kind
// only on a span as long as the stream's shortest window; shorter, it is not identified, and the
// stage's k6 search sizes it.
describe("a bucket trickle read to within ±10 % over less than the stream's shortest window", () => {
  it.each([
    [0.06, 0.3, false],
    [0.06, 1.9, false],
    [0.06, 2, true],
    [0.083, 5, true],
    [0.12, 5, false],
  ])('±%f over %f s: the rate stands %s', (precision, spanS, stands) => {
    expect(unsizedRateStands({ precision, spanS })).toBe(stands);
    const note = unsizedBucketNote({ precision, spanS, rps: 44.37 });
    expect(note.startsWith(NOT_IDENTIFIED)).toBe(!stands);
    expect(note.startsWith('no limiter claimed: ')).toBe(stands);
    expect(note.includes('44.37 req/s is not reported')).toBe(!stands);
  });
});
