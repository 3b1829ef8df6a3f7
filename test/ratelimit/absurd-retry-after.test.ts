// A limit whose refusals ask for an absurd wait (Retry-After: 10^9 s, some 31 years) or for none a
// client can read (-1, "soon"), on the virtual clock: the probe never waits out the absurd one, ends
// at once, and says why it sized nothing: the Retry-After past the wait budget
// (rate_limit.max_retry_after_s), never "a longer probe may size it", which no --max-duration could;
// an unreadable one is said as such, not as "absent".

import { describe, expect, it } from 'vitest';
import { discover } from '../../src/ratelimit/discover.js';
import type { Estimate } from '../../src/ratelimit/types.js';
import { limitMetUnsized } from '../../src/stages/rate-limit.js';
import { fixedWindow, virtualWorld } from './virtual-limit.js';

/** The probe against 5 a second (fixed window) whose every refusal carries `retryAfter`. */
async function probeWith(retryAfter: string, maxDurationS: number): Promise<Estimate> {
  const world = virtualWorld({ limiter: () => fixedWindow(5), status: 429 });
  const answered = world.calls.primary;
  const primary = async () => {
    const ex = await answered();
    return ex.status === 429 ? { ...ex, headers: { ...ex.headers, 'retry-after': retryAfter } } : ex;
  };
  try {
    return await discover({
      calls: { ...world.calls, primary },
      clock: world.clock,
      maxRps: 100,
      maxRequests: 500,
      maxDurationS,
      maxRetryAfterS: 120,
    });
  } finally {
    world.stop();
  }
}

describe('refusals with Retry-After 10^9 s', () => {
  it('not waited, not sized, and the line says the Retry-After is past the wait budget', async () => {
    const e = await probeWith('1000000000', 60);
    expect(e.duration_s).toBeLessThan(60);
    expect(e.sustained_rps).toBeNull();
    expect(e.notes).toContain(
      'not tested: Retry-After 1000000000 s exceeds the wait budget (120 s); raise rate_limit.max_retry_after_s to test recovery',
    );
    const why = limitMetUnsized('tokens.validate', e);
    expect(why).toContain('Retry-After 1000000000 s exceeds the wait budget (120 s)');
    expect(why).not.toContain('a longer probe');
  });
});

describe('refusals with a Retry-After that is no delay (-1, garbage)', () => {
  it.each(['-1', 'soon'])('%s: read as none, and said so (not "absent")', async (retryAfter) => {
    const e = await probeWith(retryAfter, 20);
    expect(e.notes.join('\n')).toMatch(
      /\d+ refusals carried a Retry-After that is neither delay-seconds nor an HTTP-date: read as none/,
    );
  });
});
