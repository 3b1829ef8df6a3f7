import { fail, pass, type Check } from '../src/runner/check.js';
import { cameBack, isSuccess } from '../src/runner/expect.js';

export const check: Check = {
  id: 'token.no-authorization-needed',
  title: 'POST /tokens needs no Authorization header',
  spec: '4.1',
  level: 'must',
  needsAcceptedCredentials: true,
  description:
    'POST /tokens sent with only `Content-Type: application/json` and the credentials in the body, no Authorization header, is answered with a token.',
  async run({ http }) {
    // Sent on its own rather than reusing another check's call, so the evidence shows exactly
    // which headers went out.
    const ex = await http.issueToken(undefined, { headers: { 'content-type': 'application/json' } });
    const evidence = [http.evidence(ex, 'headers sent: Content-Type, Accept; no Authorization')];
    if (!isSuccess(ex) || !ex.issued)
      return fail(`${cameBack(http, ex)} without an Authorization header; §4.1 says none is needed`, evidence);
    return pass('token issued without an Authorization header', evidence);
  },
};
