// Which check result fills which fact: a TLS matrix check that got no answer (an error) reads its
// unanswered offers as refused, so its `accepted` is no fact until the check reached a verdict.

import { describe, expect, it } from 'vitest';
import { environmentFacts } from '../../src/cutover/facts.js';

const ALL = 'TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384, TLS_CHACHA20_POLY1305_SHA256';

describe('environmentFacts', () => {
  it.each([
    { status: 'pass' as const, want: ALL },
    { status: 'fail' as const, want: ALL },
    { status: 'error' as const, want: undefined },
  ])('tls.allowed-suites-accepted $status: the suites accepted are $want', ({ status, want }) => {
    const facts = environmentFacts('production', 'https://api.example.test', [
      { id: 'tls.allowed-suites-accepted', status, facts: { accepted: ALL }, message: 'no TLS answer' },
      { id: 'tls.certificate-valid', status: 'error', facts: { key: 'EC P-256' } },
    ]);
    expect(facts.tls_suites_accepted).toBe(want);
    expect(facts.missing['tls_suites_accepted']).toBe(
      want === undefined ? 'tls.allowed-suites-accepted error: no TLS answer' : undefined,
    );
    // A certificate's key is read from the handshake whatever the verdict.
    expect(facts.certificate_key).toBe('EC P-256');
  });

  // validate.valid-token failing on production once left "GET and POST on both" ok: a failing
  // check's partial data is no fact; the refusal's fields, observed whole, are.
  it("a failing check's partial data is no fact; an observation taken whole is, whatever the verdict", () => {
    const facts = environmentFacts('production', 'https://api.example.test', [
      {
        id: 'validate.valid-token',
        status: 'fail',
        facts: { methods: 'GET and POST' },
        message: '"valid" is "true"',
      },
      {
        id: 'token.bad-secret-401',
        status: 'fail',
        facts: { error_body: '403 `{}`', error_status: 403, error_code: 'none' },
        message: 'got 403',
      },
      { id: 'token.issue', status: 'skip', facts: { token_format: 'opaque' }, message: 'no token' },
    ]);
    expect(facts.validate_methods).toBeUndefined();
    expect(facts.missing['validate_methods']).toBe(
      `validate.valid-token fail: "valid" is "true" (a failing check's partial data is not compared)`,
    );
    expect(facts).toMatchObject({ error_status: 403, error_code: 'none' });
    expect(facts.token_format).toBeUndefined();
  });
});
