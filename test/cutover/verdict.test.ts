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
      production: { accepted_before_limit: 79 },
      line: /limits after 79 requests, sandbox after 100/,
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
    { what: 'a limit within the margin', production: { accepted_before_limit: 80 } },
    { what: 'a lifetime within the slack', production: { lifetime_s: 86_395 } },
    { what: 'a certificate expiring just after the window', production: { certificate_expires: '2026-12-11' } },
  ])('$what is not breaking', ({ production }) => {
    expect(cutoverVerdict(facts('production', production), facts('sandbox'), ctx).breaking).toEqual([]);
  });

  it('merely different: token format, longer lifetime, negotiated TLS, health timestamp format, far apart clock skews', () => {
    const production = facts('production', {
      token_format: 'JWT (RS256)',
      lifetime_s: 90_000,
      clock_skew_s: 4,
      tls_negotiated: 'TLS_AES_128_GCM_SHA256 (TLSv1.3)',
      health_timestamp_format: 'HTTP-date d Mon d d:d:d GMT',
    });
    const v = cutoverVerdict(production, facts('sandbox'), ctx);
    expect(v.verdict).toBe('READY');
    expect(v.differences).toEqual([
      expect.stringMatching(/^production's tokens live 90000 s/),
      'token format: JWT (RS256) on production, opaque on sandbox',
      'TLS a default client negotiates: TLS_AES_128_GCM_SHA256 (TLSv1.3) on production, TLS_AES_256_GCM_SHA384 (TLSv1.3) on sandbox',
      'health timestamp format: HTTP-date d Mon d d:d:d GMT on production, ISO 8601 d-d-d d:d:d UTC on sandbox',
      expect.stringMatching(/^clock skew/),
    ]);
  });

  it('a missing fact or an unmeasured production limit is NOT TESTED with the reason', () => {
    const missingIssuer = facts('production', {
      certificate_issuer: undefined,
      missing: { certificate_issuer: 'tls.certificate-valid error: handshake timed out' },
    });
    const v = cutoverVerdict(missingIssuer, facts('sandbox'), { ...ctx, productionLoadAllowed: false });
    expect(v.verdict).toBe('NOT TESTED');
    expect(v.not_tested).toEqual([
      expect.stringMatching(/^production's rate limit: not measured/),
      'certificate issuer: not known on production (tls.certificate-valid error: handshake timed out)',
    ]);
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
