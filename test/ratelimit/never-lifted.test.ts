// What the probe says of a limit that never lifted before its time cap: a window longer than the
// budget, and, when its own stream kept sending meanwhile, a limit that counts refused requests
// (HAProxy's usual recipe), which stays shut under any pace above its rate: a stream raised to 52
// req/s against 50 per 1 s was refused for the last 44 s of a probe behind a slow service, and the
// note named only a window of at least 45 s, and --horizon 90.

import { describe, expect, it } from 'vitest';
import { neverLifted } from '../../src/ratelimit/probe/silent-window.js';
import type { Probe } from '../../src/ratelimit/probe/probe.js';
import type { PhaseName, Sample } from '../../src/ratelimit/types.js';

/** `count` requests from `fromMs`, `everyMs` apart, all of one phase and answer. */
const run = (fromMs: number, count: number, everyMs: number, phase: PhaseName, accepted: boolean): Sample[] =>
  Array.from({ length: count }, (_, i) => ({
    sentMs: fromMs + i * everyMs,
    doneMs: fromMs + i * everyMs + 3,
    status: accepted ? 200 : 429,
    answer: accepted ? 'accepted' : 'limited',
    phase,
    client: 'primary',
  }));

/** What neverLifted reads of a probe that stopped at its 60 s cap. */
const stoppedAtCap = (samples: Sample[]): Probe =>
  ({ samples, stoppedBy: 'time', refusals: {}, maxDurationMs: 60_000 }) as unknown as Probe;

describe('a limit that never lifted before the cap', () => {
  it('while the stream kept sending 52 req/s: a limit held shut by it is said beside a longer window', () => {
    const note = neverLifted(
      stoppedAtCap([...run(10_000, 250, 20, 'window', true), ...run(15_000, 2340, 1000 / 52, 'window', false)]),
    );
    expect(note).toMatch(
      /never lifted in the last 4\d(\.\d)? s of the probe's 60 s: a window longer than the budget is one cause/,
    );
    expect(note).toMatch(
      /; or a limit that counts refused requests, held shut by the probe's own stream, which went on sending 52 req\/s meanwhile/,
    );
  });

  it('while only sparse pings asked: a window longer than the budget, and how to size it', () => {
    const note = neverLifted(
      stoppedAtCap([...run(0, 200, 5, 'drain', true), ...run(1_000, 59, 1000, 'recover', false)]),
    );
    expect(note).toMatch(
      /never lifted in the last 58 s of the probe's 60 s: a window longer than the budget is the likeliest cause/,
    );
    expect(note).toMatch(/--horizon/);
    expect(note).not.toMatch(/held shut by the probe's own stream/);
  });
});
