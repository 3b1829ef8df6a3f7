import { fail, pass, type Check } from '../src/runner/check.js';
import { unauthorizedProblem, WANTS_401 } from '../src/runner/expect.js';
import { BUSINESS_ENDPOINTS } from '../src/spec/endpoints.js';

export const check: Check = {
  id: 'business.missing-token-401',
  title: 'Business endpoints refuse a call without a token with 401',
  spec: '4.4, 5.3',
  level: 'must',
  description:
    '/v1/evaluation and /v1/ach_transactions called with their configured method and payload but no Authorization header answer 401 `{"error":"unauthorized"}`.',
  async run({ http, business }) {
    const answers = await Promise.all(BUSINESS_ENDPOINTS.map((name) => http.business(name, business[name], undefined)));
    const evidence = answers.map((ex) => http.evidence(ex, 'no Authorization header'));
    const wrong = answers.filter((ex) => unauthorizedProblem(ex));
    if (wrong.length)
      return fail(
        `${wrong.map((ex) => `${ex.request} → ${ex.status} ${http.quote(ex, 60)}`).join('; ')} without a token; ${WANTS_401} (§5.3: the token goes on each business call)`,
        evidence,
      );
    return pass('both endpoints answer 401 without a token', evidence);
  },
};
