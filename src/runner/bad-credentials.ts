// The verdict the two checks of POST /tokens with bad credentials share (token.bad-secret-401,
// token.bad-client-id-401): the §7 refusal, carrying nothing the run knows and nothing that works.

import type { Exchange } from '../http/exchange.js';
import type { ServiceClient } from '../http/service-client.js';
import { errorShapeOf } from '../spec/error-body.js';
import { fail, pass, type Outcome } from './check.js';
import { CARRIES_WORKING_TOKEN, cameBack, handedOutTokenNote, unauthorizedProblem, WANTS_401 } from './expect.js';

/**
 * The verdict on a refusal of bad credentials (`what`: "a wrong secret"): the §7 refusal, carrying
 * nothing the run knows and nothing that works as a token.
 */
export async function badCredentialsOutcome(http: ServiceClient, ex: Exchange, what: string): Promise<Outcome> {
  const handedOut = await handedOutTokenNote(http, ex);
  const problem = unauthorizedProblem(ex) ?? (handedOut?.works ? CARRIES_WORKING_TOKEN : undefined);
  // For cutover and the history: the refusal as a client's error handling reads it.
  // The quote is for people; the shape's fields are what cutover compares (an extra field is harmless).
  const shape = errorShapeOf(ex.status, ex.headers['content-type'], ex.json);
  const facts = {
    error_body: `${ex.status ?? 'no answer'} ${http.quote(ex, 60)}`,
    error_status: shape.status,
    error_media_type: shape.media_type,
    error_code: shape.error,
    error_keys: shape.keys,
  };
  if (problem === undefined) return { ...pass('401 {"error":"unauthorized"}', [http.evidence(ex)]), facts };
  const extra = handedOut ? `; ${handedOut.note}` : '';
  return {
    facts,
    ...fail(`${cameBack(http, ex)} for ${what} (${problem}); ${WANTS_401} and no token (§4.1 rule 2)${extra}`, [
      http.evidence(ex),
      ...(handedOut ? [handedOut.evidence] : []),
    ]),
  };
}
