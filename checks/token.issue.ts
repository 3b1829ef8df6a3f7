import type { ServiceClient } from '../src/http/service-client.js';
import { fail, pass, type Check } from '../src/runner/check.js';
import { cameBack, isSuccess } from '../src/runner/expect.js';
import { isJsonObject } from '../src/spec/json-object.js';
import { jwtFormat } from '../src/http/jwt.js';
import { unsendableInHeader } from '../src/spec/bearer-value.js';

export const check: Check = {
  id: 'token.issue',
  title: 'POST /tokens issues a token with the fields of §2',
  spec: '4.1',
  level: 'must',
  needsAcceptedCredentials: true,
  description:
    'POST /tokens with the nested `{"token":{"client_id","client_secret"}}` body and valid credentials answers 2xx with a JSON object: `token` a non-empty string an Authorization header can carry (no control characters), `expires_at` an integer, `token_type` a string.',
  async run({ http, session }) {
    const ex = await session.firstIssue();
    if (!isSuccess(ex))
      return fail(`${cameBack(http, ex)}; §4.1 wants a token for valid credentials`, [http.evidence(ex)]);
    const body = ex.json;
    if (!isJsonObject(body))
      return fail(`${cameBack(http, ex)}: not a JSON object; §4.1 wants {token, expires_at, token_type}`, [
        http.evidence(ex),
      ]);
    const problems: string[] = [];
    if (typeof body['token'] !== 'string' || body['token'] === '')
      problems.push(`token is ${describe(http, 'token', body['token'])}, not a non-empty string`);
    const unsendable = typeof body['token'] === 'string' ? unsendableInHeader(body['token']) : [];
    if (unsendable.length)
      problems.push(
        `token holds ${unsendable.join(', ')}, which no Authorization header can carry (§5.3; RFC 9110 §5.5 allows no control characters in a header)`,
      );
    if (typeof body['expires_at'] !== 'number' || !Number.isInteger(body['expires_at']))
      problems.push(`expires_at is ${describe(http, 'expires_at', body['expires_at'])}, not an integer`);
    if (typeof body['token_type'] !== 'string')
      problems.push(`token_type is ${describe(http, 'token_type', body['token_type'])}, not a string`);
    // §2 leaves the format open; saying that it is a JWT explains the token's length and dots.
    const format = ex.issued ? jwtFormat(ex.issued.token) : undefined;
    const named = ex.issued ? `token ${ex.issued.fingerprint}${format ? `, token format: ${format}` : ''}` : undefined;
    const evidence = [http.evidence(ex, named)];
    if (problems.length) return fail(`POST /tokens answered ${ex.status} but ${problems.join('; ')} (§2)`, evidence);
    // For cutover and the history: an opaque sandbox token and a JWT production one differ in size and parsing.
    return {
      ...pass(
        `${named!}, expires_at ${http.quoteField('expires_at', body['expires_at'])}, token_type ${http.quoteField('token_type', body['token_type'])}`,
        evidence,
      ),
      facts: { token_format: format ?? 'opaque' },
    };
  },
};

/** What came back in a field, as an output may show it (quote-body.ts): an object's nested values as their shapes. */
function describe(http: Pick<ServiceClient, 'quoteField'>, field: string, v: unknown): string {
  if (v === undefined) return 'missing';
  return `${http.quoteField(field, v)} (${v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v})`;
}
