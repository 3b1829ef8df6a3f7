// token.expired-validate-401 and token.expired-business-401 judge a request the session sent once
// the token had certainly expired. One that still went out before that (a stalled or jumping clock)
// proves nothing: the run's circumstance kept the check from testing, so it is "not tested" (the
// run says NOT TESTED) with how to get it tested, not a plain skip as it read before (30 Nov).

import { describe, expect, it } from 'vitest';
import { check as validateExpired } from '../../checks/token.expired-validate-401.js';
import { check as businessExpired } from '../../checks/token.expired-business-401.js';
import type { CheckContext } from '../../src/runner/check.js';

// Sent and answered a second before expires_at 1000: not certainly after it, whatever the skew.
const early = { status: 200, request: 'GET /tokens/validate', sentAt: 998_900, receivedAt: 999_000 };

const context = {
  http: { evidence: (ex: { request: string }, note: string) => ({ request: ex.request, status: 200, note }) },
  session: {
    allowance: () => ({ clockSkewS: 0.5 }),
    expiry: async () => ({
      kind: 'observed',
      token: { fingerprint: 'tk_ab12' },
      expiresAtS: 1_000,
      afterValidate: early,
      afterBusiness: { ...early, request: 'POST /v1/evaluation' },
    }),
  },
} as unknown as CheckContext;

describe.each([
  ['token.expired-validate-401', validateExpired],
  ['token.expired-business-401', businessExpired],
] as const)('%s with a request not certainly after expires_at', (id, c) => {
  it('is not tested, saying why and how to get it tested', async () => {
    const outcome = await c.run(context);
    expect(outcome.status).toBe('skip');
    expect(outcome.untested).toBe(true);
    expect(outcome.message).toMatch(
      new RegExp(
        `^not tested: the request was not certainly after expires_at 1000 .*; to test it, run it again \\(--only ${id.replace(/\./g, '\\.')}\\)$`,
      ),
    );
  });
});
