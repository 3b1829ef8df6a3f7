import { randomBytes } from 'node:crypto';
import { fail, pass, type Check } from '../src/runner/check.js';
import { cameBack, handedOutTokenNote, unauthorizedProblem, WANTS_401 } from '../src/runner/expect.js';

export const check: Check = {
  id: 'token.bad-client-id-401',
  title: 'An unknown client_id gets 401 unauthorized',
  spec: '4.1, 7',
  level: 'must',
  description: 'POST /tokens with a client_id that does not exist (and the real secret) answers 401 with `{"error":"unauthorized"}` and no token or other credential in the body.',
  async run({ http, target }) {
    const clientId = `ces-harness-unknown-${randomBytes(6).toString('hex')}`;
    const ex = await http.issueToken({ clientId, clientSecret: target.credentials.clientSecret });
    const problem = unauthorizedProblem(ex);
    if (problem) {
      const handedOut = await handedOutTokenNote(http, ex);
      const extra = handedOut ? `; ${handedOut.note}` : '';
      return fail(`${cameBack(http, ex)} for an unknown client_id (${problem}); ${WANTS_401} and no token (§4.1 rule 2)${extra}`, [http.evidence(ex), ...(handedOut ? [handedOut.evidence] : [])]);
    }
    return pass('401 {"error":"unauthorized"}', [http.evidence(ex)]);
  },
};
