// Why proof rounds against HAProxy's every-request recipe failed at 80 % of its rate (bench, 29 Nov:
// http_req_rate(500ms) 40 read right, then k6 at 64 req/s refused from 56 s on, 2,723 arrivals
// dropped): a paced client's count over a period is its rate × the period only while its arrivals
// keep their pace. A stall of the load generator (or of HAProxy) that straddles a period's edge
// moves the arrivals it held up into the next period, on top of that period's own: 0.2 s at
// 64 req/s is 13 more than the 32 a period carries, past the 40. Once refused, every retry counts
// too, so a client whose refused calls keep retrying beside its new ones sends more than 80 req/s
// for as long as it is refused, and never gets out. Held to its concurrency, waits included, it
// sends at most that many calls per wait while refused, and the count drains within a period.
//
// k6's constant-arrival-rate executor on virtual time: arrivals at the rate (a stall delays those
// due in it to its end), a VU per call from its arrival until its last answer, its waits included,
// an arrival with no VU free dropped; each refused call retries with full jitter up to its
// retries, as scenarios/lib/retry.ts does (HAProxy sends no Retry-After).

import { describe, expect, it } from 'vitest';
import { EventHeap } from '../../src/ratelimit/fleet/heap.js';
import { createLimiter, type LimiterModel } from '../../src/ratelimit/limiters/index.js';
import { proofHolds } from '../../src/ratelimit/proof-loop.js';
import { proofInputs } from '../../src/ratelimit/prove.js';
import { roundInputs } from '../helpers/proof-inputs.js';
import { recommend, waitsHoldConcurrency } from '../../src/ratelimit/recommend.js';
import type { Proof, Recommendation } from '../../src/ratelimit/types.js';
import { fullJitterMs } from '../../src/toolkit/backoff.js';
import { seeded } from './seeded.js';

const LATENCY_MS = 5;

/** What upsets the pace: k6 held up for `ms` from `atS` (its arrivals due then go at its end), or `others` requests of the same address at `atS`. */
interface Upset {
  atS: number;
  ms?: number;
  others?: number;
}

/** One proof round of `rec` for `durationS` against `model`, k6's VUs capped at `maxVUs`. */
function k6Round(model: LimiterModel, rec: Recommendation, maxVUs: number, durationS: number, upset: Upset): Proof {
  const limiter = createLimiter(model);
  const random = seeded(7);
  // An arrival (vu null: it still needs one) or a call's retry on its VU.
  const events = new EventHeap<{ at: number; seq: number; vu: number | null; retry: number }>();
  let seq = 0;
  const upsetMs = upset.atS * 1000;
  const stallMs = upset.ms ?? 0;
  for (let i = 0; i < Math.floor(rec.target_rps * durationS); i++) {
    const dueMs = (i * 1000) / rec.target_rps;
    const at = dueMs >= upsetMs && dueMs < upsetMs + stallMs ? upsetMs + stallMs : dueMs;
    events.push({ at, seq: seq++, vu: null, retry: 0 });
  }
  let others = upset.others ?? 0;
  // When each VU started so far is free again.
  const vuFreeAt: number[] = [];
  let sent = 0;
  let refused = 0;
  let ok = 0;
  let lost = 0;
  let dropped = 0;
  for (let e = events.pop(); e !== undefined; e = events.pop()) {
    for (; others > 0 && e.at >= upsetMs; others--) limiter.take(Math.round(upsetMs));
    let vu = e.vu ?? vuFreeAt.findIndex((free) => free <= e.at);
    if (vu < 0 && vuFreeAt.length >= maxVUs) {
      dropped++;
      continue;
    }
    if (vu < 0) vu = vuFreeAt.push(0) - 1;
    sent++;
    const admitted = limiter.take(Math.round(e.at)).ok;
    if (admitted) ok++;
    else refused++;
    if (admitted || e.retry >= rec.backoff.max_retries) {
      if (!admitted) lost++;
      vuFreeAt[vu] = e.at + LATENCY_MS;
      continue;
    }
    vuFreeAt[vu] = Infinity;
    const waitMs = fullJitterMs(rec.backoff.base_ms, rec.backoff.cap_ms, e.retry, random);
    events.push({ at: e.at + LATENCY_MS + waitMs, seq: seq++, vu, retry: e.retry + 1 });
  }
  return {
    rate_429: Math.round((refused / sent) * 1e4) / 1e4,
    goodput_rps: Math.round((ok / durationS) * 100) / 100,
    lost_requests: lost,
    ...(dropped > 0 ? { dropped_arrivals: dropped } : {}),
  };
}

/** What scenarios/rate-limit.ts runs k6 with: CES_MAX_CALLS when given, else up to 3 s of arrivals. */
const scenarioMaxVUs = (inputs: ReturnType<typeof proofInputs>): number =>
  inputs.maxCalls ?? Math.max(inputs.vus, Math.min(300, Math.ceil(inputs.rate * 3)));

const limitedRoundInputs = (rec: Recommendation, limiter: LimiterModel) =>
  roundInputs(rec, { waitsHoldConcurrency: waitsHoldConcurrency(limiter) });

const HAPROXY_EVERY: LimiterModel = {
  kind: 'sliding-window',
  limit: 40,
  period_s: 0.5,
  counts_refused: true,
  counter: 'interpolated',
};

// As the probe reads it: 40 per 0.5 s, a period to recover, answers of ~20 ms.
const policyFor = (limiter: LimiterModel) =>
  recommend({
    sustained_rps: 80,
    burst: 40,
    recovery_s: 0.5,
    refill_s: 0.5,
    retry_after_header: 'absent',
    retry_after_max_s: null,
    latency_p95_ms: 20,
    limiter,
  })!;

// 52 s into the round, across the edge of a period (periods start at the round's first request):
// k6 held up 0.2 s, or another client of the same address sending 12 requests at once.
const STALL: Upset = { atS: 52.35, ms: 200 };
const OTHERS: Upset = { atS: 52.45, others: 12 };

describe("a paced client against HAProxy's every-request counter, 40 per 0.5 s, upset once", () => {
  it.each([
    { upset: 'a 0.2 s stall of k6', at: STALL },
    { upset: '12 requests of another client', at: OTHERS },
  ])('keeps its promise after $upset when its concurrency holds its waits', ({ at }) => {
    const rec = policyFor(HAPROXY_EVERY);
    expect(rec.target_rps).toBe(64);
    const maxVUs = scenarioMaxVUs(limitedRoundInputs(rec, HAPROXY_EVERY));
    const proof = k6Round(HAPROXY_EVERY, rec, maxVUs, 120, at);
    expect(proofHolds(proof), JSON.stringify({ maxVUs, proof })).toMatchObject({ holds: true });
    expect(rec.why.join('\n')).toMatch(/calls at once, waits for a 429 included/);
  });

  it('is let through again within the promise after refusals it met (the count drained)', () => {
    const rec = policyFor(HAPROXY_EVERY);
    const proof = k6Round(HAPROXY_EVERY, rec, scenarioMaxVUs(limitedRoundInputs(rec, HAPROXY_EVERY)), 120, OTHERS);
    expect(proof.rate_429, JSON.stringify(proof)).toBeGreaterThan(0);
    expect(proof.lost_requests).toBe(0);
  });

  it.each([
    { upset: 'a 0.2 s stall of k6', at: STALL },
    { upset: '12 requests of another client', at: OTHERS },
  ])('is held shut for the rest of the round after $upset when its refused calls retry beside new ones', ({ at }) => {
    const rec = policyFor(HAPROXY_EVERY);
    const unbounded = Math.max(rec.max_concurrency, Math.min(300, Math.ceil(rec.target_rps * 3)));
    const proof = k6Round(HAPROXY_EVERY, rec, unbounded, 120, at);
    expect(proof.rate_429, JSON.stringify(proof)).toBeGreaterThan(0.5);
  });

  it('leaves the calls unbounded for a limit counting only what it admits: its retries spend nothing', () => {
    const admitted: LimiterModel = { ...HAPROXY_EVERY, counts_refused: false };
    const rec = policyFor(admitted);
    expect(limitedRoundInputs(rec, admitted).maxCalls).toBeUndefined();
    const proof = k6Round(admitted, rec, scenarioMaxVUs(limitedRoundInputs(rec, admitted)), 120, OTHERS);
    expect(proofHolds(proof), JSON.stringify(proof)).toMatchObject({ holds: true });
  });
});
