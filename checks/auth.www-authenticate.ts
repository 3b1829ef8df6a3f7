import { fail, pass, type Check } from '../src/runner/check.js';

export const check: Check = {
  id: 'auth.www-authenticate',
  title: '401 answers to bearer calls carry WWW-Authenticate: Bearer',
  spec: 'RFC 6750 §3',
  level: 'should',
  needsAcceptedCredentials: true,
  description:
    'Good practice the spec does not demand: a 401 from /tokens/validate or a business endpoint names the Bearer scheme in WWW-Authenticate.',
  async run({ http, session, business }) {
    const answers = await Promise.all([
      http.validate(undefined, await session.validateMethod()),
      http.business('evaluation', business.evaluation, 'not-a-token'),
    ]);
    const refused = answers.filter((ex) => ex.status === 401);
    const evidence = answers.map((ex) =>
      http.evidence(ex, `WWW-Authenticate: ${http.quoteHeader(ex, 'www-authenticate')}`),
    );
    if (refused.length === 0)
      return fail('no 401 came back to judge; see validate.missing-token-401 and business.invalid-token-401', evidence);
    const missing = refused.filter((ex) => !/^\s*bearer\b/i.test(ex.headers['www-authenticate'] ?? ''));
    if (missing.length)
      return fail(
        `${missing.map((ex) => ex.request).join(', ')} answered 401 without WWW-Authenticate: Bearer (RFC 6750 §3)`,
        evidence,
      );
    return pass('WWW-Authenticate: Bearer on 401', evidence);
  },
};
