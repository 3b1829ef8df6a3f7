// The whole TLS matrix at once, from a cold calibration memo: what a run pays for the TLS checks.
// The work is CPU-bound on one thread (both ends of every handshake are in this process), so the
// bound does not measure concurrency; it catches a wait on the happy path (a probe that only ends
// at its timeout, the plain-HTTP probe waiting out its silence), which costs seconds. Cold, it
// takes 0.15-0.25 s here even on a busy 2-core machine.

import { afterAll, beforeAll, expect, it } from 'vitest';
import { check as allowedSuites } from '../../checks/tls.allowed-suites-accepted.js';
import { check as certExpiry } from '../../checks/tls.certificate-expiry.js';
import { check as certValid } from '../../checks/tls.certificate-valid.js';
import { check as legacyRefused } from '../../checks/tls.legacy-versions-refused.js';
import { check as noPlainHttp } from '../../checks/tls.no-plain-http.js';
import { check as otherSuites } from '../../checks/tls.other-suites-refused.js';
import type { CheckContext } from '../../src/runner/check.js';
import { clearCalibrations } from '../../src/tls/calibration.js';
import { createTestPki, type TestPki } from './pki.js';
import { CONFORMANT, startTls, type Started } from './servers.js';

let pki: TestPki;
let server: Started;
beforeAll(async () => {
  pki = createTestPki();
  server = await startTls(pki, CONFORMANT);
});
afterAll(() => server.close());

it('runs all TLS checks with their calibrations concurrently, all passing, without waiting on any timeout', async () => {
  clearCalibrations();
  const ctx = { target: { environment: 'test', baseUrl: server.url, credentials: { clientId: 'a', clientSecret: 'b' }, caPem: pki.caPem } } as unknown as CheckContext;
  const started = performance.now();
  const outcomes = await Promise.all([legacyRefused, allowedSuites, otherSuites, certValid, certExpiry, noPlainHttp].map((c) => c.run(ctx)));
  const ms = performance.now() - started;
  for (const o of outcomes) expect(o.status, o.message).toBe('pass');
  expect(ms).toBeLessThan(1_500);
});
