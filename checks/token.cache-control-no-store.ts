import { fail, pass, skip, type Check } from '../src/runner/check.js';

export const check: Check = {
  id: 'token.cache-control-no-store',
  title: 'Token responses are not cacheable (Cache-Control: no-store)',
  spec: 'RFC 6749 §5.1',
  level: 'should',
  needsAcceptedCredentials: true,
  description:
    'Good practice the spec does not demand: the POST /tokens answer that carries a token has `Cache-Control: no-store`, so no proxy or browser keeps the token.',
  async run({ http, session }) {
    const ex = await session.firstIssue();
    if (!ex.issued) return skip(`no token was issued (POST /tokens answered ${ex.status}); see token.issue`);
    const value = ex.headers['cache-control'];
    const evidence = [http.evidence(ex, `Cache-Control: ${value ?? '(absent)'}`)];
    if (!value || !/\bno-store\b/i.test(value))
      return fail(
        `the token response has Cache-Control ${value ? http.quoteHeader(ex, 'cache-control') : 'absent'}; RFC 6749 §5.1 wants no-store`,
        evidence,
      );
    return pass(`Cache-Control: ${value}`, evidence);
  },
};
