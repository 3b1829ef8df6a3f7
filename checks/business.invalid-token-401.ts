import { fail, pass, type Check } from '../src/runner/check.js';
import { unauthorizedProblem, WANTS_401 } from '../src/runner/expect.js';
import { invalidBearers } from '../src/runner/forged-tokens.js';
import { BUSINESS_ENDPOINTS } from '../src/spec/endpoints.js';

export const check: Check = {
  id: 'business.invalid-token-401',
  title: 'Business endpoints refuse malformed, unknown and forged tokens with 401',
  spec: '4.4, 5.3',
  level: 'must',
  needsAcceptedCredentials: true,
  description:
    'Each business endpoint answers 401 `{"error":"unauthorized"}` to `Bearer not-a-token`, to a random token the service never issued, and to the forgeries of the real token that validate.garbage-token-401 sends.',
  async run({ http, business, session }) {
    const real = await session.current();
    const tokens = invalidBearers(http.redactor, real.token);
    const answers = await Promise.all(
      BUSINESS_ENDPOINTS.flatMap((name) =>
        tokens.map(async (t) => ({ t, ex: await http.business(name, business[name], t.token) })),
      ),
    );
    const evidence = answers.map(({ t, ex }) => http.evidence(ex, t.name));
    const wrong = answers.filter(({ ex }) => unauthorizedProblem(ex));
    if (wrong.length) {
      return fail(
        `${wrong.map(({ t, ex }) => `${ex.request} (${t.name}) → ${ex.status} ${http.quote(ex, 60)}`).join('; ')}; ${WANTS_401}`,
        evidence,
      );
    }
    return pass(
      `all ${tokens.length} refused with 401 on both endpoints: ${tokens.map((t) => t.name).join(', ')}`,
      evidence,
    );
  },
};
