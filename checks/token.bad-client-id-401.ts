import { randomBytes } from 'node:crypto';
import type { Check } from '../src/runner/check.js';
import { badCredentialsOutcome } from '../src/runner/bad-credentials.js';

export const check: Check = {
  id: 'token.bad-client-id-401',
  title: 'An unknown client_id gets 401 unauthorized',
  spec: '4.1, 7',
  level: 'must',
  description:
    'POST /tokens with a client_id that does not exist (and the real secret) answers 401 with `{"error":"unauthorized"}` and no token or other credential in the body.',
  async run({ http, target }) {
    const clientId = `ces-harness-unknown-${randomBytes(6).toString('hex')}`;
    const ex = await http.issueToken({ clientId, clientSecret: target.credentials.clientSecret });
    return badCredentialsOutcome(http, ex, 'an unknown client_id');
  },
};
