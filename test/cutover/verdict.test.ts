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
  error_status: 401,
  error_media_type: 'application/json',
  error_code: 'unauthorized',
  error_keys: 'error',
  certificate_sandbox_trust_verifies: true,
  certificate_sandbox_trust: "verifies against sandbox's ca_file ca.pem and the system store",
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
// Production's own checks ran (one must check passed): READY needs them (the conformance gate).
const ctx: VerdictContext = {
  windowDays: 14,
  nowMs: NOW,
  productionLoadAllowed: true,
  passesUntested: [],
  checks: {
    production: [{ id: 'token.issue', status: 'pass', level: 'must', spec: '4.1', message: 'token issued' }],
    sandbox: [],
  },
};

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
      production: {
        certificate_issuer: 'CN=Other CA (sha256 bb)',
        certificate_sandbox_trust_verifies: false,
        certificate_sandbox_trust:
          "does not verify against sandbox's ca_file ca.pem and the system store (the issuer is not trusted)",
      },
      line: /^production's certificate does not verify against sandbox's ca_file ca.pem and the system store \(the issuer is not trusted\): a client given only sandbox's trust refuses production$/,
    },
    {
      finding: 'certificate-expiry',
      production: { certificate_expires: '2026-12-09' },
      line: /\(12 days\), within the 14-day/,
    },
    { finding: 'token-lifetime', production: { lifetime_s: 3_600 }, line: /live 3600 s, sandbox's 86400 s/ },
    // Outside both measured spans, if only by a second.
    {
      finding: 'token-lifetime',
      production: { lifetime_s: 86_380, lifetime_min_s: 86_378, lifetime_max_s: 86_382 },
      sandbox: { lifetime_min_s: 86_383, lifetime_max_s: 86_401 },
      line: /live 86380 s, sandbox's 86400 s \(measured 86378–86382 s and 86383–86401 s\)/,
    },
    {
      finding: 'validate-method',
      production: { validate_methods: 'POST' },
      line: /validate accepts POST on production, GET and POST on sandbox/,
    },
    {
      finding: 'error-body',
      production: { error_body: '401 {"message":"Unauthorized"}', error_code: 'none', error_keys: 'message' },
      line: /wrong secret gets 401 \{"message":"Unauthorized"\} on production, 401 \{"error":"unauthorized"\} on sandbox \(`error` none on production, unauthorized on sandbox; production's body lacks error\)/,
    },
    {
      finding: 'error-body',
      production: {
        error_body: '401 Unauthorized',
        error_media_type: 'text/plain',
        error_code: 'none',
        error_keys: 'none',
      },
      line: /\(content type text\/plain on production, application\/json on sandbox; `error` none/,
    },
    { finding: 'error-body', production: { error_status: 403 }, line: /\(status 403 on production, 401 on sandbox\)/ },
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
  ])(
    '$finding: NOT READY',
    ({
      finding,
      production,
      sandbox,
      line,
    }: {
      finding: string;
      production: Partial<EnvironmentFacts>;
      sandbox?: Partial<EnvironmentFacts>;
      line: RegExp;
    }) => {
      const v = cutoverVerdict(facts('production', production), facts('sandbox', sandbox), ctx);
      expect(v.verdict).toBe('NOT READY');
      expect(v.findings.filter((f) => f.status === 'breaking').map((f) => f.id)).toEqual([finding]);
      expect(v.breaking).toEqual([expect.stringMatching(line)]);
      expect(v.summary).toMatch(/^NOT READY: 1 thing\(s\) will break/);
    },
  );

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
    {
      what: 'a shorter lifetime within the measured uncertainty',
      production: { lifetime_s: 86_380, lifetime_min_s: 86_378, lifetime_max_s: 86_383 },
      sandbox: { lifetime_min_s: 86_383, lifetime_max_s: 86_401 },
    },
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

  it("production's failing must checks are NOT READY by themselves, each named with its clause and evidence; its warnings are differences", () => {
    const checks = {
      production: [
        { id: 'token.issue', status: 'pass' as const, level: 'must' as const, spec: '4.1', message: 'a token' },
        {
          id: 'token.expired-validate-401',
          status: 'fail' as const,
          level: 'must' as const,
          spec: '4.3',
          message: 'an expired token got 200',
        },
        {
          id: 'ratelimit.limit-enforced',
          status: 'error' as const,
          level: 'must' as const,
          spec: '7',
          message: 'timed out',
        },
        {
          id: 'auth.www-authenticate',
          status: 'warn' as const,
          level: 'should' as const,
          spec: '7',
          message: 'no header',
        },
      ],
      sandbox: [],
    };
    const v = cutoverVerdict(facts('production'), facts('sandbox'), { ...ctx, checks });
    expect(v.verdict).toBe('NOT READY');
    expect(v.findings.filter((f) => f.status === 'breaking').map((f) => f.id)).toEqual([
      'production:token.expired-validate-401',
      'production:ratelimit.limit-enforced',
    ]);
    expect(v.breaking).toEqual([
      'production fails token.expired-validate-401 (§4.3, must): an expired token got 200',
      'production could not complete ratelimit.limit-enforced (§7, must): timed out',
    ]);
    expect(v.differences).toEqual(['production warns on auth.www-authenticate (§7, should): no header']);
    expect(v.summary).toMatch(/^NOT READY: 2 thing\(s\) will break/);
  });

  it("READY's line says what it covers: the must checks production passed, and by name those it skipped", () => {
    const must = (id: string, status: 'pass' | 'skip') => ({
      id,
      status,
      level: 'must' as const,
      spec: '3',
      message: 'm',
    });
    const skipped = cutoverVerdict(facts('production'), facts('sandbox'), {
      ...ctx,
      checks: { production: [must('token.issue', 'pass'), must('token.expired-validate-401', 'skip')], sandbox: [] },
    });
    expect(skipped.verdict).toBe('READY');
    expect(skipped.summary).toBe(
      "READY: production passed the 1 must checks it ran; not tested there, so outside this verdict: token.expired-validate-401, and nothing found that would break a client integrated against sandbox; the rate limit compared is production's measured rate limit, against the rate recommended on sandbox",
    );
    const all = cutoverVerdict(facts('production'), facts('sandbox'), {
      ...ctx,
      checks: { production: [must('token.issue', 'pass')], sandbox: [] },
    });
    expect(all.summary).toMatch(/^READY: production passed every must check \(1\), and nothing found/);
  });

  it("never READY without production's own checks: none ran there (or none passed a must), its failures were not looked at", () => {
    for (const production of [
      [],
      [{ id: 'token.issue', status: 'skip' as const, level: 'must' as const, spec: '4.1', message: 'm' }],
    ]) {
      const v = cutoverVerdict(facts('production'), facts('sandbox'), { ...ctx, checks: { production, sandbox: [] } });
      expect(v.verdict).toBe('NOT TESTED');
      expect(v.not_tested).toEqual([
        "production's own conformance: no must check ran there, so none of its failures could be seen",
      ]);
    }
    const { checks: _, ...unchecked } = ctx;
    expect(cutoverVerdict(facts('production'), facts('sandbox'), unchecked).verdict).toBe('NOT TESTED');
  });

  it("READY's line says what its rate-limit comparison rests on: an announced limit is said not measured, with the source of sandbox's rate", () => {
    const announcedOnly = facts('production', {
      rate_limit_measured_rps: undefined,
      rate_limit_announced: '50 requests per 1 s (RateLimit-Policy)',
      rate_limit_announced_rps: 50,
    });
    const sandbox = facts('sandbox', { rate_limit_source: 'a rate-limit probe of sandbox in this run (no k6 proof)' });
    const v = cutoverVerdict(announcedOnly, sandbox, ctx);
    expect(v.verdict).toBe('READY');
    expect(v.summary).toMatch(
      /; the rate limit compared is production's announced rate limit \(announced, not measured: --allow-production-load measures it\), against the rate recommended on sandbox \(a rate-limit probe of sandbox in this run \(no k6 proof\)\)$/,
    );
  });

  it('a sandbox failing a must check is said plainly; the comparison still runs and production alone is judged', () => {
    const checks = {
      production: ctx.checks!.production,
      sandbox: [
        {
          id: 'validate.valid-token',
          status: 'fail' as const,
          level: 'must' as const,
          spec: '4.3',
          message: '"valid" is a string',
        },
      ],
    };
    const ready = cutoverVerdict(facts('production'), facts('sandbox'), { ...ctx, checks });
    expect(ready.verdict).toBe('READY');
    expect(ready.sandbox_deviations).toEqual([
      'sandbox itself fails validate.valid-token (§4.3, must): "valid" is a string; the client was built against a sandbox that deviates from the spec',
    ]);
    expect(ready.summary).toMatch(
      /; and sandbox itself fails 1 must check\(s\): the client was built against a sandbox that deviates/,
    );
    const broken = cutoverVerdict(facts('production', { lifetime_s: 60 }), facts('sandbox'), { ...ctx, checks });
    expect(broken.findings.filter((f) => f.status === 'breaking').map((f) => f.id)).toEqual(['token-lifetime']);
  });

  it("harmless by a client's reading: an extra error_description, another issuer whose chain verifies under sandbox's trust", () => {
    const production = facts('production', {
      error_body: '401 {"error":"unauthorized","error_description":"bad secret"}',
      error_keys: 'error, error_description',
      certificate_issuer: 'CN=Example Intermediate CA (sha256 cc)',
    });
    const v = cutoverVerdict(production, facts('sandbox'), ctx);
    expect(v.verdict).toBe('READY');
    expect(v.differences).toEqual([
      expect.stringMatching(
        /^production's certificate is issued by CN=Example Intermediate CA .*so a client given sandbox's trust accepts it$/,
      ),
      "error body: production's adds error_description to the fields sandbox sends (status 401, `error` unauthorized, application/json alike): a client reading sandbox's fields reads production's the same",
    ]);
  });

  it('a missing fact, or a production limit neither announced nor measured, is NOT TESTED with the reason and how to get it', () => {
    const unknown = facts('production', {
      certificate_sandbox_trust_verifies: undefined,
      rate_limit_measured_rps: undefined,
      missing: {
        certificate_sandbox_trust:
          "the handshake with sandbox's ca_file ca.pem and the system store got no answer: timed out",
        rate_limit_measured_rps: 'not measured: production is probed only with --allow-production-load',
        rate_limit_announced_rps: 'no answer announced a limit (RateLimit-Policy, X-RateLimit-Limit…)',
      },
    });
    const v = cutoverVerdict(unknown, facts('sandbox'), { ...ctx, productionLoadAllowed: false });
    expect(v.verdict).toBe('NOT TESTED');
    expect(v.not_tested).toEqual([
      "production's rate limit: not known (not measured: production is probed only with --allow-production-load; no answer announced a limit (RateLimit-Policy, X-RateLimit-Limit…)); pass --allow-production-load to measure it with a rate-limit probe of production",
      "production's certificate under sandbox's trust: not known on production (the handshake with sandbox's ca_file ca.pem and the system store got no answer: timed out)",
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
