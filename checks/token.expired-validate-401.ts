import { fail, notTested, pass, skip, type Check } from '../src/runner/check.js';
import { cameBack, unauthorizedProblem, WANTS_401 } from '../src/runner/expect.js';
import { acceptanceIsLate } from '../src/time/expiry-edges.js';

export const check: Check = {
  id: 'token.expired-validate-401',
  title: '/tokens/validate refuses an expired token with 401',
  spec: '3, 4.3, 7',
  level: 'must',
  needsAcceptedCredentials: true,
  description:
    'When the token expires within `--expiry-wait`: once `expires_at` has certainly passed (a second for its rounding plus the clock tolerance) /tokens/validate with the old token answers 401 `{"error":"unauthorized"}` (§4.3 rule).',
  async run({ http, session }) {
    const obs = await session.expiry();
    if (obs.kind !== 'observed') return skip(obs.reason);
    const ex = obs.afterValidate;
    const evidence = [http.evidence(ex, `token ${obs.token.fingerprint} after expires_at ${obs.expiresAtS}`)];
    // The session waited until the token had certainly expired; a request that still went out
    // before that (a stalled clock, a test's fake one) proves nothing either way.
    if (!acceptanceIsLate(ex, obs.expiresAtS, session.allowance()))
      return notTested(
        `the request was not certainly after expires_at ${obs.expiresAtS} (the machine's clock stalled or jumped while the session waited), so nothing to judge; to test it, run it again (--only token.expired-validate-401)`,
        evidence,
      );
    if (unauthorizedProblem(ex))
      return fail(`${cameBack(http, ex)} for an expired token; ${WANTS_401} (§4.3)`, evidence);
    return pass('expired token refused with 401', evidence);
  },
};
