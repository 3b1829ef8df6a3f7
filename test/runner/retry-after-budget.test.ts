// check's recovery against a real emulator whose limit says Retry-After 61 (a per-minute window)
// and truly lifts 61 s later, on a virtual clock the emulator and the checks share: the waits cost
// no real time. Within rate_limit.max_retry_after_s the wait is honoured and the service passes;
// past it the recovery is not tested, never failed or warned about. A payload refusal (422) after
// the wait is a recovery too (the business-rejects-payload profile): the token and the limit let
// the request through.

import { afterEach, describe, expect, it } from 'vitest';
import { check as limitEnforced } from '../../checks/ratelimit.limit-enforced.js';
import { check as recovers } from '../../checks/ratelimit.recovers.js';
import { check as retryAfter } from '../../checks/ratelimit.retry-after.js';
import { createEmulator, type Emulator, type ProfileName } from '../../src/emulator/index.js';
import type { Ctx } from '../../src/emulator/types.js';
import type { RateLimitEndpoint } from '../../src/spec/endpoints.js';
import type { CheckContext } from '../../src/runner/check.js';
import { virtualClock } from '../../src/time/clock.js';
import { emulatorContext } from '../helpers/conformance.js';

/**
 * A limit on the probed endpoint only (token fetches pass): 20 requests, then 429 with Retry-After
 * `retryAfterS` until that many seconds after the first refusal.
 */
function minuteWindow(clock: { now: () => number }, path: string, retryAfterS: number) {
  let seen = 0;
  let refusedSinceMs: number | undefined;
  return () => ({
    limit: (ctx: Ctx) => {
      if (ctx.req.path !== path || ++seen <= 20) return { ok: true as const };
      refusedSinceMs ??= clock.now();
      return clock.now() < refusedSinceMs + retryAfterS * 1000
        ? { ok: false as const, retryAfterS }
        : { ok: true as const };
    },
  });
}

let emulator: Emulator | undefined;
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  await emulator?.close();
});

async function world(opts: {
  retryAfterS: number;
  maxRetryAfterS: number;
  endpoint: RateLimitEndpoint;
  profiles: ProfileName[];
}): Promise<CheckContext> {
  const clock = virtualClock();
  const path = opts.endpoint === 'tokens.validate' ? '/tokens/validate' : '/v1/evaluation';
  emulator = await createEmulator({
    port: 0,
    tokenTtlS: 3_600,
    now: clock.now,
    profiles: opts.profiles,
    overrides: [minuteWindow(clock, path, opts.retryAfterS)],
  });
  // The checks' clock is the emulator's: every wait the checks make is skipped, not slept.
  const open = emulatorContext(
    emulator,
    {
      endpoint: opts.endpoint,
      maxRps: 100,
      maxRequests: 200,
      recoveryWaitS: 60,
      maxRetryAfterS: opts.maxRetryAfterS,
      probingAllowed: true,
    },
    clock,
  );
  close = open.close;
  return open.ctx;
}

describe('a 429 with Retry-After: 61 that truly lifts after 61 s', () => {
  it.each([
    {
      endpoint: 'tokens.validate',
      profiles: [],
      maxRetryAfterS: 120,
      recovered: /^pass: recovered after 61\.\d s, 1 retry \(waited by retry-after\)$/,
      truthful: /^pass: Retry-After: 61/,
    },
    {
      endpoint: 'business.evaluation',
      profiles: ['business-rejects-payload'],
      maxRetryAfterS: 120,
      recovered:
        /^pass: recovered after 61\.\d s, 1 retry \(waited by retry-after\); the retry answered 422: token and limit passed/,
      truthful: /^pass: Retry-After: 61/,
    },
    {
      endpoint: 'tokens.validate',
      profiles: [],
      maxRetryAfterS: 60,
      recovered:
        /^skip: not tested: Retry-After 61 s exceeds the wait budget \(60 s\); raise rate_limit\.max_retry_after_s/,
      truthful: /^skip: not tested: Retry-After 61 s exceeds/,
    },
  ] as const)(
    '$endpoint with profiles $profiles, bound $maxRetryAfterS s: $recovered',
    async ({ endpoint, profiles, maxRetryAfterS, recovered, truthful }) => {
      const ctx = await world({ retryAfterS: 61, maxRetryAfterS, endpoint, profiles: [...profiles] });
      const enforced = await limitEnforced.run(ctx);
      expect(`${enforced.status}: ${enforced.message}`).toMatch(/^pass: 429 after /);
      const recovery = await recovers.run(ctx);
      expect(`${recovery.status}: ${recovery.message}`).toMatch(recovered);
      // Past the bound the run says "not tested" (exit 1), never fail or warn.
      expect(recovery.untested === true).toBe(recovery.status === 'skip');
      const header = await retryAfter.run(ctx);
      expect(`${header.status}: ${header.message}`).toMatch(truthful);
    },
  );
});
