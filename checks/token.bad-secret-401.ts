import { randomBytes } from 'node:crypto';
import type { Check } from '../src/runner/check.js';
import { badCredentialsOutcome } from '../src/runner/bad-credentials.js';

export const check: Check = {
  id: 'token.bad-secret-401',
  title: 'A wrong client_secret gets 401 unauthorized',
  spec: '4.1, 7',
  level: 'must',
  description:
    'POST /tokens with the real client_id and a wrong secret answers 401 with `{"error":"unauthorized"}`, and no token.',
  async run({ http, target }) {
    const ex = await http.issueToken({
      clientId: target.credentials.clientId,
      clientSecret: `wrong-${randomBytes(12).toString('hex')}`,
    });
    return badCredentialsOutcome(http, ex, 'a wrong secret');
  },
};
