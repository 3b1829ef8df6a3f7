// Tokens of one environment: the current token of each client (§3: the one POST /tokens hands out
// again until it expires) and every token by value (to judge a bearer token). All operations are
// synchronous, which is what makes issuance safe under concurrency: no request can interleave
// between "look up the current token" and "store the new one".

import { randomBytes } from 'node:crypto';

/** One issued token. The advertised expiry and the real one are separate so a fault can split them. */
export interface TokenRecord {
  token: string;
  clientId: string;
  issuedAtMs: number;
  /** What the token response says (§2: epoch seconds). */
  expiresAtS: number;
  /** When the emulator stops accepting it; conformant: exactly expiresAtS * 1000. */
  validUntilMs: number;
}

/** Old tokens stay known (an expired token must still be recognisable), but not without bound. */
export const MAX_TOKENS = 100_000;

/** Opaque token values: 32 random bytes, base64url, as a real service would hand out. */
export const newTokenValue = (): string => randomBytes(32).toString('base64url');

export class TokenStore {
  private readonly byClient = new Map<string, TokenRecord>();
  private readonly byToken = new Map<string, TokenRecord>();

  /** `onSaved` hears every value as it is stored, before the answer carrying it is sent. */
  constructor(private readonly onSaved: (token: string) => void = () => {}) {}

  current(clientId: string): TokenRecord | undefined {
    return this.byClient.get(clientId);
  }

  /** Every token value still known, oldest first. */
  tokens(): string[] {
    return [...this.byToken.keys()];
  }

  find(token: string): TokenRecord | undefined {
    return this.byToken.get(token);
  }

  /** Makes the record its client's current token; a record reusing a value replaces the old one. */
  save(record: TokenRecord): TokenRecord {
    this.byToken.delete(record.token);
    if (this.byToken.size >= MAX_TOKENS) {
      const oldest = this.byToken.keys().next();
      if (!oldest.done) this.byToken.delete(oldest.value);
    }
    this.byToken.set(record.token, record);
    this.byClient.set(record.clientId, record);
    this.onSaved(record.token);
    return record;
  }
}
