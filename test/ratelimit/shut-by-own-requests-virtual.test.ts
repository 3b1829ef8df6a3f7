// A limit still shut when the probe's budget runs out is said as what it did, never as more: a
// window longer than the budget is one cause, and when the probe's own requests went on at a pace a
// limit counting refused requests would stay shut under, that is the other (silent-window.ts
// longerThanBudget). Under `run` (30 s), a counter of 50 per 10 s counting refusals let 9 through 8 s
// after the drain, was then held shut by the long window's pings at 4 req/s, and was said to have
// "not lifted for 15.2 s since it shut, so a window is at least that long".

import { describe, expect, it } from 'vitest';
import { underRunHowTo } from '../../src/ratelimit/horizon.js';
import { discoverVirtual, fromModel } from './virtual-limit.js';

const RUN_CAP_S = 30;
const counter = (phaseS: number) =>
  ({ kind: 'sliding-counter', limit: 50, window_s: 10, phase_s: phaseS, counts_refused: true }) as const;

const shutNote = (notes: readonly string[]) => notes.find((n) => n.includes("the probe's budget"));

describe("a limit shut past the probe's budget is said as what it did", () => {
  it.for([2.5, 5])(
    'a counter of 50 per 10 s counting refusals, phase %s s, Retry-After: it let some through again, said so, and the pings that may have held it shut',
    async (phaseS) => {
      const e = await discoverVirtual(
        { limiter: () => fromModel(counter(phaseS)), status: 429, announces: 'retry-after' },
        { maxDurationS: RUN_CAP_S },
      );
      const note = shutNote(e.notes);
      expect(e.limiter, e.notes.join('\n')).toBeNull();
      expect(note, e.notes.join('\n')).toMatch(
        /^not identified: shut past the probe's budget: the limit let \d+ through again after it shut, then nothing in the last [\d.]+ s; one cause: the window is longer than the probe's budget \(30 s\) \(or a limit that never lifts\); or a limit that counts refused requests, held shut by the probe's own requests, which went on sending [\d.]+ req\/s meanwhile/,
      );
      expect(note).not.toMatch(/has not lifted/);
      // Under `run`, how to size it still follows.
      expect(underRunHowTo(note!, RUN_CAP_S)).toMatch(
        /; run's probe stops at 30 s: `ces-harness ratelimit` probes for up to/,
      );
    },
  );

  it('the same counter, silent, never lifting under the pings: a long window is one cause of two', async () => {
    const e = await discoverVirtual({ limiter: () => fromModel(counter(0)), status: 429 }, { maxDurationS: RUN_CAP_S });
    expect(shutNote(e.notes), e.notes.join('\n')).toMatch(
      /^not identified: shut past the probe's budget: the limit has not lifted for [\d.]+ s since it shut; one cause: the window is longer than the probe's budget \(30 s\), a window of at least [\d.]+ s whose second edge comes after the cap \(or a limit that never lifts\); or a limit that counts refused requests, held shut by the probe's own requests, which went on sending/,
    );
  });

  it('a silent 600 per 60 s, pinged sparsely for what it let through: a window at least that long, nothing more', async () => {
    const truth = { kind: 'fixed-window', limit: 600, window_s: 60, phase_s: 0, counts_refused: false } as const;
    const e = await discoverVirtual({ limiter: () => fromModel(truth), status: 429 }, { maxDurationS: RUN_CAP_S });
    const note = shutNote(e.notes);
    expect(note, e.notes.join('\n')).toMatch(
      /^not identified: the window is longer than the probe's budget \(30 s\): the limit has not lifted for [\d.]+ s since it shut, so a window is at least that long/,
    );
    expect(note).not.toMatch(/counts refused/);
  });
});
