// slow-burst.test.ts's two cases on virtual time (burst-world.ts): business answers that take 2 s,
// the in-flight count sized from that latency (Little's law, bounded). A 50/s limit is met at
// max_rps 120 and recovered from; with no limit and max_rps 200, 128 in flight reach 64/s, under
// half of it, and the result says so (not tested), never "no limit". The real sockets' version,
// with the emulator's latency a real timer, is slow-burst.test.ts in the real tier.

import { describe, expect, it } from 'vitest';
import { check as limitEnforced } from '../../checks/ratelimit.limit-enforced.js';
import { check as recovers } from '../../checks/ratelimit.recovers.js';
import { world } from './burst-world.js';

/** A token bucket of `rps` a second and `burst` deep, full at 0, read at each answer's instant in order. */
function bucket(rps: number, burst: number): (i: number, ms: number) => number {
  let tokens = burst;
  let lastMs = 0;
  return (_i, ms) => {
    tokens = Math.min(burst, tokens + ((ms - lastMs) * rps) / 1000);
    lastMs = ms;
    if (tokens < 1) return 429;
    tokens -= 1;
    return 200;
  };
}

describe("check's burst on 2 s answers, on virtual time", () => {
  it('a 50/s limit at max_rps 120: met, and recovered from', async () => {
    const { ctx, stop } = world({ maxRps: 120, maxRequests: 600, latencyMs: 2_000, status: bucket(50, 50) });
    try {
      const outcome = await limitEnforced.run(ctx);
      expect(`${outcome.status}: ${outcome.message}`).toMatch(/^pass: 429 after /);
      const recovery = await recovers.run(ctx);
      expect(`${recovery.status}: ${recovery.message}`).toMatch(/^pass: recovered/);
    } finally {
      stop();
    }
  });

  // A pacer (or one worker) of 50 a second behind quick answers: the line, not a limit's absence nor
  // "a limit above max_rps", is what the check says, with the pace a client meets.
  it('no 429 from a service answering one request every 20 ms: its pace said, not tested', async () => {
    const { ctx, stop } = world({ maxRps: 200, maxRequests: 600, latencyMs: 2, everyMs: 20, status: () => 200 });
    try {
      const outcome = await limitEnforced.run(ctx);
      expect(`${outcome.status}: ${outcome.message}`).toMatch(
        /^skip: not tested: no 429 met, but the service answered no faster than 50 requests\/s, each answer later than the one before \(the first 0\.\d+ s, the last 2\.\d s\): a limit that delays instead of refusing, the service's own pace, or this machine's; `ces-harness ratelimit` sizes a client below it/,
      );
      expect(outcome.untested).toBe(true);
    } finally {
      stop();
    }
  });

  it('no limit at max_rps 200: 128 in flight over 2 s reach 64/s, under half of it, so nothing is concluded', async () => {
    const { ctx, stop } = world({ maxRps: 200, maxRequests: 300, latencyMs: 2_000, status: () => 200 });
    try {
      const outcome = await limitEnforced.run(ctx);
      expect(`${outcome.status}: ${outcome.message}`).toMatch(
        /^skip: not tested: no limit met, but the probe reached only \d+ requests\/s of the 200\/s it aimed for: answers took about 2\.0 s, and at most 128 requests in flight reach about 64\/s/,
      );
      expect(outcome.untested).toBe(true);
      const recovery = await recovers.run(ctx);
      expect(`${recovery.status}: ${recovery.message}`).toMatch(/^skip: no limit was met/);
    } finally {
      stop();
    }
  });
});
