import { fail, pass, skip, type Check } from '../src/runner/check.js';
import { isSuccess } from '../src/runner/expect.js';

export const check: Check = {
  id: 'health.plain-text',
  title: 'The health check answers a text message, not a JSON object',
  spec: '4.2',
  level: 'must',
  description:
    'The health check body is one non-empty text message, not a JSON object or array with named fields (§4.2).',
  async run({ http }) {
    const ex = await http.healthCheck();
    if (!isSuccess(ex)) return skip(`the health check answered ${ex.status}; see health.no-credentials`);
    const evidence = [http.evidence(ex, `Content-Type ${http.quoteHeader(ex, 'content-type')}`)];
    if (ex.text.trim() === '')
      return fail('the health check answered an empty body; §4.2 wants a text message with a timestamp', evidence);
    if (ex.json !== null && typeof ex.json === 'object') {
      return fail(
        `the health check answered JSON with named fields ${http.quote(ex)}; §4.2 says it is a single text message, not a JSON object`,
        evidence,
      );
    }
    return pass(`text: ${http.quote(ex)}`, evidence);
  },
};
