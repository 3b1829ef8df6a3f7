// A probe whose next step would wait past its time cap stops there (Probe.outOfTime), short of the
// cap: the note says when it stopped. A sliding-window counter 20 per 10 s answering Retry-After,
// under run's 30 s, stopped after 11.7 s and was said "stopped at the probe's time cap (30 s)"
// (`serve --limiter counter --rate-limit 2 --window 10`, 30 Nov). Whole probe on the virtual clock.

import { describe, expect, it } from 'vitest';
import { stoppedForTime } from '../../src/ratelimit/discover.js';
import { discoverVirtual, fromModel } from './virtual-limit.js';

describe('a probe stopped before its time cap', () => {
  it('a sliding-window counter 20 per 10 s under 30 s: says it stopped short of the cap, and when', async () => {
    const e = await discoverVirtual(
      {
        limiter: () =>
          fromModel({ kind: 'sliding-counter', limit: 20, window_s: 10, phase_s: 0, counts_refused: false }),
        status: 429,
        announces: 'retry-after',
      },
      { maxDurationS: 30 },
    );
    const notes = e.notes.join('\n');
    expect(e.duration_s, notes).toBeLessThan(29);
    expect(notes).not.toMatch(/stopped at the probe's time cap/);
    expect(notes).toMatch(/stopped after \d+(\.\d)? s, short of the probe's time cap \(30 s\)/);
  });

  it('within a second of the cap: the cap reached', () => {
    expect(stoppedForTime(29_400, 30_000)).toMatch(/^stopped at the probe's time cap \(30 s\)/);
    expect(stoppedForTime(11_690, 30_000)).toMatch(/^stopped after 11\.7 s, short of the probe's time cap \(30 s\)/);
  });
});
