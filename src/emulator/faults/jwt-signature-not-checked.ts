// A JWT service that decodes the bearer and trusts its claims without checking the signature (or
// honours `alg: none`): anyone who has seen one token can mint their own. Meant with --profile jwt;
// without it no token is a JWT and nothing changes.

import { parseJwt } from '../../http/jwt.js';
import type { Ctx } from '../types.js';
import type { TokenRecord } from '../token-store.js';
import { defineFault } from './types.js';

/** The record a JWT's own claims describe, when they name a client of this environment and an expiry. */
function fromClaims(ctx: Ctx, value: string): TokenRecord | undefined {
  const claims = parseJwt(value)?.claims;
  const { sub, iat, exp } = claims ?? {};
  const clients = [ctx.env.credentials, ...ctx.env.otherClients].map((c) => c.clientId);
  if (typeof sub !== 'string' || !clients.includes(sub) || typeof exp !== 'number') return undefined;
  return {
    token: value,
    clientId: sub,
    issuedAtMs: typeof iat === 'number' ? iat * 1000 : ctx.now,
    expiresAtS: exp,
    validUntilMs: exp * 1000,
  };
}

export const fault = defineFault({
  name: 'jwt-signature-not-checked',
  spec: '§4.3, §4.4, §5.3',
  description:
    'with --profile jwt: any well-formed JWT whose claims name a client and a future exp is accepted, whatever its signature or alg (breaks §4.3, §4.4, §5.3)',
  override: (base) => ({
    findToken: (ctx, value) => base.findToken(ctx, value) ?? fromClaims(ctx, value),
  }),
});
