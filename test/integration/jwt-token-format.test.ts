// `check` says when tokens are JWTs (their algorithm only) and judges a JWT's entropy by its
// signature; neither the claims nor the signature appear anywhere in the results.

import { describe, expect, it } from 'vitest';
import { checkEmulator } from '../helpers/conformance.js';
import { encodeSegment } from '../../src/http/jwt.js';

// Every claims segment the jwt profile writes starts with this: `{"sub":` in base64url.
const CLAIMS_START = encodeSegment({ sub: '' }).slice(0, 8);

describe('check against the jwt profile', () => {
  it('names the format in token.issue, judges the signature in token.entropy, shows no claim', async () => {
    const results = await checkEmulator({ profiles: ['jwt'], only: ['token.issue', 'token.entropy'] });
    const byId = Object.fromEntries(results.map((r) => [r.id, r]));
    expect(byId['token.issue']).toMatchObject({
      status: 'pass',
      message: expect.stringContaining('token format: JWT (HS256)'),
    });
    expect(byId['token.entropy']).toMatchObject({
      status: 'pass',
      message: expect.stringMatching(/^JWT signature: 43 characters, \d+ distinct, about 2\d\d bits$/),
    });
    expect(JSON.stringify(results)).not.toContain(CLAIMS_START);
  });

  it('says nothing about a format for opaque tokens', async () => {
    const results = await checkEmulator({ only: ['token.issue'] });
    expect(results[0]?.message).not.toContain('format');
  });
});
