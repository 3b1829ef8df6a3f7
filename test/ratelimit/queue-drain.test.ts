// The interval a queue's answers leave at, read off the probe's first drain before any rate is known
// (probe/queue-wait.ts queueIntervalOfDrain): it paces the confirming drain's wait and the stream's
// first offer, which the recovery's trickle (timing the queue's waits) had set 2.6 times too slow.
// Drains as nginx answered them (limit_req without nodelay, 2026-12-05), and shapes that are no queue.

import { describe, expect, it } from 'vitest';
import { queueIntervalOfDrain } from '../../src/ratelimit/probe/queue-wait.js';
import type { Sample } from '../../src/ratelimit/types.js';

type Row = [sentMs: number, doneMs: number, answer: 'accepted' | 'limited'];
const samplesOf = (rows: Row[], phase: Sample['phase']): Sample[] =>
  rows.map(([sentMs, doneMs, answer]) => ({
    sentMs,
    doneMs,
    status: answer === 'accepted' ? 200 : 429,
    answer,
    phase,
    client: 'primary',
  }));
const drain = (rows: Row[]): Sample[] => samplesOf(rows, 'drain');

/** nginx rate=10r/s burst=5's first drain, as it answered (2026-12-05). */
const NGINX_10_5: Row[] = [
  [0, 99, 'accepted'],
  [5, 198, 'accepted'],
  [10, 299, 'accepted'],
  [16, 399, 'accepted'],
  [21, 501, 'accepted'],
  [25, 29, 'limited'],
];

describe('a queue read off the first drain', () => {
  it('nginx rate=10r/s burst=5: its answers one every 100 ms', () => {
    expect(queueIntervalOfDrain(drain(NGINX_10_5))).toBeCloseTo(100, -1);
  });

  it('nginx rate=20r/s burst=10 delay=4: three at once, then one every 50 ms', () => {
    const rows: Row[] = [
      [0, 1, 'accepted'],
      [5, 6, 'accepted'],
      [10, 11, 'accepted'],
      [15, 45, 'accepted'],
      [20, 95, 'accepted'],
      [26, 145, 'accepted'],
      [30, 195, 'accepted'],
      [35, 247, 'accepted'],
      [41, 294, 'accepted'],
      [45, 345, 'accepted'],
      [51, 53, 'limited'],
    ];
    expect(queueIntervalOfDrain(drain(rows))).toBeCloseTo(50, -1);
  });

  // On the bench the same nginx refused the drain's 4th request, then queued the 6 after it.
  it('a refusal amid the drain: the acceptances after it still left one interval apart', () => {
    const rows: Row[] = [
      [0, 1, 'accepted'],
      [5, 6, 'accepted'],
      [10, 11, 'accepted'],
      [15, 17, 'limited'],
      [20, 45, 'accepted'],
      [26, 95, 'accepted'],
      [30, 145, 'accepted'],
      [35, 195, 'accepted'],
      [41, 247, 'accepted'],
      [45, 294, 'accepted'],
    ];
    expect(queueIntervalOfDrain(drain(rows))).toBeCloseTo(50, -1);
  });
});

describe('no queue', () => {
  it('a bucket: every acceptance answered at once', () => {
    const rows: Row[] = [0, 5, 10, 15, 20, 25].map((t) => [t, t + 1, 'accepted']);
    expect(queueIntervalOfDrain(drain([...rows, [30, 31, 'limited']]))).toBeUndefined();
  });

  it('a bucket across a network: answers a jittered round trip after their requests, no further apart than sent', () => {
    const jitter = [12, -8, 17, -15, 3, 9, -11, 14];
    const rows: Row[] = jitter.map((j, i) => [i * 5, i * 5 + 190 + j, 'accepted']);
    expect(queueIntervalOfDrain(drain([...rows, [40, 228, 'limited']]))).toBeUndefined();
  });

  it('a stall: a group held, then answered together', () => {
    const rows: Row[] = [
      [0, 1, 'accepted'],
      [5, 6, 'accepted'],
      [10, 300, 'accepted'],
      [15, 301, 'accepted'],
      [20, 302, 'accepted'],
      [25, 303, 'accepted'],
      [30, 31, 'limited'],
    ];
    expect(queueIntervalOfDrain(drain(rows))).toBeUndefined();
  });
});

// A bucket of 10 per second in front of a worker that answers one request every 20 ms (a gateway
// before a single process): the drain's acceptances leave 20 ms apart as a queue's would, but the
// recovery's pings, one at a time, are refused for 100 ms after each one let through. Read as a
// queue's pace, the stream began at 75 req/s and the probe's refusals tripled (virtual, 19 → 39 %).
describe('a drain paced by what stands behind the limiter', () => {
  const paced: Row[] = [
    [0, 21, 'accepted'],
    [5, 41, 'accepted'],
    [10, 61, 'accepted'],
    [15, 81, 'accepted'],
    [20, 23, 'limited'],
    [25, 28, 'limited'],
  ];
  it('is a queue by its drain alone', () => {
    expect(queueIntervalOfDrain(drain(paced))).toBeCloseTo(20, -1);
  });

  it('is no queue once a recovery ping is refused an interval after one let through', () => {
    const recovery: Row[] = [
      [92, 103, 'limited'],
      [107, 134, 'accepted'],
      [134, 137, 'limited'],
      [145, 155, 'limited'],
      [167, 173, 'limited'],
      [211, 233, 'accepted'],
    ];
    expect(queueIntervalOfDrain([...drain(paced), ...samplesOf(recovery, 'recover')])).toBeUndefined();
  });

  it("a queue's recovery: every ping let through, one interval each", () => {
    const recovery: Row[] = [
      [510, 609, 'accepted'],
      [1100, 1210, 'accepted'],
      [1210, 1306, 'accepted'],
    ];
    expect(queueIntervalOfDrain([...drain(NGINX_10_5), ...samplesOf(recovery, 'recover')])).toBeCloseTo(100, -1);
  });
});
