// What each environment showed the checks, as plain data for the side-by-side comparison: every
// fact comes from a check's `facts` (or its status), so cutover compares what the same runner
// observed on each side, never a second measurement of its own. A fact is taken only from evidence
// that holds: a check that passed (or only warned), or, where the fact is the raw observation whole
// (the answer's fields, the certificate, which TLS offers were taken, a measured lifetime), a check
// that failed on it; never a failing check's partial data (validate.valid-token failing on one
// method leaves its `methods` unproven). The certificate's trust under sandbox's CA is the other
// exception: one handshake of cutover's own (cutover.ts), since no check is given sandbox's trust. The rate limit is the exception
// that proves it: its figures are the `ratelimit` command's own stage (or its stored run), and what
// production announced in headers on the checks' answers (rate-limit-facts.ts).

import type { CheckResult } from '../report/model.js';

/** What facts are read from: a check's result, fresh or as the history stored it (no message there). */
export type CheckFacts = Pick<CheckResult, 'id' | 'status' | 'facts'> & { message?: string };

export interface EnvironmentFacts {
  environment: string;
  base_url: string;
  token_format?: string;
  token_type?: string;
  lifetime_s?: number;
  /** The lifetime's measured bounds (the request's window, expires_at's rounding, the clock skew). */
  lifetime_min_s?: number;
  lifetime_max_s?: number;
  certificate_issuer?: string;
  certificate_expires?: string;
  /** The certificate's public key, type and size ("RSA 2048", "EC P-256"). */
  certificate_key?: string;
  /** The suite and TLS version a client with default settings negotiates. */
  tls_negotiated?: string;
  /** Which of TLS 1.0, 1.1, 1.2 offered alone the server took ("none" when it refused each). */
  tls_legacy_accepted?: string;
  /** Which of §5.8's three TLS 1.3 suites offered alone the server took. */
  tls_suites_accepted?: string;
  /** Which TLS 1.3 suites outside §5.8 offered alone the server took. */
  tls_other_suites_accepted?: string;
  validate_methods?: string;
  /** The 401 for a wrong secret, status and body as quoted (token.bad-secret-401). */
  error_body?: string;
  /** That refusal as a client's error handling reads it (src/spec/error-body.ts): compared field by field. */
  error_status?: number;
  error_media_type?: string;
  /** §7's `error` value, "none" when absent. */
  error_code?: string;
  /** The JSON body's top-level keys, sorted; "none" when it is no JSON object. */
  error_keys?: string;
  /** The health timestamp's form and shape (health.timestamp): a client that parses it as on sandbox. */
  health_timestamp_format?: string;
  clock_skew_s?: number;
  latency_ms?: number;
  /** Requests the burst got through before the first 429 (ratelimit.limit-enforced). */
  accepted_before_limit?: number;
  /** The rate that burst reached, which the machine sets and the count depends on (not-compared.ts). */
  offered_rps?: number;
  /** The tightest limit the answers announced, in words: "10 requests per 2 s (RateLimit-Policy)". */
  rate_limit_announced?: string;
  /** That announcement as a rate, requests per second (limit / window); absent when it names no window. */
  rate_limit_announced_rps?: number;
  /** The sustained rate a `ratelimit` probe measured, requests per second. */
  rate_limit_measured_rps?: number;
  /** The client rate the `ratelimit` command recommends, requests per second. */
  rate_limit_recommended_rps?: number;
  /** Where the measured and recommended rates come from: this run's probe, or a stored run. */
  rate_limit_source?: string;
  /** env.credentials-isolated: no when either environment issued a token for the other's credentials; absent when it did not run to a verdict. */
  credentials_isolated?: 'yes' | 'no';
  /**
   * The certificate did not verify against the trust the pass was given (system roots and the
   * environment's ca file), so no check ran: the verification code, in words, and the issuer
   * (common name) the leaf names.
   */
  certificate_untrusted?: string;
  certificate_untrusted_issuer?: string;
  /**
   * Production only: whether its chain verifies against the trust a client was given for sandbox
   * (sandbox's ca file, or the system store without one), and that trust and outcome in words.
   */
  certificate_sandbox_trust_verifies?: boolean;
  certificate_sandbox_trust?: string;
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
  | `certificate_sandbox_trust${string}`
  | `rate_limit_${string}`
>;

/**
 * Which check's which fact fills each field. A fact is taken from a check that passed or warned.
 * `observed: 'fail'`: also from one that failed, because the fact is the observation whole, not a
 * partial result (a TLS matrix case that got no answer reads as refused in its `accepted`, so an
 * errored matrix check gives none). `observed: 'any'`: whatever the check's status, since the check
 * records it only once read whole (the certificate, from a completed handshake).
 */
export const FACT_SOURCES: ReadonlyArray<{
  name: FactName;
  check: string;
  fact: string;
  label: string;
  observed?: 'fail' | 'any';
}> = [
  { name: 'token_format', check: 'token.issue', fact: 'token_format', label: 'token format' },
  { name: 'token_type', check: 'token.type-bearer', fact: 'token_type', label: 'token_type', observed: 'fail' },
  { name: 'lifetime_s', check: 'token.lifetime', fact: 'lifetime_s', label: 'token lifetime (s)', observed: 'fail' },
  {
    name: 'lifetime_min_s',
    check: 'token.lifetime',
    fact: 'lifetime_min_s',
    label: 'token lifetime, at least (s)',
    observed: 'fail',
  },
  {
    name: 'lifetime_max_s',
    check: 'token.lifetime',
    fact: 'lifetime_max_s',
    label: 'token lifetime, at most (s)',
    observed: 'fail',
  },
  {
    name: 'certificate_issuer',
    check: 'tls.certificate-valid',
    fact: 'issuer',
    label: 'certificate issuer',
    observed: 'any',
  },
  {
    name: 'certificate_expires',
    check: 'tls.certificate-valid',
    fact: 'expires',
    label: 'certificate expires',
    observed: 'any',
  },
  { name: 'certificate_key', check: 'tls.certificate-valid', fact: 'key', label: 'certificate key', observed: 'any' },
  {
    name: 'tls_negotiated',
    check: 'tls.certificate-valid',
    fact: 'negotiated',
    label: 'TLS a default client negotiates',
    observed: 'any',
  },
  {
    name: 'tls_suites_accepted',
    check: 'tls.allowed-suites-accepted',
    fact: 'accepted',
    label: 'TLS 1.3 suites of §5.8 accepted',
    observed: 'fail',
  },
  {
    name: 'tls_other_suites_accepted',
    check: 'tls.other-suites-refused',
    fact: 'accepted',
    label: 'other TLS 1.3 suites accepted',
    observed: 'fail',
  },
  {
    name: 'tls_legacy_accepted',
    check: 'tls.legacy-versions-refused',
    fact: 'accepted',
    label: 'TLS 1.0–1.2 accepted',
    observed: 'fail',
  },
  { name: 'validate_methods', check: 'validate.valid-token', fact: 'methods', label: 'validate method' },
  // The refusal as it came back: its fields are the observation, whatever the check made of them.
  ...(
    [
      ['error_body', 'error body (wrong secret)'],
      ['error_status', 'error status'],
      ['error_media_type', 'error content type'],
      ['error_code', 'error `error` value'],
      ['error_keys', 'error body keys'],
    ] as const
  ).map(([name, label]) => ({ name, check: 'token.bad-secret-401', fact: name, label, observed: 'fail' as const })),
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
  {
    name: 'offered_rps',
    check: 'ratelimit.limit-enforced',
    fact: 'offered_rps',
    label: 'that burst offered at (req/s)',
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
  for (const { name, check, fact, observed } of FACT_SOURCES) {
    const result = byId.get(check);
    const status = result?.status;
    const holds =
      status === 'pass' || status === 'warn' || observed === 'any' || (observed === 'fail' && status === 'fail');
    const value = holds ? result?.facts?.[fact] : undefined;
    if (value !== undefined) set[name] = value;
    else
      out.missing[name] = result
        ? `${check} ${result.status}${result.message ? `: ${result.message}` : ''}${status === 'fail' && !holds ? " (a failing check's partial data is not compared)" : ''}`
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
