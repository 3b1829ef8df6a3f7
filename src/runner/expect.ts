// Small judgements several checks share, phrased the way failure messages need them:
// what came back, what was expected, and where.

import type { Exchange, ServiceClient } from '../http/service-client.js';

export const WANTS_401 = '§7 wants 401 `{"error":"unauthorized"}`';

/** "POST /tokens returned 403 `{"message":"nope"}`" */
export function cameBack(http: ServiceClient, ex: Exchange): string {
  return `${ex.request} returned ${ex.status} ${http.quote(ex)}`;
}

/** Undefined when the exchange is the §7 refusal: 401 with a JSON object whose `error` is "unauthorized". */
export function unauthorizedProblem(ex: Exchange): string | undefined {
  if (ex.status !== 401) return `status ${ex.status}`;
  const body = ex.json as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'a body that is not a JSON object';
  if (typeof body['error'] !== 'string') return 'a JSON body without a string `error` field';
  if (body['error'] !== 'unauthorized') return `error text ${JSON.stringify(body['error'])}`;
  return undefined;
}

export const isSuccess = (ex: Pick<Exchange, 'status'>) => ex.status >= 200 && ex.status < 300;

export const isJsonObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
