import { randomBytes } from 'node:crypto';
import { fail, pass, type Check } from '../src/runner/check.js';
import { cameBack, handedOutTokenNote, unauthorizedProblem, WANTS_401 } from '../src/runner/expect.js';

export const check: Check = {
  id: 'token.bad-secret-401',
  title: 'A wrong client_secret gets 401 unauthorized',
  spec: '4.1, 7',
  level: 'must',
  description: 'POST /tokens with the real client_id and a wrong secret answers 401 with `{"error":"unauthorized"}`, and no token.',
  async run({ http, target }) {
    const ex = await http.issueToken({ clientId: target.credentials.clientId, clientSecret: `wrong-${randomBytes(12).toString('hex')}` });
    const problem = unauthorizedProblem(ex);
    if (problem) {
      const handedOut = await handedOutTokenNote(http, ex);
      const extra = handedOut ? `; ${handedOut.note}` : '';
      return fail(`${cameBack(http, ex)} for a wrong secret (${problem}); ${WANTS_401} and no token (§4.1 rule 2)${extra}`, [http.evidence(ex), ...(handedOut ? [handedOut.evidence] : [])]);
    }
    return pass('401 {"error":"unauthorized"}', [http.evidence(ex)]);
  },
};
