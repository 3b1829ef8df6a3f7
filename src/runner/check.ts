// What a conformance check is, and what it gets to work with. A check is a file in checks/ that
// exports one `Check`; it sends requests through the context and returns an Outcome (plain data).
// It never prints and never touches the report folder.

import type { Evidence, Level } from '../report/model.js';
import type { ServiceClient } from '../http/service-client.js';
import type { Redactor } from '../http/redact.js';
import type { Expectations, ProductionSettings, RateLimitSettings } from '../config/check-settings.js';
import type { Target } from '../config/target.js';
import type { BusinessCalls } from '../spec/endpoints.js';
import type { TokenSession } from './token-session.js';
import type { Ledger } from './ledger.js';

export interface Outcome {
  /** A failed `should` check is turned into `warn` by the runner. */
  status: 'pass' | 'fail' | 'skip' | 'error';
  message: string;
  evidence?: Evidence[];
  /** What the run history compares with the next run (see CheckResult.facts). */
  facts?: Record<string, string | number>;
  /**
   * On a skip: the harness could not test what was asked (no limit met below its ceiling, a
   * Retry-After past its wait budget). Never the service's failure, but the run says "not tested"
   * and exits 1, as for any stage that could not test (README, exit codes).
   */
  untested?: true;
}

/**
 * When a check runs. `first` runs alone before everything else (it needs a service that has not
 * handed this client a token in this run yet); `last` runs alone after everything else (it
 * exhausts the rate limit); `closing` runs after `last` (it compares what the service says at the
 * end of the run with what it said at its start, so the run's own length is its time span and
 * no check has to wait for one); the rest run concurrently.
 */
export type Phase = 'first' | 'main' | 'last' | 'closing';

export interface Check {
  /** Stable id, also the filename in checks/ and the value of --only/--skip. */
  id: string;
  title: string;
  /** Section (and item) of service-spec.md, or the RFC for a `should` check. */
  spec: string;
  level: Level;
  /** One or two sentences for the README table: what it sends and what it wants back. */
  description: string;
  /**
   * Judged only once POST /tokens accepts the configured credentials (it needs their token, judges
   * that answer, or leans on it): when they are refused, a non-pass here is "not tested", not the service's fault.
   */
  needsAcceptedCredentials?: true;
  phase?: Phase;
  run(ctx: CheckContext): Promise<Outcome>;
}

export interface CheckContext {
  target: Target;
  /** The other configured environments (for the credential-isolation checks). */
  others: Target[];
  expect: Expectations;
  business: BusinessCalls;
  /** What production may receive; the HTTP clients enforce it (src/http/production-gate.ts). */
  production: ProductionSettings;
  rateLimit: RateLimitSettings;
  /** The client for the target: timeouts, body caps, no redirects, 429 waited out, redaction. */
  http: ServiceClient;
  /** A client for another environment (same safety rules). */
  clientFor(target: Target): ServiceClient;
  /** Tokens shared between checks, and the one in-process wait for expiry. */
  session: TokenSession;
  ledger: Ledger;
  /** The run's redactor, which the clients share: every result passes through it. */
  redactor: Redactor;
  /** Milliseconds since the epoch; a function so tests can move time. */
  now(): number;
  sleep(ms: number): Promise<void>;
  /** Says what a long wait is waiting for (the terminal shows it as progress). */
  progress(message: string): void;
  signal: AbortSignal;
}

export const pass = (message: string, evidence: Evidence[] = []): Outcome => ({ status: 'pass', message, evidence });
export const fail = (message: string, evidence: Evidence[] = []): Outcome => ({ status: 'fail', message, evidence });
export const skip = (message: string, evidence: Evidence[] = []): Outcome => ({ status: 'skip', message, evidence });
/** A skip because the harness could not test what was asked (Outcome.untested). */
export const notTested = (message: string, evidence: Evidence[] = []): Outcome => ({
  status: 'skip',
  message: `not tested: ${message}`,
  evidence,
  untested: true,
});
