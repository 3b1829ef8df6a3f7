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
});
