// Tokens live 2 s instead of 24 h, so they expire while the client is working. There are no refresh
// tokens (§3, §5.1): the client must notice (expires_at, or a 401) and fetch a new one.

import { defineScenario } from './types.js';

/** Short enough to expire within a client run of a few seconds, long enough for several calls per token. */
export const SHORT_TOKEN_TTL_S = 2;

export const scenario = defineScenario({
  name: 'short-token-lifetime',
  spec: '§3, §5.4, §5.5, §7',
  description: `tokens expire after ${SHORT_TOKEN_TTL_S} s, mid-run: the client must fetch a new one and carry on`,
  tokenTtlS: SHORT_TOKEN_TTL_S,
});
