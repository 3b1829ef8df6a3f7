// token.valid-until-expiry probes the session's token just before its expires_at. When the token
// has too little life left by the time the probe's turn comes (an 8 s token, the checks queued
// behind a low rate limit), nothing was tested: that is the run's circumstance, not its design, so
// it is "not tested" (the run says NOT TESTED, exit 1), saying how much life was left, what held
// it up, and how to get it tested. It read as a plain skip before (30 Nov).

import { describe, expect, it } from 'vitest';
import { check } from '../../checks/token.valid-until-expiry.js';
import type { CheckContext } from '../../src/runner/check.js';
import type { ExpiryObservation, TooLate } from '../../src/runner/token-session.js';

const observedLate = (tooLate: TooLate): CheckContext =>
  ({
    http: {},
    session: {
      expiry: async (): Promise<ExpiryObservation> =>
        ({
          kind: 'observed',
          token: { token: 'never-shown', fingerprint: 'tk_ab12', expiresAt: 1_000, tokenType: 'Bearer' },
          expiresAtS: 1_000,
          tooLate,
        }) as unknown as ExpiryObservation,
    },
  }) as unknown as CheckContext;

describe('token.valid-until-expiry with too little life left for its probe', () => {
  it('is not tested, naming the life left, the limit that queued it, and how to get it tested', async () => {
    const outcome = await check.run(observedLate({ startLeftMs: 2_400, leftMs: 200, limitQueued: true }));
    expect(outcome.status).toBe('skip');
    expect(outcome.untested).toBe(true);
    expect(outcome.message).toBe(
      "not tested: token tk_ab12 had 2.4 s of certain life left when the wait for its expiry took it up and 0.2 s when the probe's turn came, too little to probe it before expires_at 1000: the service's rate limit had queued the checks' requests, one at a time, ahead of it; token.expired-* still judged its expiry; to test it, run it alone (--only token.valid-until-expiry), give the sandbox a longer token lifetime (the emulator: serve --token-lifetime S), or a higher rate limit",
    );
  });

  it('without a queue, says only the life left; none left is said so', async () => {
    const outcome = await check.run(observedLate({ startLeftMs: 900, leftMs: -40, limitQueued: false }));
    expect(outcome.untested).toBe(true);
    expect(outcome.message).toMatch(
      /^not tested: token tk_ab12 had 0\.9 s of certain life left when the wait for its expiry took it up and none when the probe's turn came, too little to probe it before expires_at 1000; token\.expired-\*/,
    );
  });
});

// Since 6 Dec: the token issued after that one expired is probed in its stead, when it expires
// within --expiry-wait too (token-session.ts probeNext). The verdict is that token's, named, and the
// first token's shortfall is said beside it.
describe('token.valid-until-expiry probed on the next token', () => {
  const probedNext = (status: number, body: unknown): CheckContext =>
    ({
      http: { evidence: (_ex: unknown, said: string) => said },
      session: {
        allowance: () => ({ skewMinS: 0, skewMaxS: 0, roundingS: 1 }),
        expiry: async (): Promise<ExpiryObservation> =>
          ({
            kind: 'observed',
            token: { token: 'never-shown', fingerprint: 'tk_ab12', expiresAt: 1_000, tokenType: 'Bearer' },
            expiresAtS: 1_000,
            tooLate: { startLeftMs: 2_800, leftMs: -10, limitQueued: false },
            probedNext: {
              token: { token: 'never-shown-2', fingerprint: 'tk_cd34', expiresAt: 1_010, tokenType: 'Bearer' },
              expiresAtS: 1_010,
            },
            beforeExpiry: { status, json: body, receivedAt: 1_009_400, sentAt: 1_009_390 },
          }) as unknown as ExpiryObservation,
      },
    }) as unknown as CheckContext;

  it("passes on the next token's 200, naming it and why the first was not probed", async () => {
    const outcome = await check.run(probedNext(200, { valid: true }));
    expect(outcome.status).toBe('pass');
    expect(outcome.message).toBe(
      "valid just before expires_at (token tk_cd34, issued after tk_ab12 expired: token tk_ab12 had 2.8 s of certain life left when the wait for its expiry took it up and none when the probe's turn came, too little to probe it before expires_at 1000)",
    );
    expect(outcome.evidence?.[0]).toContain('tk_cd34, answered 0.6 s before expires_at');
  });
});
