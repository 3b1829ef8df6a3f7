import { fail, pass, type Check } from '../src/runner/check.js';
import { unauthorizedProblem, WANTS_401 } from '../src/runner/expect.js';
import { invalidBearers } from '../src/runner/forged-tokens.js';

export const check: Check = {
  id: 'validate.garbage-token-401',
  title: '/tokens/validate refuses garbage, unknown and forged tokens with 401',
  spec: '4.3, 7',
  level: 'must',
  needsAcceptedCredentials: true,
  description:
    '/tokens/validate answers 401 `{"error":"unauthorized"}` to `Bearer not-a-token`, to a random token the service never issued, and to forgeries of the real token: its length and alphabet with one character changed at the start, in the middle and at the end, and for a JWT its claims under another signature and under `alg: none`.',
  async run({ http, session }) {
    const [method, real] = await Promise.all([session.validateMethod(), session.current()]);
    const cases = invalidBearers(http.redactor, real.token);
    const answers = await Promise.all(cases.map(async (c) => ({ c, ex: await http.validate(c.token, method) })));
    const evidence = answers.map(({ c, ex }) => http.evidence(ex, c.name));
    const wrong = answers.filter(({ ex }) => unauthorizedProblem(ex));
    if (wrong.length) {
      return fail(
        `${wrong.map(({ c, ex }) => `${c.name} → ${ex.status} ${http.quote(ex, 60)}`).join('; ')}; ${WANTS_401}`,
        evidence,
      );
    }
    return pass(`all ${cases.length} refused with 401: ${cases.map((c) => c.name).join(', ')}`, evidence);
  },
};
