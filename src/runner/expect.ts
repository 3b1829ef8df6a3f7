// Small judgements several checks share, phrased the way failure messages need them:
// what came back, what was expected, and where.

import { tokenCandidatesIn } from '../http/token-candidates.js';
import type { Exchange } from '../http/exchange.js';
import type { ServiceClient } from '../http/service-client.js';
import { errorTextOf, UNAUTHORIZED } from '../spec/error-body.js';
import type { EdgeAllowance } from '../time/expiry-edges.js';
import type { SkewBounds } from '../time/clock-skew.js';
import type { Expectations } from '../config/check-settings.js';
import { isJsonObject } from '../spec/json-object.js';
import { MAX_QUOTED_CODE } from '../spec/quotable.js';

export const WANTS_401 = '§7 wants 401 `{"error":"unauthorized"}`';

/** "POST /tokens returned 403 `{"message":"nope"}`" */
export function cameBack(http: ServiceClient, ex: Exchange): string {
  return `${ex.request} returned ${ex.status} ${http.quote(ex)}`;
}

/** Undefined when the exchange is the §7 refusal: 401 with a JSON object whose `error` is "unauthorized", and nothing it refuses. */
export function unauthorizedProblem(ex: Exchange): string | undefined {
  if (ex.status !== 401) return `status ${ex.status}`;
  const error = errorTextOf(ex.json);
  if (error === undefined)
    return isJsonObject(ex.json) ? 'a JSON body without a string `error` field' : 'a body that is not a JSON object';
  // A code is short; a longer text in its place is named by its length, never quoted (quote-body.ts).
  if (error !== UNAUTHORIZED)
    return error.length <= MAX_QUOTED_CODE
      ? `error text ${JSON.stringify(error)}`
      : `an error text of ${error.length} chars`;
  return leakProblem(ex);
}

/**
 * Undefined when a refusal hands out nothing the run knows: no client secret and no token issued
 * to this run, in any encoding, under any field or header name. Judged by value, never by name: a
 * refusal's `"error_uri": "…?token=none"` carries no credential, an `accessToken` holding the
 * working token base64-encoded does. A token the run never saw is found by trying it
 * (handedOutTokenNote). One that carries a token lets in whoever knows a client_id; one that
 * echoes the secret puts it in every log and proxy on the way.
 */
export function leakProblem(ex: Pick<Exchange, 'echoesSecret' | 'carriesIssuedToken'>): string | undefined {
  if (ex.echoesSecret) return 'a refusal that echoes the client secret';
  if (ex.carriesIssuedToken) return 'a refusal that carries a token issued to this run';
  return undefined;
}

export const CARRIES_WORKING_TOKEN = 'a refusal that carries a working token';

/**
 * Validations tried per refusal: each is one request, and a refusal hands out one token at most,
 * whole or split in two (its halves come first in the candidates, then the two joined).
 */
const MAX_TOKENS_TRIED = 4;

/**
 * A refusal that may carry a token the run never saw: does anything it carries work as one? Each
 * candidate (a long string anywhere in it, as it is or base64-decoded) is tried on
 * GET /tokens/validate; "401 with a working token" means anyone who knows a client_id gets in.
 */
export async function handedOutTokenNote(
  http: ServiceClient,
  ex: Exchange,
): Promise<{ note: string; works: boolean; evidence: ReturnType<ServiceClient['evidence']> } | undefined> {
  let refused: { note: string; works: boolean; evidence: ReturnType<ServiceClient['evidence']> } | undefined;
  for (const token of tokenCandidatesIn(ex).slice(0, MAX_TOKENS_TRIED)) {
    const check = await http.validate(token);
    // One that works is a token of this run from now on: hidden in every output, judged in every answer.
    if (isSuccess(check)) http.redactor.addToken(token);
    const evidence = http.evidence(check, 'a value the refusal carried, tried as a token');
    if (isSuccess(check)) {
      return {
        note: `the token it carried (${http.redactor.text(token)}) works: ${check.request} answered ${check.status}`,
        works: true,
        evidence,
      };
    }
    refused ??= {
      note: `the value it carried was refused as a token by ${check.request} (${check.status})`,
      works: false,
      evidence,
    };
  }
  return refused;
}

export const isSuccess = (ex: Pick<Exchange, 'status'>) => ex.status >= 200 && ex.status < 300;

/**
 * The uncertainty every time edge is judged with (src/time/expiry-edges.ts): the clock skew the
 * run measured (src/time/clock-skew.ts) when it has one, else --clock-tolerance as the worst case.
 */
export const edgeAllowance = (expect: Pick<Expectations, 'clockToleranceS'>, measured?: SkewBounds): EdgeAllowance =>
  measured ? { clockSkewS: expect.clockToleranceS, measured } : { clockSkewS: expect.clockToleranceS };
