// When a VU writes its requests for the timeline (src/k6/timeline-batch.ts), on virtual times: a VU
// that loops until its scenario's end has written every request once its last one is noted, in
// batches of at most a second; a VU that cannot know its end writes each request at once.

import { describe, expect, it } from 'vitest';
import { requestsOfTimelineLine } from '../../src/k6/contract.js';
import { BATCH_MS, END_MARGIN_MS, TimelineBatch } from '../../src/k6/timeline-batch.js';

/** A constant-vus VU: one request every `gapsMs[i % n]` ms from `startMs` until `endMs`, as k6 runs it. */
function loop(gapsMs: number[], endMs: number, endOfRun = endMs, startMs = 0) {
  const lines: { at: number; ends: number[] }[] = [];
  let now = startMs;
  let asked = 0;
  const batch = new TimelineBatch(
    (line) => lines.push({ at: now, ends: requestsOfTimelineLine(line)!.ends }),
    () => (asked++, endOfRun),
  );
  let sent = 0;
  for (let i = 0; now < endMs; i++, now += gapsMs[i % gapsMs.length]!) {
    batch.add(now, 1);
    sent++;
  }
  return { lines, sent, written: lines.reduce((n, l) => n + l.ends.length, 0), asked };
}

describe('TimelineBatch', () => {
  it('writes every request of a VU looping to its end, in batches of at most a second', () => {
    const vu = loop([7], 10_000);
    expect(vu.written).toBe(vu.sent);
    // Batched until near the end: a line a second up to then, over a hundred requests in each.
    const early = vu.lines.filter((l) => l.at < 10_000 - END_MARGIN_MS);
    expect(early.length).toBeLessThanOrEqual((10_000 - END_MARGIN_MS) / BATCH_MS);
    expect(early.every((l) => l.ends.length > 100)).toBe(true);
    // A batch goes out with the first request noted a second or more after its first.
    for (const l of vu.lines) expect(l.at - l.ends[0]!).toBeLessThan(BATCH_MS + 7);
    // The scenario's end is asked once, not once a request or a batch.
    expect(vu.asked).toBe(1);
  });

  it('writes a line a request only in the last few hundred ms of a VU with short pauses', () => {
    // Each line is formatted and written by k6: near the end they cost as much as the request.
    const vu = loop([7], 10_000);
    const single = vu.lines.filter((l) => l.ends.length === 1);
    expect(single.length * 7).toBeLessThanOrEqual(300);
    expect(vu.written).toBe(vu.sent);
  });

  it('writes the last request at once when the VU pauses longer than the margin between requests', () => {
    // Pauses of up to 2.4 s: a request held 2.2 s before the end would wait for one after the end.
    // Each start puts the last requests elsewhere against the end.
    for (const gaps of [[2_400], [300, 2_400], [100, 100, 2_400]])
      for (let start = 0; start < 5_000; start += 100) {
        const vu = loop(gaps, 20_000, 20_000, start);
        expect({ gaps, start, written: vu.written }).toEqual({ gaps, start, written: vu.sent });
      }
  });

  it('writes each request at once when the VU cannot know its end', () => {
    const vu = loop([7], 1_000, 0);
    expect(vu.lines.length).toBe(vu.sent);
  });
});
