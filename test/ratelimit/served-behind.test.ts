// A limit faster than the service behind it (probe/served-behind.ts), on hand-made streams: what
// the limit admitted comes back at the service's pace, later and later; a queueing limiter's line
// comes back at its own rate; a busy probe's late answers come back in a clump.

import { describe, expect, it } from 'vitest';
import { servedBehindOf } from '../../src/ratelimit/probe/served-behind.js';
import type { Sample } from '../../src/ratelimit/types.js';
import { answered } from '../helpers/answered.js';

/** A lone request answered in `ms`, before the stream: the service's own latency. */
const alone = (ms: number): Sample => answered(-10_000, -10_000 + ms, true, 'drain');

/**
 * A stream offered `offerRps` for `seconds` to a limiter admitting `admitRps` (every other request
 * refused at once, in 1 ms), its admitted requests answered one `serveMs` apart in the order they
 * came, each taking `ownMs` at least.
 */
function stream(offerRps: number, admitRps: number, serveMs: number, seconds: number, ownMs = 5): Sample[] {
  const out: Sample[] = [];
  let admitted = 0;
  let freeAtMs = 0;
  for (let i = 0; i < offerRps * seconds; i++) {
    const t = (i * 1000) / offerRps;
    if (admitted < (t / 1000) * admitRps + 1) {
      admitted++;
      freeAtMs = Math.max(freeAtMs, t + ownMs - serveMs) + serveMs;
      out.push(answered(t, freeAtMs, true, 'window'));
    } else out.push(answered(t, t + 1, false, 'window'));
  }
  return out;
}

describe('servedBehindOf', () => {
  it('reads the pace of a service slower than the limit in front of it', () => {
    // A bucket admitting 50/s before a service taking one every 30 ms (33.3/s), offered 62.5/s for 10 s.
    const found = servedBehindOf([alone(5), ...stream(62.5, 50, 30, 10)], 50);
    expect(found).toBeDefined();
    expect(found!.servedRps).toBeCloseTo(1000 / 30, 0);
    expect(found!.toMs).toBeGreaterThan(found!.fromMs + 1000);
  });

  it('says nothing of a service that keeps up with its limit', () => {
    expect(servedBehindOf([alone(5), ...stream(62.5, 50, 5, 10)], 50)).toBeUndefined();
  });

  it("says nothing of a queueing limiter: its line is answered at the limit's own rate", () => {
    // nginx without nodelay at 50 r/s: what it admits waits its turn, one every 20 ms.
    expect(servedBehindOf([alone(5), ...stream(62.5, 50, 20, 10)], 50)).toBeUndefined();
  });

  it('says nothing of a line too short to time', () => {
    expect(servedBehindOf([alone(5), ...stream(62.5, 50, 30, 1)], 50)).toBeUndefined();
  });

  it('says nothing of answers slow throughout to a stream offered under the limit: no line grew', () => {
    // 30 req/s for 10 s against a limit of 50, each answered in 500 ms: slower than the quickest, and
    // fewer than the limit's rate, but each as slow as the one before.
    const slow = Array.from({ length: 300 }, (_, i) => answered(i * 33.3, i * 33.3 + 500, true, 'window'));
    expect(servedBehindOf([alone(5), ...slow], 50)).toBeUndefined();
  });

  it('says nothing of answers a stalled probe was handed late, all at once', () => {
    // Every admitted answer of a second's stretch handed over together 400 ms late, every other second.
    const stalled = stream(62.5, 50, 5, 10).map((s) =>
      s.answer === 'accepted' && Math.floor(s.sentMs / 1000) % 2 === 0
        ? { ...s, doneMs: Math.floor(s.sentMs / 1000) * 1000 + 1400 }
        : s,
    );
    expect(servedBehindOf([alone(5), ...stalled], 50)).toBeUndefined();
  });
});
