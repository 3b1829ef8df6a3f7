// What passed between refusals, read as a bucket's ledger (probe/bucket-ledger.ts), on request
// traces made by the limiter models themselves: a bucket's own trace never rules a bucket out; a
// sliding-window counter whose drain straddled an edge (it trickles back what it drained before
// the edge, then faster after its next one) does, at the rate a stream reads off its trickle.

import { describe, expect, it } from 'vitest';
import { createLimiter, type LimiterModel } from '../../src/ratelimit/limiters/index.js';
import { ledgerRulesOutBucket, refillUnwatched } from '../../src/ratelimit/probe/bucket-ledger.js';
import type { Sample } from '../../src/ratelimit/types.js';
import { slidingCounter } from './support.js';
import { answered } from '../helpers/answered.js';

/** 50 ms each way, the same for every request: the limiter decides at send + 50. */
const ONE_WAY_MS = 50;

/** Requests at `rps` from `fromMs` to `toMs` in each phase, answered by `model` as it decides them. */
function trace(
  model: LimiterModel,
  runs: Array<{ phase: 'drain' | 'window'; fromMs: number; toMs: number; rps: number }>,
) {
  const limiter = createLimiter(model);
  const samples: Sample[] = [];
  for (const { phase, fromMs, toMs, rps } of runs)
    for (let t = fromMs; t < toMs; t += 1000 / rps) {
      samples.push(answered(t, t + 2 * ONE_WAY_MS, limiter.take(t + ONE_WAY_MS).ok, phase));
    }
  return samples;
}

/** A drain at 200 req/s for 2 s, then a stream at `rps` until `untilMs`. */
const drainThenStream = (model: LimiterModel, rps: number, untilMs: number) =>
  trace(model, [
    { phase: 'drain', fromMs: 0, toMs: 2000, rps: 200 },
    { phase: 'window', fromMs: 2100, toMs: untilMs, rps },
  ]);

const counter = (phase_s: number): LimiterModel => slidingCounter(300, 10, phase_s);

describe('a bucket ledger over the probe (probe/bucket-ledger.ts)', () => {
  it.each([
    {
      name: 'a bucket 30/s, burst 300, read at its rate',
      model: { kind: 'bucket', rate_rps: 30, burst: 300 },
      rps: 37.5,
      read: 30,
    },
    {
      name: 'a bucket 30/s, burst 300, read 1 % slow',
      model: { kind: 'bucket', rate_rps: 30, burst: 300 },
      rps: 37.5,
      read: 29.7,
    },
    { name: 'a bucket 50/s, burst 10', model: { kind: 'bucket', rate_rps: 50, burst: 10 }, rps: 62.5, read: 50 },
    { name: 'a bucket 5/s, burst 100', model: { kind: 'bucket', rate_rps: 5, burst: 100 }, rps: 6.25, read: 5 },
  ] as const)('$name: its own trace squares', ({ model, rps, read }) => {
    const samples = drainThenStream(model, rps, 25_000);
    expect(samples.some((s) => s.phase === 'window' && s.answer === 'limited')).toBe(true);
    expect(ledgerRulesOutBucket(samples, read, 0.01)).toBeUndefined();
  });

  // Between a refusal before the rest and one in the drain after it, a bucket admits its burst,
  // far less than its refill over the rest: it filled up, which the drain's figures allow.
  it('a bucket 50/s, burst 10, drained again after 4 s of rest: its own trace squares', () => {
    const samples = trace({ kind: 'bucket', rate_rps: 50, burst: 10 }, [
      { phase: 'drain', fromMs: 0, toMs: 2000, rps: 200 },
      { phase: 'window', fromMs: 2100, toMs: 6000, rps: 62.5 },
      { phase: 'window', fromMs: 10_000, toMs: 10_500, rps: 200 },
    ]);
    expect(ledgerRulesOutBucket(samples, 50, 0.01)).toBeUndefined();
  });

  it('a bucket 30/s read 3 % slow: that reading is refuted (more passed from a refusal on)', () => {
    const samples = drainThenStream({ kind: 'bucket', rate_rps: 30, burst: 300 }, 37.5, 25_000);
    expect(ledgerRulesOutBucket(samples, 29.1, 0.01)).toMatch(/more than a bucket at the 29.1 req\/s/);
  });

  // Its edge 1 s into the drain: about 190 drained before it, freed one every 53 ms until 11 s,
  // then 300 over the next window; a stream a quarter over the trickle's rate.
  it.each([
    { name: 'at the trickle read before the next edge', read: 18.9 },
    { name: 'at a rate between the trickle and the true rate', read: 24.4 },
  ])('a silent counter 300 per 10 s, its drain astride an edge, read $name: not a bucket', ({ read }) => {
    const samples = drainThenStream(counter(1), 1.25 * read, 25_000);
    expect(ledgerRulesOutBucket(samples, read, 0.01)).toMatch(/not a bucket|more than a bucket/);
  });

  // Read at its true rate, nothing passed faster than a bucket that fast refills; but between its
  // refusals before the next edge far fewer passed than such a bucket refills, too few for it to
  // have filled up: no rate squares both.
  it('a silent counter 300 per 10 s, its drain astride an edge, read at its true rate: no rate squares its refusals', () => {
    const samples = drainThenStream(counter(1), 37.5, 25_000);
    expect(ledgerRulesOutBucket(samples, 30, 0.01)).toMatch(/^no bucket squares the refusals/);
  });

  it.each([
    { name: 'a refill longer than the probe watched it', rate: 6.27, burst: 295, untilMs: 11_000, rules: true },
    { name: 'a refill the probe watched', rate: 30, burst: 300, untilMs: 25_000, rules: false },
    { name: 'a small burst', rate: 50, burst: 10, untilMs: 5_000, rules: false },
  ])('a burst not measured from idle, $name', ({ rate, burst, untilMs, rules }) => {
    const samples = drainThenStream({ kind: 'bucket', rate_rps: rate, burst }, 1.25 * rate, untilMs);
    const why = refillUnwatched(samples, rate, burst);
    if (rules) expect(why).toMatch(/longer than the \d+(\.\d)? s the probe watched it/);
    else expect(why).toBeUndefined();
  });
});
