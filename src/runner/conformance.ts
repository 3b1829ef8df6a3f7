// The conformance stage: one context, the selected checks, and the ledger kept up to date.

import type { Target } from '../config/target.js';
import type { Redactor } from '../http/redact.js';
import type { CheckResult } from '../report/model.js';
import type { BusinessCall, Check, Expectations, RateLimitSettings } from './check.js';
import { createContext } from './context.js';
import type { Ledger } from './ledger.js';
import { runChecks } from './run-checks.js';
import { epochSeconds } from './token-session.js';

export interface ConformanceInput {
  target: Target;
  others: Target[];
  expect: Expectations;
  business: Record<'evaluation' | 'ach_transactions', BusinessCall>;
  rateLimit: RateLimitSettings;
  ledger: Ledger;
  checks: readonly Check[];
  redactor: Redactor;
  progress?: (message: string) => void;
  onResult?: (result: CheckResult) => void;
  signal?: AbortSignal;
}

export async function runConformance(input: ConformanceInput): Promise<CheckResult[]> {
  const { ctx, close } = createContext(input);
  try {
    const results = await runChecks(input.checks, ctx, input.onResult ? { onResult: input.onResult } : {});
    // Every token this run was handed goes into the ledger, so a later run can prove its expiry.
    for (const issued of ctx.session.issuedTokens()) {
      const expiresAt = epochSeconds(issued.expiresAt);
      if (expiresAt !== undefined) input.ledger.record(input.target, issued.token, expiresAt, ctx.now());
    }
    input.ledger.save(ctx.now());
    return results;
  } finally {
    await close();
  }
}
