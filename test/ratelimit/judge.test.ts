// The judge of models (src/ratelimit/judge.ts): a claim stands only when replaying the whole trace
// through it predicts what the service answered, allowing each request its time in flight. Traces
// are made here by a true limiter on a virtual clock: requests leave at a paced rate, reach the
// limiter after a seeded one-way delay (so they may arrive out of order), and answer after another.

import { describe, expect, it } from 'vitest';
import { createLimiter, type Limits } from '../../src/ratelimit/limiters/index.js';
import { judge, judgeCandidates, replay, traceOf, type TraceRequest } from '../../src/ratelimit/judge.js';
import type { Sample } from '../../src/ratelimit/types.js';
import { seeded } from './seeded.js';

/** When each request leaves: `rps` a second for `seconds`, or clumps of `clump` requests 5 ms apart every `everyMs`. */
type Pacing = { rps: number; seconds: number } | { clump: number; everyMs: number; seconds: number };

const sendTimes = (pacing: Pacing): number[] =>
  'rps' in pacing
    ? Array.from({ length: Math.round(pacing.rps * pacing.seconds) }, (_, i) => (i * 1000) / pacing.rps)
    : Array.from({ length: Math.floor((pacing.seconds * 1000) / pacing.everyMs) }, (_, k) =>
        Array.from({ length: pacing.clump }, (_, i) => k * pacing.everyMs + i * 5),
      ).flat();

/** The requests of `pacing`, each decided by `truth` on arrival, `oneWayMs` ± `jitterMs` each way. */
function traceOfTruth(
  truth: Limits,
  pacing: Pacing,
  { oneWayMs = 5, jitterMs = 4, seed = 1 }: { oneWayMs?: number; jitterMs?: number; seed?: number } = {},
): TraceRequest[] {
  const random = seeded(seed);
  const leg = () => oneWayMs + (random() * 2 - 1) * jitterMs;
  const requests = sendTimes(pacing).map((sentMs) => {
    const arrivedMs = sentMs + leg();
    return { sentMs, arrivedMs, doneMs: arrivedMs + leg() };
  });
  const limiter = createLimiter(truth);
  // The limiter decides in the order requests arrive, not the order they left.
  const admitted = new Map(
    [...requests].sort((a, b) => a.arrivedMs - b.arrivedMs).map((r) => [r, limiter.take(r.arrivedMs).ok] as const),
  );
  return requests.map((r) => ({ sentMs: r.sentMs, doneMs: r.doneMs, admitted: admitted.get(r)! }));
}

const wrongOf = (j: { admittedRefused: number; refusedAdmitted: number }) => j.admittedRefused + j.refusedAdmitted;

describe('the judge of models', () => {
  const bucket: Limits = { kind: 'bucket', rate_rps: 10, burst: 10 };
  const bucketTrace = traceOfTruth(bucket, { rps: 15, seconds: 20 });

  it('a bucket trace: the bucket explains it, a fixed window of the same rate but a longer window mispredicts and is rejected', () => {
    // Clumps of 30 every 2 s, as the probe's drains and trials from idle send them: the bucket lets
    // its burst of 10 through each time, a window of 20 per 2 s would let 20.
    const clumps = traceOfTruth(bucket, { clump: 30, everyMs: 2000, seconds: 20 });
    const truth = judge({ source: 'truth', limits: bucket }, clumps);
    expect(truth.explains).toBe(true);
    // A request refilled mid-clump may reach the limiter before or after its neighbours: a slip or two.
    expect(truth.drift).toBeLessThanOrEqual(2);
    const window = judge(
      {
        source: 'detectors',
        limits: { kind: 'fixed-window', limit: 20, window_s: 2, phase_s: 0, counts_refused: false },
      },
      clumps,
    );
    expect(window.explains).toBe(false);
    expect(window.drift).toBeGreaterThan(window.allowed);
    expect(window.evidence).toMatch(/fixed window 20 per 2 s \(detectors\) mispredicts \d+ of them/);
  });

  it('a bucket measured within 1 % still explains its own trace (the figures are measured, not exact)', () => {
    // Saturated at 1.5 × its rate, a bucket 1 % fast admits now and then a request the service
    // refused and refuses the next one it admitted: slips, each undone, not a count that strays.
    expect(
      judge({ source: 'measured', limits: { kind: 'bucket', rate_rps: 10.1, burst: 10 } }, bucketTrace).explains,
    ).toBe(true);
    expect(
      judge({ source: 'measured', limits: { kind: 'bucket', rate_rps: 9.9, burst: 10 } }, bucketTrace).explains,
    ).toBe(true);
  });

  it('a stacked set explains what one limit cannot: 30/s and 600 per minute, offered 20/s for two minutes', () => {
    const perSecond = { kind: 'bucket', rate_rps: 30, burst: 30 } as const;
    const perMinute = { kind: 'fixed-window', limit: 600, window_s: 60, phase_s: 0, counts_refused: false } as const;
    const trace = traceOfTruth([perSecond, perMinute], { rps: 20, seconds: 120 });
    // The minute's quota ran out after 30 s: a third of the trace refused, which no per-second limit predicts.
    expect(trace.filter((r) => !r.admitted).length).toBeGreaterThan(1000);
    const ranked = judgeCandidates(
      [
        { source: 'the detectors', limits: perSecond },
        { source: 'announced', limits: [perSecond, perMinute] },
      ],
      trace,
    );
    expect(ranked.map((j) => [j.candidate.source, j.explains])).toEqual([
      ['announced', true],
      ['the detectors', false],
    ]);
    expect(ranked[1]!.refusedAdmitted).toBeGreaterThan(1000);
  });

  // The limiter's state when the trace began is unknown, so a service stricter than a fresh model at
  // first is forgiven; a service more generous than a fresh model is not: no state lets more through
  // than the limit at rest. A counter counting refused requests before a bucket of 4 per second was
  // claimed as a fixed window of 3 per 4 s, its drain from idle having let 38 through, and stood.
  it('admitting more from the start than a fresh model allows contradicts it; refusing more (a limit part spent) does not', () => {
    const truth: Limits = { kind: 'bucket', rate_rps: 4, burst: 40 };
    const trace = traceOfTruth(truth, { rps: 20, seconds: 30 });
    expect(judge({ source: 'truth', limits: truth }, trace).explains).toBe(true);
    // The rate right, the burst a tenth: the drain's 40 are 36 more than it lets through at rest.
    const small = judge({ source: 'detectors', limits: { kind: 'bucket', rate_rps: 4, burst: 4 } }, trace);
    expect(small.drift).toBeGreaterThanOrEqual(30);
    expect(small.explains).toBe(false);
    // The same truth with 20 of its burst spent before the trace: a fresh model of it admits more at first.
    const partSpent = traceOfTruth(truth, { rps: 20, seconds: 31 }).slice(20);
    expect(judge({ source: 'truth', limits: truth }, partSpent).explains).toBe(true);
  });

  it('requests in flight that reached the limiter out of order are no contradiction', () => {
    // 50 ± 20 ms each way at 100 req/s against 50: answers come back out of order all the time.
    const truth: Limits = { kind: 'bucket', rate_rps: 50, burst: 20 };
    const trace = traceOfTruth(truth, { rps: 100, seconds: 10 }, { oneWayMs: 50, jitterMs: 20, seed: 7 });
    const replayed = replay(truth, trace);
    expect(replayed.judged).toBe(1000);
    expect(wrongOf(replayed)).toBe(0);
  });

  it('reads the primary client’s answers in the order they were sent, up to the second client’s first request', () => {
    const sample = (sentMs: number, answer: Sample['answer'], client: Sample['client'] = 'primary'): Sample => ({
      sentMs,
      doneMs: sentMs + 3,
      status: answer === 'accepted' ? 200 : answer === 'limited' ? 429 : 0,
      answer,
      phase: 'drain',
      client,
    });
    expect(
      traceOf([
        sample(2, 'limited'),
        sample(1, 'accepted'),
        sample(3, 'error'),
        sample(4, 'accepted', 'second'),
        sample(5, 'accepted'),
      ]),
    ).toEqual([
      { sentMs: 1, doneMs: 4, admitted: true },
      { sentMs: 2, doneMs: 5, admitted: false },
    ]);
  });
});
