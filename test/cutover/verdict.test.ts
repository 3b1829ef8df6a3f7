// The readiness verdict as a pure function: each rule's boundary, and that a missing fact is
// "not tested" with the reason, never READY.

import { describe, expect, it } from 'vitest';
import type { EnvironmentFacts } from '../../src/cutover/facts.js';
import { cutoverVerdict, type VerdictContext } from '../../src/cutover/verdict.js';

const NOW = Date.parse('2026-11-26T12:00:00Z');
const facts = (environment: string, over: Partial<EnvironmentFacts> = {}): EnvironmentFacts => ({
  environment,
  base_url: `https://${environment}.example.test`,
  token_format: 'opaque',
  token_type: '"Bearer"',
  lifetime_s: 86_400,
  certificate_issuer: 'CN=Example CA (sha256 aa)',
  certificate_expires: '2027-06-01',
  tls_negotiated: 'TLS_AES_256_GCM_SHA384 (TLSv1.3)',
  validate_methods: 'GET and POST',
  error_body: '401 {"error":"unauthorized"}',
  health_timestamp_format: 'ISO 8601 d-d-d d:d:d UTC',
  clock_skew_s: 0.2,
  latency_ms: 30,
  accepted_before_limit: 100,
  certificate_key: 'EC P-256',
  tls_suites_accepted: 'TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384, TLS_CHACHA20_POLY1305_SHA256',
  tls_other_suites_accepted: 'none',
  tls_legacy_accepted: 'none',
  // Production's limit measured, sandbox's recommendation: each side has both, as after two probes.
  rate_limit_measured_rps: 50,
  rate_limit_recommended_rps: 40,
  credentials_isolated: 'yes',
  missing: {},
  ...over,
});
const ctx: VerdictContext = { windowDays: 14, nowMs: NOW, productionLoadAllowed: true, passesUntested: [] };

describe('cutoverVerdict', () => {
  it('READY when the pair matches', () => {
    const v = cutoverVerdict(facts('production'), facts('sandbox'), ctx);
    expect(v).toMatchObject({ verdict: 'READY', breaking: [], differences: [], not_tested: [] });
  });

  it.each([
    {
      finding: 'rate-limit',
      production: { rate_limit_measured_rps: 39.9 },
      line: /^production's rate limit, measured at 39.9 req\/s, is below the 40 req\/s recommended on sandbox: a client paced for sandbox will get 429s on production$/,
    },
    {
      finding: 'rate-limit',
      production: {
        rate_limit_measured_rps: undefined,
        rate_limit_announced: '10 requests per 2 s (RateLimit-Policy)',
        rate_limit_announced_rps: 5,
      },
      line: /^production's rate limit, announced as 10 requests per 2 s \(RateLimit-Policy\) \(5 req\/s; announced, not measured\), is below the 40 req\/s/,
    },
    {
      finding: 'tls-suites',
      production: { tls_suites_accepted: 'TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384' },
      line: /^production refuses TLS_CHACHA20_POLY1305_SHA256 offered alone with TLS 1.3, which sandbox accepts and §5.8 promises/,
    },
    {
      finding: 'certificate-ca',
      production: { certificate_issuer: 'CN=Other CA (sha256 bb)' },
      line: /issued by CN=Other CA/,
    },
    {
      finding: 'certificate-expiry',
      production: { certificate_expires: '2026-12-09' },
      line: /\(12 days\), within the 14-day/,
    },
    { finding: 'token-lifetime', production: { lifetime_s: 3_600 }, line: /live 3600 s, sandbox's 86400 s/ },
    {
      finding: 'validate-method',
      production: { validate_methods: 'POST' },
      line: /validate accepts POST on production, GET and POST on sandbox/,
    },
    {
      finding: 'error-body',
      production: { error_body: '401 {"message":"Unauthorized"}' },
      line: /wrong secret gets 401 \{"message":"Unauthorized"\} on production, 401 \{"error":"unauthorized"\} on sandbox/,
    },
    { finding: 'credential-isolation', production: { credentials_isolated: 'no' as const }, line: /not isolated/ },
    // An untrusted production has no other fact; the rest being equal isolates this rule.
    {
      finding: 'certificate-trust',
      production: {
        certificate_untrusted: 'the issuer is not trusted (UNABLE_TO_VERIFY_LEAF_SIGNATURE)',
        certificate_untrusted_issuer: 'Example CA',
      },
      line: /^production's certificate does not verify \(the issuer is not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\); the leaf is issued by Example CA\): .*likely does not send the intermediate/,
    },
    {
      finding: 'certificate-trust',
      production: {
        certificate_untrusted: 'the issuer is not trusted (UNABLE_TO_GET_ISSUER_CERT_LOCALLY)',
        certificate_untrusted_issuer: 'Private CA',
      },
      line: /\(issued by another CA than sandbox's, or an intermediate not sent\)/,
    },
  ])('$finding: NOT READY', ({ finding, production, line }) => {
    const v = cutoverVerdict(facts('production', production), facts('sandbox'), ctx);
    expect(v.verdict).toBe('NOT READY');
    expect(v.findings.filter((f) => f.status === 'breaking').map((f) => f.id)).toEqual([finding]);
    expect(v.breaking).toEqual([expect.stringMatching(line)]);
    expect(v.summary).toMatch(/^NOT READY: 1 thing\(s\) will break/);
  });

  it.each([
    { what: 'a measured limit at the recommended rate', production: { rate_limit_measured_rps: 40 } },
    {
      what: 'an announced limit at the recommended rate',
      production: { rate_limit_measured_rps: undefined, rate_limit_announced_rps: 40 },
    },
    { what: 'fewer requests before the first 429 (a burst is no rate)', production: { accepted_before_limit: 10 } },
    {
      what: 'a §5.8 suite production accepts and sandbox refuses',
      sandbox: { tls_suites_accepted: 'TLS_AES_128_GCM_SHA256' },
    },
    { what: 'a lifetime within the slack', production: { lifetime_s: 86_395 } },
    { what: 'a certificate expiring just after the window', production: { certificate_expires: '2026-12-11' } },
  ])(
    '$what is not breaking',
    ({ production, sandbox }: { production?: Partial<EnvironmentFacts>; sandbox?: Partial<EnvironmentFacts> }) => {
      const v = cutoverVerdict(facts('production', production), facts('sandbox', sandbox), ctx);
      expect(v.breaking).toEqual([]);
      expect(v.not_tested).toEqual([]);
    },
  );

  it('merely different: token format, longer lifetime, negotiated TLS, TLS outside §5.8, certificate key, health timestamp format, far apart clock skews', () => {
    const production = facts('production', {
      token_format: 'JWT (RS256)',
      lifetime_s: 90_000,
      clock_skew_s: 4,
      tls_negotiated: 'TLS_AES_128_GCM_SHA256 (TLSv1.3)',
      health_timestamp_format: 'HTTP-date d Mon d d:d:d GMT',
      certificate_key: 'RSA 2048',
      tls_legacy_accepted: 'none',
      tls_other_suites_accepted: 'TLS_AES_128_CCM_SHA256',
    });
    // Sandbox took TLS 1.2 against §5.8: production refusing it breaks no §5.8 client.
    const v = cutoverVerdict(production, facts('sandbox', { tls_legacy_accepted: 'TLS 1.2' }), ctx);
    expect(v.verdict).toBe('READY');
    expect(v.differences).toEqual([
      expect.stringMatching(/^production's tokens live 90000 s/),
      'token format: JWT (RS256) on production, opaque on sandbox',
      'TLS a default client negotiates: TLS_AES_128_GCM_SHA256 (TLSv1.3) on production, TLS_AES_256_GCM_SHA384 (TLSv1.3) on sandbox',
      'TLS 1.0–1.2 accepted: none on production, TLS 1.2 on sandbox',
      'other TLS 1.3 suites accepted: TLS_AES_128_CCM_SHA256 on production, none on sandbox',
      'certificate key: RSA 2048 on production, EC P-256 on sandbox',
      'health timestamp format: HTTP-date d Mon d d:d:d GMT on production, ISO 8601 d-d-d d:d:d UTC on sandbox',
      expect.stringMatching(/^clock skew/),
    ]);
  });

  it('a missing fact, or a production limit neither announced nor measured, is NOT TESTED with the reason and how to get it', () => {
    const unknown = facts('production', {
      certificate_issuer: undefined,
      rate_limit_measured_rps: undefined,
      missing: {
        certificate_issuer: 'tls.certificate-valid error: handshake timed out',
        rate_limit_measured_rps: 'not measured: production is probed only with --allow-production-load',
        rate_limit_announced_rps: 'no answer announced a limit (RateLimit-Policy, X-RateLimit-Limit…)',
      },
    });
    const v = cutoverVerdict(unknown, facts('sandbox'), { ...ctx, productionLoadAllowed: false });
    expect(v.verdict).toBe('NOT TESTED');
    expect(v.not_tested).toEqual([
      "production's rate limit: not known (not measured: production is probed only with --allow-production-load; no answer announced a limit (RateLimit-Policy, X-RateLimit-Limit…)); pass --allow-production-load to measure it with a rate-limit probe of production",
      'certificate issuer: not known on production (tls.certificate-valid error: handshake timed out)',
    ]);
  });

  it("sandbox's recommendation unknown: NOT TESTED, saying how to get one", () => {
    const sandbox = facts('sandbox', {
      rate_limit_recommended_rps: undefined,
      missing: {
        rate_limit_recommended_rps:
          'a rate-limit probe of sandbox in this run (no k6 proof): rate_limit: the estimate is partial',
      },
    });
    expect(cutoverVerdict(facts('production'), sandbox, ctx).not_tested).toEqual([
      "sandbox's recommended rate: not known (a rate-limit probe of sandbox in this run (no k6 proof): rate_limit: the estimate is partial); run `ces-harness ratelimit --env sandbox` with the history on, then cutover with --sandbox-from-history H",
    ]);
  });

  it('a TLS matrix fact missing (its check got no answer) is NOT TESTED, never READY', () => {
    const production = facts('production', {
      tls_suites_accepted: undefined,
      missing: { tls_suites_accepted: 'tls.allowed-suites-accepted error: no TLS answer' },
    });
    expect(cutoverVerdict(production, facts('sandbox'), ctx)).toMatchObject({
      verdict: 'NOT TESTED',
      not_tested: [
        'TLS 1.3 suites of §5.8 accepted: not known on production (tls.allowed-suites-accepted error: no TLS answer)',
      ],
    });
  });

  it('a pass that tested less than asked is NOT TESTED, and breaking still leads', () => {
    const budget = { ...ctx, passesUntested: ['production: the production request budget was reached'] };
    expect(cutoverVerdict(facts('production'), facts('sandbox'), budget)).toMatchObject({
      verdict: 'NOT TESTED',
      not_tested: ['production: the production request budget was reached'],
    });
    expect(cutoverVerdict(facts('production', { lifetime_s: 60 }), facts('sandbox'), budget).verdict).toBe('NOT READY');
  });
});
