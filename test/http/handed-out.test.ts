// What an answer presents as a credential (src/http/handed-out.ts): hidden whatever the answer, and
// judged only where a success hands it out as a token, never by a refusal's words or a cookie.

import { describe, expect, it } from 'vitest';
import { handedOutIn } from '../../src/http/handed-out.js';

const TOKEN = 'rT7x-Qm2Lp9Zw4Kd8Nv3Hs6Bc1Yf5Gj0';
const b64 = Buffer.from(TOKEN).toString('base64');

describe('handedOutIn', () => {
  it.each([
    ['a business answer’s rotated token', 200, { result: 'ok', next: { accessToken: TOKEN } }, {}, true],
    ['a token header of a success', 200, { result: 'ok' }, { 'x-new-token': `Bearer ${TOKEN}` }, true],
    ['a token base64-encoded under a session name', 200, { session_jwt: b64 }, {}, true],
    ['a refusal’s token field', 401, { error: 'unauthorized', token: TOKEN }, {}, false],
    ['a Set-Cookie of a success', 200, {}, { 'set-cookie': `a=1; Path=/, sid=${TOKEN}; HttpOnly` }, false],
  ])('finds %s', (_what, status, json, headers, judged) => {
    expect(handedOutIn(status, json, headers)).toContainEqual({ value: TOKEN, judged });
  });

  it('takes no word for a token: token_type, error codes, cookie attributes', () => {
    const found = handedOutIn(
      200,
      { token_type: 'Bearer', error_token_hint: 'none', message: TOKEN },
      { 'set-cookie': 'lang=en; Path=/; Expires=Thu, 01 Jan 2026 00:00:00 GMT', 'x-request-id': TOKEN },
    );
    expect(found).toEqual([{ value: 'en', judged: false }]);
  });
});
