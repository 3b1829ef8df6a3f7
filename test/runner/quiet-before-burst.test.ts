// The checks before the burst send with the same credentials through the same limiter. Against the
// real emulator (its bucket 50/s, 50 at once, per client), 45 validations sent just before the
// check drain that bucket almost empty; the burst must still meet it full, as it does after a
// slow run of the earlier checks, or the run history's count moves with the machine's pace.

import { afterEach, expect, it } from 'vitest';
import { check as limitEnforced } from '../../checks/ratelimit.limit-enforced.js';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { emulatorContext } from '../helpers/conformance.js';

let emulator: Emulator | undefined;
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  await emulator?.close();
});

it("the burst meets a bucket the run's own requests just drained full again", async () => {
  emulator = await createEmulator({ port: 0, tokenTtlS: 3_600, rateLimit: { rps: 50, burst: 50 } });
  const open = emulatorContext(emulator, {
    endpoint: 'tokens.validate',
    maxRps: 200,
    maxRequests: 600,
    recoveryWaitS: 15,
    maxRetryAfterS: 120,
    probingAllowed: true,
  });
  close = open.close;
  const { http, session } = open.ctx;
  const { token } = await session.current();
  const drained = await Promise.all(
    Array.from({ length: 45 }, () => http.validate(token, 'GET', { waitOut429: false })),
  );
  expect(drained.every((ex) => ex.status === 200)).toBe(true);
  expect(http.lastRequestEndedAt()).toBeDefined();

  const outcome = await limitEnforced.run(open.ctx);
  expect(outcome.status, outcome.message).toBe('pass');
  // From full, B·R/(R − r) = 67 at 200/s, and never less than the burst B = 50 whatever the pace: a
  // busy machine sends in clumps that earn no refill between them (57 under a loaded fast tier, 30
  // Nov, where this asked 60). From the 5-15 the drain leaves, under 20 at 200/s; 50 would take a
  // pace four times slower than asked.
  expect(outcome.facts?.['accepted_before_limit'], outcome.message).toBeGreaterThanOrEqual(50);
}, 30_000);
