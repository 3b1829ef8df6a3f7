import { fail, pass, skip, type Check } from '../src/runner/check.js';
import type { Evidence } from '../src/report/model.js';
import { isSuccess, unauthorizedProblem } from '../src/runner/expect.js';

export const check: Check = {
  id: 'env.credentials-isolated',
  title: "Each environment refuses the other environment's credentials",
  spec: '1, 5.6',
  level: 'must',
  needsAcceptedCredentials: true,
  description:
    'With two environments configured: POST /tokens with the credentials of one environment, sent to the other, answers 401 `{"error":"unauthorized"}`, both ways (§1: Sandbox and Production credentials are not shared).',
  async run({ target, others, http, clientFor }) {
    if (others.length === 0)
      return skip(
        'only one environment is configured; configure both Sandbox and Production under environments: to prove §1/§5.6',
      );
    const evidence: Evidence[] = [];
    const problems: string[] = [];
    // For cutover: how many cross-environment requests got a token, apart from how the refusals read.
    let accepted = 0;
    for (const other of others) {
      const otherClient = clientFor(other);
      const pairs = [
        {
          client: otherClient,
          creds: target.credentials,
          note: `${target.environment} credentials sent to ${other.environment}`,
        },
        {
          client: http,
          creds: other.credentials,
          note: `${other.environment} credentials sent to ${target.environment}`,
        },
      ];
      for (const { client, creds, note } of pairs) {
        const ex = await client.issueToken(creds);
        evidence.push(client.evidence(ex, note));
        if (isSuccess(ex)) accepted++;
        if (unauthorizedProblem(ex)) problems.push(`${note}: ${ex.status} ${client.quote(ex, 60)}`);
      }
    }
    const facts = { foreign_credentials_accepted: accepted };
    if (problems.length)
      return {
        ...fail(`${problems.join('; ')}; §1 and §5.6 want 401: credentials are per environment`, evidence),
        facts,
      };
    return {
      ...pass(`credentials refused across ${[target, ...others].map((t) => t.environment).join(' and ')}`, evidence),
      facts,
    };
  },
};
