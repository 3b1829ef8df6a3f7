// Small judgements several checks share, phrased the way failure messages need them:
// what came back, what was expected, and where.

import { credentialFieldsIn, credentialHeadersIn, tokenIn } from '../http/credential-fields.js';
import { credentialsInText } from '../http/redact/structure.js';
import type { Exchange } from '../http/exchange.js';
import type { ServiceClient } from '../http/service-client.js';
import { errorTextOf, UNAUTHORIZED } from '../spec/error-body.js';
import type { EdgeAllowance } from '../time/expiry-edges.js';
import type { SkewBounds } from '../time/clock-skew.js';
import type { Expectations } from '../config/check-settings.js';
import { isJsonObject } from '../spec/json-object.js';

export const WANTS_401 = '§7 wants 401 `{"error":"unauthorized"}`';

/** "POST /tokens returned 403 `{"message":"nope"}`" */
export function cameBack(http: ServiceClient, ex: Exchange): string {
  return `${ex.request} returned ${ex.status} ${http.quote(ex)}`;
}

/** Undefined when the exchange is the §7 refusal: 401 with a JSON object whose `error` is "unauthorized", and nothing it refuses. */
export function unauthorizedProblem(ex: Exchange): string | undefined {
  if (ex.status !== 401) return `status ${ex.status}`;
  const error = errorTextOf(ex.json);
  if (error === undefined) return isJsonObject(ex.json) ? 'a JSON body without a string `error` field' : 'a body that is not a JSON object';
  if (error !== UNAUTHORIZED) return `error text ${JSON.stringify(error)}`;
  return leakProblem(ex);
}

/**
 * Undefined when a refusal hands out nothing: no credential-carrying field or header, and no
 * client secret in any form. A refusal that carries a token lets in whoever knows a client_id; one
 * that echoes the secret puts it in every log and proxy on the way.
 */
export function leakProblem(ex: Pick<Exchange, 'json' | 'text' | 'headers' | 'echoesSecret'>): string | undefined {
  const carried = [...credentialFieldsIn(ex.json), ...credentialHeadersIn(ex.headers)];
  if (carried.length) return `a refusal that also carries ${carried.map((f) => `\`${f.path}\``).join(', ')}`;
  if (ex.echoesSecret) return 'a refusal that echoes the client secret';
  // A body that is not JSON, or hides one in a string, can still hand out `access_token=…`.
  if (credentialsInText(ex.text).length) return 'a refusal whose body carries a credential';
  return undefined;
}


/**
 * A refusal that carried a token: does that token work? Said in the failure, because "401 with a
 * working token" means anyone who knows a client_id gets in.
 */
export async function handedOutTokenNote(http: ServiceClient, ex: Exchange): Promise<{ note: string; evidence: ReturnType<ServiceClient['evidence']> } | undefined> {
  const token = tokenIn(ex.json);
  if (token === undefined) return undefined;
  const check = await http.validate(token);
  const works = check.status >= 200 && check.status < 300;
  return {
    note: works ? `the token it carried (${http.redactor.text(token)}) works: ${check.request} answered ${check.status}` : `the token it carried was refused by ${check.request} (${check.status})`,
    evidence: http.evidence(check, 'the token the refusal carried'),
  };
}

export const isSuccess = (ex: Pick<Exchange, 'status'>) => ex.status >= 200 && ex.status < 300;


/**
 * The uncertainty every time edge is judged with (src/time/expiry-edges.ts): the clock skew the
 * run measured (src/time/clock-skew.ts) when it has one, else --clock-tolerance as the worst case.
 */
export const edgeAllowance = (expect: Pick<Expectations, 'clockToleranceS'>, measured?: SkewBounds): EdgeAllowance =>
  measured ? { clockSkewS: expect.clockToleranceS, measured } : { clockSkewS: expect.clockToleranceS };
