import { randomBytes } from 'node:crypto';
import { fail, pass, type Check } from '../src/runner/check.js';
import { unauthorizedProblem, WANTS_401 } from '../src/runner/expect.js';
import { BUSINESS_ENDPOINTS } from '../src/spec/endpoints.js';

export const check: Check = {
  id: 'business.invalid-token-401',
  title: 'Business endpoints refuse malformed and unknown tokens with 401',
  spec: '4.4, 5.3',
  level: 'must',
  description: 'Each business endpoint called with `Bearer not-a-token` and with a well-formed random token the service never issued answers 401 `{"error":"unauthorized"}`.',
  async run({ http, business }) {
    const tokens = [
      { name: 'malformed token', token: 'not-a-token' },
      { name: 'unknown token', token: randomBytes(32).toString('base64url') },
    ];
    const answers = await Promise.all(
      BUSINESS_ENDPOINTS.flatMap((name) => tokens.map(async (t) => ({ t, ex: await http.business(name, business[name], t.token) }))),
    );
    const evidence = answers.map(({ t, ex }) => http.evidence(ex, t.name));
    const wrong = answers.filter(({ ex }) => unauthorizedProblem(ex));
    if (wrong.length) {
      return fail(`${wrong.map(({ t, ex }) => `${ex.request} with a ${t.name} → ${ex.status} ${http.quote(ex, 60)}`).join('; ')}; ${WANTS_401}`, evidence);
    }
    return pass('malformed and unknown tokens refused with 401 on both endpoints', evidence);
  },
};
