import { describe, expect, it } from 'vitest';
import { TAIL_SINGLES, tailSingles } from '../../src/ratelimit/probe/drain-tail.js';
import { resetWhole } from '../../src/ratelimit/identify.js';
import type { Sample } from '../../src/ratelimit/types.js';

/** Samples from a pattern of 'A' (accepted) and 'r' (refused), one every 5 ms from `fromMs`. */
const tail = (pattern: string, fromMs = 0): Sample[] =>
  [...pattern].map((c, i) => ({
    sentMs: fromMs + 5 * i,
    doneMs: fromMs + 5 * i + 100,
    status: c === 'A' ? 200 : 429,
    answer: c === 'A' ? 'accepted' : 'limited',
    phase: 'drain',
    client: 'primary',
  }));

describe('tailSingles: what the drain let through one at a time after its first refusal', () => {
  it("counts a bucket's refills among the tail's refusals (x/time/rate 50/s across a network, CI land97)", () => {
    // The refusal at 0, then one in three or four let through, as on the virtual clock's seed 11.
    expect(tailSingles(tail('rrArrrrArArrrrrrArArr'), 0, 1_000)).toBe(5);
  });

  it("counts none of a window's reset: nothing until the edge, then a run", () => {
    expect(tailSingles(tail('rrrrrrrrrrAAAAAAAA'), 0, 1_000)).toBe(0);
    // The round trips' jitter swapping a few around the edge leaves fewer singles than TAIL_SINGLES.
    expect(tailSingles(tail('rrrrrrrArArAAAAAA'), 0, 1_000)).toBeLessThan(TAIL_SINGLES);
  });

  it('counts only what was sent between the refusal and the comeback', () => {
    const samples = tail('ArArArArArAr');
    expect(tailSingles(samples, 0, 1_000)).toBe(5);
    expect(tailSingles(samples, 0, 26)).toBe(2);
  });
});

describe('resetWhole: a limit back whole at once is a window only with no refills before it', () => {
  const whole = { clump: 15, drained: 28, lateMs: 120, beforeMs: 500 };
  it("a clump of the drain's half and more, nothing back one at a time before it: a window's reset", () => {
    expect(resetWhole(whole)).toBe(true);
    expect(resetWhole({ ...whole, tailSingles: TAIL_SINGLES - 1 })).toBe(true);
  });

  it('the same clump after the tail let requests through one at a time: a bucket refilled, no reset', () => {
    expect(resetWhole({ ...whole, tailSingles: TAIL_SINGLES })).toBe(false);
  });
});
