// What a refusal could be handing out, whatever it is called: the candidates expect.ts tries as
// tokens. A conformant refusal, or one whose words only name credentials, offers none.

import { describe, expect, it } from 'vitest';
import { tokenCandidatesIn } from '../../src/http/token-candidates.js';

const TOKEN = 'Zm9vYmFyLXRva2VuLTAxMjM0NTY3ODk';
const answer = (text: string, headers: Record<string, string> = {}) => {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { text, json, headers };
};

describe('tokenCandidatesIn', () => {
  it.each([
    [
      'under another name, base64-encoded',
      answer(JSON.stringify({ error: 'unauthorized', accessToken: Buffer.from(TOKEN).toString('base64') })),
    ],
    ['deep in the JSON', answer(JSON.stringify({ error: 'unauthorized', debug: { session: [TOKEN] } }))],
    ['in a plain-text body after a name', answer(`invalid_request (debug session: access_token=${TOKEN})`)],
    ['in a cookie', answer('{"error":"unauthorized"}', { 'set-cookie': `sid=${TOKEN}; Path=/; HttpOnly` })],
    ['after a scheme in a header', answer('{"error":"unauthorized"}', { 'x-session': `Bearer ${TOKEN}` })],
    [
      'split over two fields',
      answer(JSON.stringify({ error: 'unauthorized', session: TOKEN.slice(0, 15), session_tail: TOKEN.slice(15) })),
    ],
  ])('finds a token %s', (_how, ex) => {
    // Within what a refusal's check tries (expect.ts: 4 candidates).
    expect(tokenCandidatesIn(ex).slice(0, 4)).toContain(TOKEN);
  });

  it.each([
    [
      'the §7 refusal',
      answer('{"error":"unauthorized"}', { 'content-type': 'application/json', date: 'Thu, 26 Nov 2026 16:00:00 GMT' }),
    ],
    [
      'words that only name credentials',
      answer(
        JSON.stringify({
          error: 'unauthorized',
          error_uri: 'https://docs.example/errors?token=none',
          error_description: 'client_secret=business',
        }),
      ),
    ],
  ])('offers nothing in %s', (_how, ex) => {
    expect(tokenCandidatesIn(ex)).toEqual([]);
  });
});
