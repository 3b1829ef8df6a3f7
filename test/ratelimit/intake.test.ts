// The pace a long run of requests reached the service at (src/ratelimit/intake.ts takenRps), which
// both a probe that met no limit (its drain) and check's burst (limit-burst.ts) say they tested up
// to: the pace the answers came back at when a line held them, else the pace they were sent at.

import { describe, expect, it } from 'vitest';
import { takenRps } from '../../src/ratelimit/intake.js';
import type { Sample } from '../../src/ratelimit/types.js';

/** 1000 requests sent 5 ms apart (200/s), answered `doneMs(i)`. */
const run = (doneMs: (i: number) => number): Sample[] =>
  Array.from({ length: 1000 }, (_, i) => ({
    sentMs: 5 * i,
    doneMs: doneMs(i),
    status: 200,
    answer: 'accepted',
    phase: 'drain',
    client: 'primary',
  }));

describe('takenRps', () => {
  it('a service that takes one request every 8 ms: the 125/s it took them in at, not the 200/s sent', () => {
    expect(
      takenRps(
        200,
        run((i) => 8 * (i + 1) + 2),
      ),
    ).toBeCloseTo(125, 0);
  });

  it('answers that only jitter (2 to 12 ms) over a long run: the rate they were sent at', () => {
    expect(
      takenRps(
        200,
        run((i) => 5 * i + 2 + ((i * 7) % 11)),
      ),
    ).toBe(200);
  });

  it('too few to tell: the rate they were sent at', () => {
    expect(takenRps(200, run((i) => 8 * (i + 1)).slice(0, 1))).toBe(200);
  });
});
