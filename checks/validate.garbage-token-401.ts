import { randomBytes } from 'node:crypto';
import { fail, pass, type Check } from '../src/runner/check.js';
import { unauthorizedProblem, WANTS_401 } from '../src/runner/expect.js';

export const check: Check = {
  id: 'validate.garbage-token-401',
  title: '/tokens/validate refuses garbage and unknown tokens with 401',
  spec: '4.3, 7',
  level: 'must',
  needsAcceptedCredentials: true,
  description: '/tokens/validate with `Bearer not-a-token` and with a well-formed random token the service never issued answers 401 `{"error":"unauthorized"}` each time.',
  async run({ http, session }) {
    const method = await session.validateMethod();
    const cases = [
      { name: 'garbage', token: 'not-a-token' },
      { name: 'unknown token', token: randomBytes(32).toString('base64url') },
    ];
    const answers = await Promise.all(cases.map(async (c) => ({ c, ex: await http.validate(c.token, method) })));
    const evidence = answers.map(({ c, ex }) => http.evidence(ex, c.name));
    const wrong = answers.filter(({ ex }) => unauthorizedProblem(ex));
    if (wrong.length) {
      return fail(`${wrong.map(({ c, ex }) => `${c.name} → ${ex.status} ${http.quote(ex, 60)}`).join('; ')}; ${WANTS_401}`, evidence);
    }
    return pass('garbage and unknown tokens refused with 401', evidence);
  },
};
