// Calibration must prove what this machine can offer, and the checks must refuse to read a
// target's refusal as conformance when calibration did not.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calibrate } from '../../src/tls/calibration.js';
import {
  ALLOWED_SUITE_CASES,
  LEGACY_VERSION_CASES,
  OTHER_SUITE_CASES,
  type HandshakeCase,
} from '../../src/tls/cases.js';
import { tlsEndpoint } from '../../src/tls/endpoint.js';
import { runCases } from '../../src/tls/matrix.js';
import { mustRefuse } from '../../src/tls/verdict.js';
import { createTestPki } from './pki.js';
import { CONFORMANT, startTls, type Started } from './servers.js';

// Same offer as the TLS 1.0 case, but at OpenSSL 3's default security level, where the client
// cannot complete a TLS 1.0 handshake at all: a stand-in for a machine whose OpenSSL cannot.
const CRIPPLED_TLS10: HandshakeCase = {
  id: 'test:TLSv1@SECLEVEL=1',
  label: 'TLS 1.0',
  version: 'TLSv1',
  ciphers: 'DEFAULT:@SECLEVEL=1',
};

let conformant: Started;
beforeAll(async () => {
  conformant = await startTls(createTestPki(), CONFORMANT);
});
afterAll(() => conformant.close());

describe('calibrate', () => {
  it.each([...LEGACY_VERSION_CASES, ...ALLOWED_SUITE_CASES, ...OTHER_SUITE_CASES].map((c) => [c.id, c] as const))(
    'this machine can offer %s',
    async (_id, c) => {
      const cal = await calibrate(c);
      expect(cal.detail).toContain('accepted with');
      expect(cal.ok).toBe(true);
    },
  );

  it('is memoized per case', () => {
    const c = LEGACY_VERSION_CASES[0]!;
    expect(calibrate(c)).toBe(calibrate(c));
  });

  it('fails for an offer the probe cannot really make', async () => {
    const cal = await calibrate(CRIPPLED_TLS10);
    expect(cal.ok).toBe(false);
    expect(cal.detail).toMatch(/^a loopback server that accepts TLS 1\.0: refused/);
  });
});

describe('a refusal without calibration', () => {
  it('is an error, not a pass', async () => {
    const endpoint = tlsEndpoint({ baseUrl: conformant.url });
    const results = await runCases(endpoint, [CRIPPLED_TLS10]);
    expect(results[0]!.result.ok).toBe(false);
    const outcome = mustRefuse(endpoint, results, '§5.8 wants TLS 1.3 only');
    expect(outcome.status).toBe('error');
    expect(outcome.message).toContain("this machine's OpenSSL cannot offer TLS 1.0");
    expect(outcome.message).toContain('so its refusal proves nothing');
    expect(outcome.evidence?.[0]?.note).toContain('not calibrated');
  });

  it('is an error when the offer cannot even be built here, and the target is not asked', async () => {
    const endpoint = tlsEndpoint({ baseUrl: conformant.url });
    const bogus: HandshakeCase = {
      id: 'test:no-such-suite',
      label: 'TLS 1.3 with only TLS_NO_SUCH_SUITE',
      version: 'TLSv1.3',
      suite: 'TLS_NO_SUCH_SUITE',
    };
    const results = await runCases(endpoint, [bogus]);
    expect(results[0]!.result.error?.stage).toBe('client');
    expect(results[0]!.calibration?.ok).toBe(false);
    const outcome = mustRefuse(endpoint, results, '§5.8 allows only its three suites');
    expect(outcome.status).toBe('error');
    expect(outcome.message).toContain("this machine's OpenSSL cannot offer TLS_NO_SUCH_SUITE");
  });
});
