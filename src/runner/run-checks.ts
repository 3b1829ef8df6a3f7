// Runs a list of checks against one context and turns their outcomes into CheckResults.
// Phases keep checks that disturb the service apart: `first` alone before the rest (it needs a
// client without a token yet), `main` concurrently, `last` alone after (it exhausts the limit),
// `closing` after all of them (it takes the run's length as the span it needs between two calls).

import { RateLimitedError } from '../http/rate-limit-wait.js';
import { ProductionBudgetReached, ProductionCallNotAllowed } from '../http/production-gate.js';
import type { CheckResult, Status } from '../report/model.js';
import { notTested, type Check, type CheckContext, type Outcome, type Phase } from './check.js';

// Enough that the checks waiting for expiry do not hold up the rest; few enough to stay polite.
const MAIN_CONCURRENCY = 16;

export interface RunHooks {
  onResult?: (result: CheckResult) => void;
  /** Told `<check id>: <message>` when a check could not test what was asked (Outcome.untested). */
  onUntested?: (line: string) => void;
  /**
   * Awaited before the `last` phase, whose checks pace requests past the limit and judge what
   * comes back: `run` holds them until its load beside the checks has ended (target-job.ts).
   */
  beforeLast?: () => Promise<void>;
}

export async function runChecks(
  checks: readonly Check[],
  ctx: CheckContext,
  hooks: RunHooks = {},
): Promise<CheckResult[]> {
  const results = new Map<string, CheckResult>();
  const runOne = async (check: Check) => {
    const result = await runCheck(check, ctx, hooks.onUntested);
    results.set(check.id, result);
    hooks.onResult?.(result);
  };
  const inPhase = (phase: Phase) => checks.filter((c) => (c.phase ?? 'main') === phase);

  for (const check of inPhase('first')) await runOne(check);
  await runConcurrently(inPhase('main'), MAIN_CONCURRENCY, runOne);
  await hooks.beforeLast?.();
  for (const check of inPhase('last')) await runOne(check);
  for (const check of inPhase('closing')) await runOne(check);

  // Reports list checks in catalogue order, whatever order they finished in.
  return checks.map((c) => results.get(c.id)).filter((r): r is CheckResult => r !== undefined);
}

export async function runCheck(
  check: Check,
  ctx: CheckContext,
  onUntested?: (line: string) => void,
): Promise<CheckResult> {
  const started = performance.now();
  let outcome: Outcome;
  try {
    outcome = await check.run(ctx);
  } catch (err) {
    // A request production's gate held back was never sent: nothing was observed, so no verdict.
    outcome =
      err instanceof ProductionBudgetReached || err instanceof ProductionCallNotAllowed
        ? { status: 'skip', message: err.message }
        : err instanceof RateLimitedError
          ? limitAnsweredFirst(check, err)
          : { status: 'error', message: errorMessage(err) };
  }
  const status: Status = outcome.status === 'fail' && check.level === 'should' ? 'warn' : outcome.status;
  const redact = ctx.redactor;
  // The line goes out under its stage's own "not tested:" (checks: not tested: ID: why), said once.
  if (outcome.status === 'skip' && outcome.untested)
    onUntested?.(redact.text(`${check.id}: ${outcome.message.replace(/^not tested: /, '')}`));
  return {
    id: check.id,
    title: check.title,
    spec: check.spec,
    level: check.level,
    status,
    message: redact.text(outcome.message),
    duration_ms: Math.round(performance.now() - started),
    evidence: redact.deep(outcome.evidence ?? []),
    ...(outcome.facts ? { facts: redact.deep(outcome.facts) } : {}),
  };
}

/**
 * A check whose request the rate limit still refused past the wait budget judged nothing: not
 * tested, never an error of the service (§7 lets a limit refuse; ratelimit.recovers judges whether
 * it lifts). A sandbox limited to 1 req/s, burst 2, shared by the concurrent checks, left
 * business.invalid-token-401 "errored" after 11 tries, and the conformant run FAILed (30 Nov). The
 * checks now take turns in the limit (limit-pacer.ts); what still waits past --limit-wait lands here.
 */
function limitAnsweredFirst(check: Check, err: RateLimitedError): Outcome {
  return notTested(
    `${err.message}; not judged (the rate limit answered first; the checks share it and take turns in it): --limit-wait S (rate_limit.limit_wait_s) waits longer, \`ces-harness check --only ${check.id}\` gives it the limit to itself`,
  );
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as Error & { cause?: { code?: string; message?: string } }).cause;
    const code = (err as NodeJS.ErrnoException).code ?? cause?.code;
    return code ? `${err.message} (${code})` : err.message;
  }
  return String(err);
}

async function runConcurrently<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** --only / --skip: exact ids, or a prefix ending in `*` (e.g. `tls.*`). Unknown names are errors. */
export function selectChecks(
  all: readonly Check[],
  only: string[],
  skipped: string[],
): { selected: Check[]; unknown: string[] } {
  const matches = (pattern: string, id: string) =>
    pattern.endsWith('*') ? id.startsWith(pattern.slice(0, -1)) : id === pattern;
  const unknown = [...only, ...skipped].filter((p) => !all.some((c) => matches(p, c.id)));
  const selected = all.filter(
    (c) => (only.length === 0 || only.some((p) => matches(p, c.id))) && !skipped.some((p) => matches(p, c.id)),
  );
  return { selected, unknown };
}
