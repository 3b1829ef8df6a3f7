// Retry-After judged against the limit that sent it (issue 35): behind N per second and M per
// minute, a retry after the per-second limit's Retry-After may be refused by the per-minute one.
// That refusal is evidence of the second limit, judged against its own Retry-After, never an
// "untruthful" header. On the virtual clock: a minute's wait takes milliseconds.

import { describe, expect, it } from 'vitest';
import { Probe } from '../../src/ratelimit/probe/probe.js';
import { retryAfterPhase } from '../../src/ratelimit/probe/retry-after.js';
import { createLimiter, type LimiterModel } from '../../src/ratelimit/limiters/index.js';
import { virtualWorld, type Limiter } from './virtual-limit.js';

const window = (limit: number, windowS: number): LimiterModel => ({
  kind: 'fixed-window',
  limit,
  window_s: windowS,
  phase_s: 0,
  counts_refused: false,
});

/**
 * Two limits stacked, a gateway in front of an application: a request passes when both admit it;
 * the front one refuses first and the one behind sees only what it let through. Small on purpose:
 * the stacked limiter model (issue 35, item 1) replaces it.
 */
function both(front: LimiterModel, behind: LimiterModel): Limiter {
  const [a, b] = [createLimiter(front), createLimiter(behind)];
  return (now) => {
    for (const limit of [a, b]) {
      const d = limit.take(now);
      if (!d.ok) return d.retryAfterS * 1000;
    }
    return undefined;
  };
}

/** The probe as discover() makes it, on the virtual world's calls and clock. */
const probeOn = (world: ReturnType<typeof virtualWorld>): Probe =>
  new Probe({
    calls: world.calls,
    clock: world.clock,
    maxRps: 200,
    maxRequests: 100,
    maxDurationMs: 150_000,
    maxInFlight: 8,
    maxRetryAfterS: 120,
    signal: undefined,
    progress: () => {},
    samples: [],
  });

async function judged(limiter: () => Limiter, announces: 'retry-after' | 'reset' = 'retry-after') {
  const world = virtualWorld({ limiter, status: 429, announces });
  const probe = probeOn(world);
  try {
    // Ten pass, the eleventh is refused by the per-second limit (Retry-After 1).
    for (let i = 0; i < 11; i++) await probe.send('drain');
    expect((announces === 'reset' ? probe.refusals.lastReset : probe.refusals.lastRetryAfter)?.seconds).toBe(1);
    return await retryAfterPhase(probe, null);
  } finally {
    world.stop();
  }
}

describe('Retry-After per limit', () => {
  it('10 per second and 10 per minute: the refusal after the wait is the minute limit, whose own Retry-After holds', async () => {
    const found = await judged(() => both(window(10, 1), window(10, 60)));
    expect(found.verdict, found.notes.join('\n')).toBe('truthful');
    expect(found.notes.join('\n')).toMatch(
      /evidence of another limit: after waiting the 1 s Retry-After said, the retry was refused \(429\) with Retry-After 59 s/,
    );
    expect(found.notes.join('\n')).not.toMatch(/untruthful|refused again/);
  });

  it('one limit that says 1 s and keeps refusing for 10 is still untruthful', async () => {
    // A 10 s window that announces a second: the retry's refusal asks for no longer wait than before.
    const lying: () => Limiter = () => {
      const inner = createLimiter(window(10, 10));
      return (now) => (inner.take(now).ok ? undefined : 1000);
    };
    const found = await judged(lying);
    expect(found.verdict).toBe('untruthful');
    expect(found.notes.join('\n')).toMatch(
      /Retry-After said 1 s; after waiting exactly that, the retry was refused again/,
    );
  });

  it('the same for a RateLimit reset: a refusal with a later reset is the other limit, not an untruthful reset', async () => {
    const found = await judged(() => both(window(10, 1), window(10, 60)), 'reset');
    expect(found.reset).toBeUndefined();
    expect(found.notes.join('\n')).toMatch(
      /evidence of another limit: after waiting the 1 s reset the RateLimit headers announced, the retry was refused \(429\) with a reset in 59 s/,
    );
  });
});

describe('Retry-After judged only for a client that waited', () => {
  /**
   * rate-limiter-flexible's window, 10 per 1.5 s, opened by the first request after the last one
   * ended; its Retry-After is the time left, rounded up to whole seconds (2 s): truthful.
   */
  const opened: () => Limiter = () => {
    let endsMs = -Infinity;
    let used = 0;
    return (now) => {
      if (now >= endsMs) [endsMs, used] = [now + 1500, 0];
      return ++used <= 10 ? undefined : endsMs - now;
    };
  };

  it("a retry refused because the probe's own requests refilled the window after the refusal is judged again on a fresh refusal: truthful", async () => {
    const world = virtualWorld({ limiter: opened, status: 429, announces: 'retry-after' });
    const probe = probeOn(world);
    try {
      for (let i = 0; i < 11; i++) await probe.send('drain');
      expect(probe.refusals.lastRetryAfter?.seconds).toBe(2);
      // As an edge walk does: past the window's end, a ping opens the next window and more fill it.
      await world.clock.sleep(1_520);
      for (let i = 0; i < 10; i++) await probe.send('edges');
      const found = await retryAfterPhase(probe, null);
      // Judged again on a refusal met then, nothing sent while waiting: the header holds.
      expect(found.verdict, found.notes.join('\n')).toBe('truthful');
      expect(found.notes.join('\n')).toMatch(
        /Retry-After said 2 s; the retry after exactly that was refused \(429\), but 10 of the probe's own requests had been let through after that refusal, so the limit it met was the probe's doing, not the header's\njudged again on a fresh refusal, nothing sent while waiting/,
      );
      expect(found.notes.join('\n')).not.toMatch(/untruthful|refused again/);
    } finally {
      world.stop();
    }
  });
});
