import { fail, pass, skip, type Check } from '../src/runner/check.js';

export const check: Check = {
  id: 'token.type-bearer',
  title: 'token_type is exactly "Bearer"',
  spec: '2',
  level: 'must',
  needsAcceptedCredentials: true,
  description: 'The `token_type` of an issued token is the string `Bearer`, exactly (§2: always `Bearer`).',
  async run({ http, session }) {
    const ex = await session.firstIssue();
    if (!ex.issued) return skip(`no token was issued (POST /tokens answered ${ex.status}); see token.issue`);
    const type = ex.issued.tokenType;
    const facts = { token_type: type === undefined ? 'missing' : http.quoteField('token_type', type) };
    if (type !== 'Bearer')
      return { ...fail(`token_type is ${facts.token_type}; §2 wants exactly "Bearer"`, [http.evidence(ex)]), facts };
    return { ...pass('token_type "Bearer"', [http.evidence(ex)]), facts };
  },
};
