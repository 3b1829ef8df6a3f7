import { fail, notTested, pass, type Check } from '../src/runner/check.js';
import type { Exchange } from '../src/http/exchange.js';
import type { ServiceClient } from '../src/http/service-client.js';
import { cameBack } from '../src/runner/expect.js';
import { isJsonObject } from '../src/spec/json-object.js';
import { retryInFlight, withLiveToken } from '../src/runner/live-token.js';

export const check: Check = {
  id: 'validate.valid-token',
  title: '/tokens/validate confirms a valid token with {valid, message}',
  spec: '4.3',
  level: 'must',
  needsAcceptedCredentials: true,
  description:
    '/tokens/validate with `Authorization: Bearer <token>` and no body answers 200 `{"valid": true, "message": "<text>"}`. §4.3 leaves the method open, so GET and POST are both tried and the accepted ones reported. A 401 that reached the service within the uncertainty of the token\'s `expires_at` (a short token expiring in flight) is no finding: the check asks again with its successor.',
  async run({ http, session }) {
    // A short token may expire between the session handing it out and the service reading it.
    const { token, answers, expiredInFlight } = await withLiveToken(session, (t) =>
      Promise.all([http.validate(t.token, 'GET'), http.validate(t.token, 'POST')]),
    );
    const [get, post] = answers as [Exchange, Exchange];
    const accepted = [get, post].filter((ex) => ex.status === 200);
    const methods = accepted.map((ex) => ex.request.split(' ')[0]).join(' and ');
    const facts = { methods: methods || 'none' };
    const evidence = [get, post].map((ex) => http.evidence(ex, `token ${token.fingerprint}`));
    // Which methods validate is unproven when the answers came at the edge: no facts then.
    if (expiredInFlight) return notTested(`${expiredInFlight}; ${retryInFlight('validate.valid-token')}`, evidence);
    if (accepted.length === 0) {
      return {
        ...fail(
          `neither method validated a fresh token: ${cameBack(http, get)}; ${cameBack(http, post)}; §4.3 wants 200 {valid, message}`,
          evidence,
        ),
        facts,
      };
    }
    const problems = accepted.map((ex) => shapeProblem(http, ex)).filter((p): p is string => p !== undefined);
    if (problems.length)
      return { ...fail(`${problems.join('; ')}; §4.3 wants {"valid": true, "message": "<text>"}`, evidence), facts };
    return {
      facts,
      ...pass(
        `accepted by ${methods}; valid: true, message ${http.quoteField('message', (accepted[0]!.json as Record<string, unknown>)['message'])}`,
        evidence,
      ),
    };
  },
};

function shapeProblem(http: Pick<ServiceClient, 'quoteField'>, ex: Exchange): string | undefined {
  const body = ex.json;
  if (!isJsonObject(body)) return `${ex.request} answered 200 with a body that is not a JSON object`;
  if (body['valid'] !== true)
    return `${ex.request} answered 200 with valid = ${http.quoteField('valid', body['valid'])} for an unexpired token`;
  if (typeof body['message'] !== 'string' || body['message'].trim() === '')
    return `${ex.request} answered 200 without a text \`message\``;
  return undefined;
}
