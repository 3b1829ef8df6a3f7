import { fail, pass, type Check } from '../src/runner/check.js';
import { cameBack, unauthorizedProblem, WANTS_401 } from '../src/runner/expect.js';

export const check: Check = {
  id: 'validate.missing-token-401',
  title: '/tokens/validate without a token gets 401',
  spec: '4.3, 7',
  level: 'must',
  needsAcceptedCredentials: true,
  description: '/tokens/validate with no Authorization header answers 401 `{"error":"unauthorized"}`.',
  async run({ http, session }) {
    const ex = await http.validate(undefined, await session.validateMethod());
    if (unauthorizedProblem(ex))
      return fail(`${cameBack(http, ex)} without a token; ${WANTS_401}`, [http.evidence(ex)]);
    return pass('401 {"error":"unauthorized"}', [http.evidence(ex)]);
  },
};
