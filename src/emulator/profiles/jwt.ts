// Tokens as JSON Web Tokens (RFC 7519), the way many identity providers and API gateways hand them
// out: an HS256 header, the claims sub/iat/exp/jti and an HMAC-SHA256 signature with a key of the
// emulator's own. §2 only asks for a string, and §3 still holds: the same token until it expires,
// with exp equal to expires_at. A bearer is accepted only with a signature made with that key and
// only if it was handed out (as a service with revocation or a token table does).

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { encodeSegment, parseJwt } from '../../http/jwt.js';
import { defineProfile } from './types.js';

const HEADER = encodeSegment({ alg: 'HS256', typ: 'JWT' });

const sign = (key: Buffer, signingInput: string): Buffer => createHmac('sha256', key).update(signingInput).digest();

function signatureHolds(key: Buffer, token: string): boolean {
  const jwt = parseJwt(token);
  if (jwt === undefined || jwt.header['alg'] !== 'HS256') return false;
  const [header, claims, signature] = jwt.segments;
  const want = sign(key, `${header}.${claims}`);
  const given = Buffer.from(signature, 'base64url');
  return given.length === want.length && timingSafeEqual(given, want);
}

export const profile = defineProfile({
  name: 'jwt',
  description:
    'tokens are HS256-signed JWTs (claims sub, iat, exp = expires_at, jti), as identity providers and gateways issue them',
  override: () => {
    // One key per emulator: this runs once when the emulator's behaviour is composed.
    const key = randomBytes(32);
    return {
      tokenValue: (ctx, clientId, expiresAtS) => {
        const claims = encodeSegment({
          sub: clientId,
          iat: Math.floor(ctx.now / 1000),
          exp: expiresAtS,
          jti: randomBytes(16).toString('base64url'),
        });
        return `${HEADER}.${claims}.${sign(key, `${HEADER}.${claims}`).toString('base64url')}`;
      },
      findToken: (ctx, value) => (signatureHolds(key, value) ? ctx.env.store.find(value) : undefined),
    };
  },
});
