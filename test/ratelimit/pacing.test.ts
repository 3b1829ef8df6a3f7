// pace() on a clock that only moves when slept on: where a late timer leaves the schedule. Sizing a
// limit restarts the schedule (no catch-up burst to be mistaken for the limit's); check's burst
// catches up (the rate it offered over the run is what its verdict rests on).

import { describe, expect, it } from 'vitest';
import { pace } from '../../src/ratelimit/pacing.js';
import type { Clock } from '../../src/time/clock.js';

/** Sleeps advance time by what was asked, and the sleep that starts at `stallAtMs` by `stallMs` more. */
function stallingClock(stallAtMs: number, stallMs: number): Clock {
  let now = 0;
  let stalled = false;
  return {
    now: () => now,
    sleep: async (ms) => {
      const late = !stalled && now >= stallAtMs ? stallMs : 0;
      if (late) stalled = true;
      now += ms + late;
    },
  };
}

async function sendTimes(catchUp: boolean): Promise<{ sentAt: number[]; stoppedMs: number }> {
  const clock = stallingClock(500, 1_000);
  const sentAt: number[] = [];
  const stoppedMs = await pace({
    clock,
    rate: () => 100,
    maxInFlight: () => 4,
    catchUp,
    done: () => sentAt.length >= 200,
    send: async () => void sentAt.push(clock.now()),
  });
  return { sentAt, stoppedMs };
}

describe('pace() after a 1 s stall at 100/s', () => {
  it('by default starts the schedule again: nothing is sent back to back, the stall is lost', async () => {
    const { sentAt, stoppedMs } = await sendTimes(false);
    const gaps = sentAt.slice(1).map((t, i) => t - sentAt[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(10);
    // 200 requests: 2 s of schedule plus the stall.
    expect(stoppedMs).toBeGreaterThanOrEqual(2_990);
  });

  it('with catchUp sends what the stall held up at once and ends on the original schedule', async () => {
    const { sentAt, stoppedMs } = await sendTimes(true);
    expect(sentAt.filter((t) => t === sentAt[60]).length).toBeGreaterThan(90);
    expect(stoppedMs).toBeLessThan(2_000);
    expect(sentAt).toHaveLength(200);
  });
});
