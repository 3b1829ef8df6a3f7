// When POST /tokens refuses the configured credentials, every check that needs a token "fails"
// for a reason that is not the service's to fix: thirty lines blaming the service would hide the
// one thing the user must do. So the refusal becomes one "not tested" line (stage `credentials`),
// and the checks that needed an accepted client are reported as not tested because of it. The run
// stays FAIL: a service that refuses good credentials looks exactly like bad credentials from
// here, so the line names both possibilities rather than guessing.

import type { TokenExchange } from '../http/exchange.js';
import type { ServiceClient } from '../http/service-client.js';
import type { Credentials } from '../spec/credentials.js';
import type { CheckResult, Untested } from '../report/model.js';
import type { Check } from './check.js';

/** What a token endpoint answers to credentials it does not accept (§7: 401; 403 from some gateways). */
const REFUSED = new Set([401, 403]);

export interface Refusal {
  status: number;
  /** The body as a report may quote it (already redacted and cut by the service client). */
  quotedBody: string;
}

/** The refusal in the run's first POST /tokens, or undefined when it issued a token or failed otherwise. */
export function refusalOf(first: TokenExchange | undefined, quote: (ex: TokenExchange) => string): Refusal | undefined {
  if (!first || first.issued || !REFUSED.has(first.status)) return undefined;
  return { status: first.status, quotedBody: quote(first) };
}

/**
 * One call to tell a service that wants an Authorization header (against §4.1, which the checks
 * then report) from one that refuses these credentials: the same credentials, also sent as Basic.
 * Accepted → the credentials are good and the 401 was the service's finding, not the user's.
 */
export async function acceptedWithAuthorization(http: ServiceClient, credentials: Credentials): Promise<boolean> {
  const basic = Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64');
  const ex = await http
    .issueToken(credentials, { headers: { authorization: `Basic ${basic}` } })
    .catch(() => undefined);
  return ex?.issued !== undefined;
}

/** The one line: what happened, both possible causes, and what to do. */
export function refusalLine(refusal: Refusal, clientId: string, environment: string): string {
  return (
    `POST /tokens refused the configured client_id \`${clientId}\` with ${refusal.status} ${refusal.quotedBody}, so the checks that need a token were not tested; ` +
    `either the credentials are wrong or not those of ${environment}, or the service refuses valid ones: ` +
    `check CES_CLIENT_ID / CES_CLIENT_SECRET (or the config's \${VAR}s) and that they belong to ${environment}, then rerun`
  );
}

/** The stage entry every report format and the terminal show. */
export const credentialsUntested = (line: string): Untested => ({ stage: 'credentials', reason: line });

/**
 * The results with each token-dependent check that did not pass turned into "not tested" (a skip
 * naming the refusal): its fail or error said nothing about the service.
 */
export function notTestedForRefusal(
  checks: readonly Check[],
  results: readonly CheckResult[],
  refusal: Refusal,
): CheckResult[] {
  const dependent = new Set(checks.filter((c) => c.needsAcceptedCredentials).map((c) => c.id));
  return results.map((r) =>
    dependent.has(r.id) && r.status !== 'pass'
      ? {
          ...r,
          status: 'skip',
          message: `not tested: POST /tokens refused the configured credentials with ${refusal.status} (see "credentials"), so there was no token to test with`,
        }
      : r,
  );
}
