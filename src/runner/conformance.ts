// The conformance stage: one context, the selected checks, and the ledger kept up to date.

import type { Redactor } from '../http/redact.js';
import type { CheckResult } from '../report/model.js';
import type { Check } from './check.js';
import { createContext, type ContextInput } from './context.js';
import type { TransportSeen } from '../http/exchange.js';
import { runChecks } from './run-checks.js';
import { acceptedWithAuthorization, notTestedForRefusal, refusalLine, refusalOf } from './credentials-refused.js';

export interface ConformanceInput extends ContextInput {
  checks: readonly Check[];
  /** Shared with the terminal and the report writer, so they know every secret and token too. */
  redactor: Redactor;
  onResult?: (result: CheckResult) => void;
  /** Told a line for each check that could not test what was asked (Outcome.untested). */
  onUntested?: (line: string) => void;
  /** Told the one line when POST /tokens refused the configured credentials (credentials-refused.ts). */
  onCredentialsRefused?: (line: string) => void;
  /** Told, once the checks are done, how their requests travelled (HTTP version, content codings). */
  onTransport?: (seen: TransportSeen) => void;
  /** Awaited before the checks that pace requests past the limit (RunHooks.beforeLast). */
  beforeLast?: () => Promise<void>;
}

export async function runConformance(input: ConformanceInput): Promise<CheckResult[]> {
  const { ctx, close, transportSeen } = createContext(input);
  try {
    const ran = await runChecks(input.checks, ctx, {
      ...(input.onResult ? { onResult: input.onResult } : {}),
      ...(input.onUntested ? { onUntested: input.onUntested } : {}),
      ...(input.beforeLast ? { beforeLast: input.beforeLast } : {}),
    });
    input.onTransport?.(transportSeen());
    // Every token this run was handed goes into the ledger, so a later run can prove its expiry.
    input.ledger.recordIssued(input.target, ctx.session.issuedTokens(), ctx.now());
    input.ledger.save(ctx.now());
    const refusal = refusalOf(await ctx.session.firstIssueIfAsked()?.catch(() => undefined), (ex) =>
      ctx.http.quote(ex),
    );
    // A service that wants an Authorization header (its own §4.1 finding) refuses good credentials
    // too: only when the same credentials also fail with one is the refusal the user's to fix.
    if (!refusal || (await acceptedWithAuthorization(ctx.http, input.target.credentials))) return ran;
    input.onCredentialsRefused?.(refusalLine(refusal, input.target.credentials.clientId, input.target.environment));
    return notTestedForRefusal(input.checks, ran, refusal);
  } finally {
    await close();
  }
}
