// A call made with the session's working token, judged only where the token was certainly alive.
// Short tokens are used to the end of their certain life (token-session.ts `usable`), so a request
// sent a moment before expires_at can reach the service after it: its 401 is the service keeping
// §3, not refusing a valid token. Such an answer is no evidence; the call is made once more with
// the token the session holds then (its successor, once the first has expired), and if that too
// lands within the uncertainty of its edge the caller says so instead of judging.

import type { Exchange, IssuedToken } from '../http/exchange.js';
import { epochSeconds } from '../spec/expires-at.js';
import { refusalIsEarly, type EdgeAllowance } from '../time/expiry-edges.js';

export interface LiveTokenSession {
  current(): Promise<IssuedToken>;
  allowance(): EdgeAllowance;
}

export interface LiveTokenAnswers<T extends Exchange> {
  token: IssuedToken;
  answers: T[];
  /** Set when a 401 still came within the uncertainty of the token's expires_at: what to say instead of a verdict. */
  expiredInFlight?: string;
}

/**
 * `send`'s answers with a token certainly valid when the service judged them. `again: false` (on
 * production, where every call is accounted for) makes no second call: an answer at the edge is
 * then reported as such.
 */
export async function withLiveToken<T extends Exchange>(
  session: LiveTokenSession,
  send: (token: IssuedToken) => Promise<T[]>,
  { again = true }: { again?: boolean } = {},
): Promise<LiveTokenAnswers<T>> {
  for (let attempt = 0; ; attempt++) {
    const token = await session.current();
    const answers = await send(token);
    const atEdge = refusedAtEdge(token, answers, session.allowance());
    if (!atEdge) return { token, answers };
    if (!again || attempt === 1)
      return {
        token,
        answers,
        expiredInFlight: `${atEdge.request} refused token ${token.fingerprint} with 401 within the uncertainty of its expires_at ${String(token.expiresAt)}: it may have expired in flight, so nothing to judge`,
      };
  }
}

/** How to get a verdict the edge kept from a check: the token's life, not the service, was short. */
export const retryInFlight = (checkId: string): string =>
  `to test it, run it again (--only ${checkId}), or give the sandbox a token lifetime of more than a few seconds`;

/** The first 401 that came too near the token's expires_at to be held against the service. */
function refusedAtEdge<T extends Exchange>(token: IssuedToken, answers: T[], a: EdgeAllowance): T | undefined {
  const expiresAtS = epochSeconds(token.expiresAt);
  if (expiresAtS === undefined) return undefined;
  return answers.find((ex) => ex.status === 401 && !refusalIsEarly(ex, expiresAtS, a));
}
