// What each environment showed the checks, as plain data for the side-by-side comparison: every
// fact comes from a check's `facts` (or its status), so cutover compares what the same runner
// observed on each side, never a second measurement of its own.

import type { CheckResult } from '../report/model.js';

/** What facts are read from: a check's result, fresh or as the history stored it (no message there). */
export type CheckFacts = Pick<CheckResult, 'id' | 'status' | 'facts'> & { message?: string };

export interface EnvironmentFacts {
  environment: string;
  base_url: string;
  token_format?: string;
  token_type?: string;
  lifetime_s?: number;
  certificate_issuer?: string;
  certificate_expires?: string;
  /** The suite and TLS version a client with default settings negotiates. */
  tls_negotiated?: string;
  validate_methods?: string;
  /** The 401 for a wrong secret, status and body as quoted (token.bad-secret-401). */
  error_body?: string;
  /** The health timestamp's form and shape (health.timestamp): a client that parses it as on sandbox. */
  health_timestamp_format?: string;
  clock_skew_s?: number;
  latency_ms?: number;
  /** Requests the burst got through before the first 429 (ratelimit.limit-enforced). */
  accepted_before_limit?: number;
  /** env.credentials-isolated: no when either environment issued a token for the other's credentials; absent when it did not run to a verdict. */
  credentials_isolated?: 'yes' | 'no';
  /**
   * The certificate did not verify against the trust the pass was given (system roots and the
   * environment's ca file), so no check ran: the verification code, in words, and the issuer
   * (common name) the leaf names.
   */
  certificate_untrusted?: string;
  certificate_untrusted_issuer?: string;
  /** Why a check that would give a fact gave none (its skip or error message), by fact name. */
  missing: Record<string, string>;
}

type FactName = Exclude<
  keyof EnvironmentFacts,
  | 'environment'
  | 'base_url'
  | 'missing'
  | 'credentials_isolated'
  | 'certificate_untrusted'
  | 'certificate_untrusted_issuer'
>;

/** Which check's which fact fills each field. */
export const FACT_SOURCES: ReadonlyArray<{ name: FactName; check: string; fact: string; label: string }> = [
  { name: 'token_format', check: 'token.issue', fact: 'token_format', label: 'token format' },
  { name: 'token_type', check: 'token.type-bearer', fact: 'token_type', label: 'token_type' },
  { name: 'lifetime_s', check: 'token.lifetime', fact: 'lifetime_s', label: 'token lifetime (s)' },
  { name: 'certificate_issuer', check: 'tls.certificate-valid', fact: 'issuer', label: 'certificate issuer' },
  { name: 'certificate_expires', check: 'tls.certificate-valid', fact: 'expires', label: 'certificate expires' },
  {
    name: 'tls_negotiated',
    check: 'tls.certificate-valid',
    fact: 'negotiated',
    label: 'TLS a default client negotiates',
  },
  { name: 'validate_methods', check: 'validate.valid-token', fact: 'methods', label: 'validate method' },
  { name: 'error_body', check: 'token.bad-secret-401', fact: 'error_body', label: 'error body (wrong secret)' },
  {
    name: 'health_timestamp_format',
    check: 'health.timestamp',
    fact: 'timestamp_format',
    label: 'health timestamp format',
  },
  { name: 'clock_skew_s', check: 'health.timestamp', fact: 'clock_skew_s', label: 'clock skew (s)' },
  {
    name: 'latency_ms',
    check: 'business.valid-token-accepted',
    fact: 'latency_ms',
    label: 'business latency from here (ms)',
  },
  {
    name: 'accepted_before_limit',
    check: 'ratelimit.limit-enforced',
    fact: 'accepted_before_limit',
    label: 'requests before the first 429',
  },
];

export function environmentFacts(
  environment: string,
  baseUrl: string,
  checks: readonly CheckFacts[],
): EnvironmentFacts {
  const byId = new Map(checks.map((c) => [c.id, c]));
  const out: EnvironmentFacts = { environment, base_url: baseUrl, missing: {} };
  const set = out as unknown as Record<string, unknown>;
  for (const { name, check, fact } of FACT_SOURCES) {
    const result = byId.get(check);
    const value = result?.facts?.[fact];
    if (value !== undefined) set[name] = value;
    else
      out.missing[name] = result
        ? `${check} ${result.status}${result.message ? `: ${result.message}` : ''}`
        : `${check} did not run`;
  }
  // Whether a token came back for the other environment's credentials: a refusal with the wrong
  // body is the error-body finding's, not a leak between environments.
  const isolated = byId.get('env.credentials-isolated');
  const accepted = isolated?.facts?.['foreign_credentials_accepted'];
  if (typeof accepted === 'number') out.credentials_isolated = accepted === 0 ? 'yes' : 'no';
  else if (isolated?.status === 'pass') out.credentials_isolated = 'yes';
  else
    out.missing['credentials_isolated'] = isolated
      ? `env.credentials-isolated ${isolated.status}${isolated.message ? `: ${isolated.message}` : ''}`
      : 'env.credentials-isolated did not run';
  return out;
}
