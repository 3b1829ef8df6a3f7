// The probe's own meter (probe/own-load.ts): a line of answers is read as the service's pace only
// when this process was not what made it. The real meter sees an event loop held up.

import { describe, expect, it } from 'vitest';
import { ownBusy, processLoad, type OwnLoad } from '../../src/ratelimit/probe/own-load.js';
import { systemClock } from '../../src/time/clock.js';

const load = (cpuShare: number, lagP99Ms: number): OwnLoad => ({
  cpuShare: () => cpuShare,
  lagP99Ms: () => lagP99Ms,
  stop: () => undefined,
});

describe("the probe's own load", () => {
  it('is busy past half a core or timers 100 ms late, and says how busy', () => {
    expect(ownBusy(load(0.1, 5))).toBeUndefined();
    expect(ownBusy(load(0.49, 99))).toBeUndefined();
    expect(ownBusy(load(0.5, 0))).toBe('this process used 50 % of a core and its timers ran up to 0 ms late (p99)');
    expect(ownBusy(load(0.2, 140))).toContain('timers ran up to 140 ms late');
  });

  it('the real meter sees an event loop held up for 300 ms', async () => {
    const meter = processLoad(systemClock);
    try {
      await new Promise((r) => setTimeout(r, 50));
      const until = Date.now() + 300;
      while (Date.now() < until); // held up: no timer of the loop's can fire
      await new Promise((r) => setTimeout(r, 50));
      expect(meter.lagP99Ms()).toBeGreaterThanOrEqual(200);
      expect(ownBusy(meter)).toBeDefined();
    } finally {
      meter.stop();
    }
  });
});
