// The whole probe (discover) against simulated limiters on a virtual clock: every phase in order,
// answers out of order, no server and no waiting. The figures are exact, because the run is the
// same every time; they were recorded from the probe as one long function, before it was split
// into a Probe and its phases, and the split had to give every one of them back unchanged.
// (How close the figures come to the truth on real servers is emulator.test.ts and nginx.test.ts.)

import { describe, expect, it } from 'vitest';
import { discover, type DiscoverOptions } from '../../src/ratelimit/discover.js';
import type { Estimate } from '../../src/ratelimit/types.js';
import { fixedWindow, gcra, noLimit, virtualWorld, type VirtualEndpoint } from './virtual-limit.js';

type Figures = Omit<Estimate, 'endpoint' | 'latency_p95_ms' | 'timeline' | 'notes' | 'ratelimit_headers'>;
type Budget = Pick<DiscoverOptions, 'maxRps' | 'maxRequests' | 'maxDurationS'>;

const ROOMY = { maxRequests: 3_000, maxDurationS: 60 };
const RESET_HEADERS = { names: ['ratelimit-limit', 'ratelimit-reset'], sample: { 'ratelimit-reset': '1', 'ratelimit-limit': '1' }, reset: 'truthful' };

const cases: Array<{ name: string; endpoint: VirtualEndpoint; budget: Budget; figures: Figures; headers?: unknown; notes: RegExp[] }> = [
  {
    name: 'a token bucket of 20 req/s, burst 5, with a truthful Retry-After',
    endpoint: { limiter: () => gcra(20, 5), status: 429, announces: 'retry-after' },
    budget: { maxRps: 100, ...ROOMY },
    figures: { limiting_status: 429, sustained_rps: 20, sustained_precision: 0, burst: 5, burst_from_idle: true, recovery_s: 0.05, refill_s: 0.25, retry_after_header: 'truthful', scope: 'unknown', retry_after_max_s: 1, requests_sent: 113, requests_limited: 34, duration_s: 4.88, partial: false },
    notes: [/^burst: 6 requests passed back-to-back at 100 req\/s from idle; 5 after/, /^scope not measured: configure rate_limit.second_client/],
  },
  {
    name: '50 req/s, burst 20, refusing with 503 and a RateLimit reset instead of Retry-After',
    endpoint: { limiter: () => gcra(50, 20), status: 503, announces: 'reset' },
    budget: { maxRps: 200, ...ROOMY },
    figures: { limiting_status: 503, sustained_rps: 50, sustained_precision: 0, burst: 20, burst_from_idle: true, recovery_s: 0.021, refill_s: 0.4, retry_after_header: 'absent', scope: 'unknown', retry_after_max_s: null, requests_sent: 199, requests_limited: 39, duration_s: 4.18, partial: false },
    headers: RESET_HEADERS,
    notes: [/^non-conformant: §7 wants 429 for a rate limit; the limit answered 503 \(39 times\)$/, /^burst: /, /^no Retry-After, but RateLimit headers .* announce a reset in 1 s: after waiting that, the retry passed$/, /^scope not measured/],
  },
  {
    name: 'a limit shared with the second client',
    endpoint: { limiter: () => gcra(10, 5), status: 429, announces: 'retry-after', second: 'shared' },
    budget: { maxRps: 50, ...ROOMY },
    figures: { limiting_status: 429, sustained_rps: 10, sustained_precision: 0, burst: 5, burst_from_idle: true, recovery_s: 0.08, refill_s: 0.5, retry_after_header: 'truthful', scope: 'shared', retry_after_max_s: 1, requests_sent: 119, requests_limited: 35, duration_s: 8.87, partial: false },
    notes: [/^burst: /, /^scope shared: right after the configured client was limited, the second client's request 2 was refused$/],
  },
  {
    name: 'a limit of its own for the second client',
    endpoint: { limiter: () => gcra(25, 25), status: 429, announces: 'retry-after', second: 'own' },
    budget: { maxRps: 200, ...ROOMY },
    figures: { limiting_status: 429, sustained_rps: 25, sustained_precision: 0, burst: 25, burst_from_idle: true, recovery_s: 0.037, refill_s: 1, retry_after_header: 'truthful', scope: 'per-client', retry_after_max_s: 1, requests_sent: 198, requests_limited: 45, duration_s: 6.05, partial: false },
    notes: [/^burst: /, /^scope per-client: .* 3 requests passed/],
  },
  {
    name: 'a fixed window of 10 a second (the pilot slows down on long runs of refusals)',
    endpoint: { limiter: () => fixedWindow(10), status: 429, announces: 'retry-after' },
    budget: { maxRps: 100, ...ROOMY },
    figures: { limiting_status: 429, sustained_rps: 10.03, sustained_precision: 0.0067, burst: 9, burst_from_idle: true, recovery_s: 0.94, refill_s: 0.9, retry_after_header: 'truthful', scope: 'unknown', retry_after_max_s: 1, requests_sent: 176, requests_limited: 53, duration_s: 13.79, partial: false },
    notes: [/^burst: /, /^scope not measured/],
  },
  {
    name: 'a fixed window of 40 a second (the window is raised and started again)',
    endpoint: { limiter: () => fixedWindow(40), status: 429, announces: 'reset' },
    budget: { maxRps: 150, ...ROOMY },
    figures: { limiting_status: 429, sustained_rps: 40.44, sustained_precision: 0.0123, burst: 29, burst_from_idle: true, recovery_s: 0.733, refill_s: 0.72, retry_after_header: 'absent', scope: 'unknown', retry_after_max_s: null, requests_sent: 697, requests_limited: 145, duration_s: 19.79, partial: false },
    headers: RESET_HEADERS,
    notes: [/^burst: /, /^no Retry-After, but RateLimit headers/, /^scope not measured/],
  },
  {
    name: 'no limit at all',
    endpoint: { limiter: noLimit, status: 429 },
    budget: { maxRps: 100, maxRequests: 500, maxDurationS: 60 },
    figures: { limiting_status: null, sustained_rps: null, sustained_precision: null, burst: null, burst_from_idle: false, recovery_s: null, refill_s: null, retry_after_header: 'unknown', scope: 'unknown', retry_after_max_s: null, requests_sent: 302, requests_limited: 0, duration_s: 3, partial: false },
    notes: [/^no limit observed: 300 of 300 requests at up to 100 req\/s passed over 3 s, without a single refusal/],
  },
  {
    name: 'a request budget that runs out in the idle burst',
    endpoint: { limiter: () => gcra(20, 5), status: 429, announces: 'retry-after' },
    budget: { maxRps: 100, maxRequests: 80, maxDurationS: 60 },
    figures: { limiting_status: 429, sustained_rps: 19.7, sustained_precision: 0.011, burst: 5, burst_from_idle: false, recovery_s: 0.05, refill_s: 0.25, retry_after_header: 'unknown', scope: 'unknown', retry_after_max_s: 1, requests_sent: 80, requests_limited: 28, duration_s: 2.27, partial: true },
    notes: [/^burst: /, /^scope not measured/, /^stopped at rate_limit.max_requests \(80 requests\)/],
  },
  {
    name: 'a slow limit that outlasts the time cap',
    endpoint: { limiter: () => gcra(2, 3), status: 429, announces: 'retry-after' },
    budget: { maxRps: 100, maxRequests: 3_000, maxDurationS: 8 },
    figures: { limiting_status: 429, sustained_rps: 1.97, sustained_precision: 0.0714, burst: 3, burst_from_idle: false, recovery_s: 0.685, refill_s: 1.52, retry_after_header: 'unknown', scope: 'unknown', retry_after_max_s: 1, requests_sent: 70, requests_limited: 50, duration_s: 8.31, partial: true },
    notes: [/^the sustained rate rests on 15 accepted requests over 7.1 s/, /^burst: 3 requests passed back-to-back at 100 req\/s; 3 after/, /^scope not measured/, /^stopped at the probe's time cap \(8 s\)/],
  },
];

describe('discover on a virtual clock', () => {
  it.each(cases)('$name', async ({ endpoint, budget, figures, headers, notes }) => {
    const world = virtualWorld(endpoint);
    const progress: string[] = [];
    try {
      const estimate = await discover({ calls: world.calls, clock: world.clock, ...budget, progress: (line) => progress.push(line) });
      const { endpoint: _, latency_p95_ms, timeline, notes: said, ratelimit_headers, ...rest } = estimate;
      expect(rest).toEqual(figures);
      expect(ratelimit_headers).toEqual(headers);
      expect(said).toHaveLength(notes.length);
      notes.forEach((note, i) => expect(said[i]).toMatch(note));
      expect(progress[0]).toBe(`probing the rate limit on tokens.validate at up to ${budget.maxRps} req/s (at most ${budget.maxRequests} requests, ${budget.maxDurationS} s)`);
    } finally {
      world.stop();
    }
  });
});
