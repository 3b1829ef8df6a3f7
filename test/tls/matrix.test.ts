// The whole TLS matrix at once, from a cold calibration memo: what a run pays for the TLS checks.
// The work is CPU-bound on one thread (both ends of every handshake are in this process), so the
// bound does not measure concurrency; it catches a wait on the happy path (a probe that only ends
// at its timeout, the plain-HTTP probe waiting out its silence), which costs seconds. Cold, it
// takes 0.15-0.25 s here even on a busy 2-core machine.
//
// And the work a run does not repeat: a calibration only where the target refused (an acceptance
// is proof by itself), the certificate read only where a check looks at it, and one certificate
// handshake for both certificate checks of a run.

import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check as allowedSuites } from '../../checks/tls.allowed-suites-accepted.js';
import { check as certExpiry } from '../../checks/tls.certificate-expiry.js';
import { check as certValid } from '../../checks/tls.certificate-valid.js';
import { check as legacyRefused } from '../../checks/tls.legacy-versions-refused.js';
import { check as noPlainHttp } from '../../checks/tls.no-plain-http.js';
import { check as otherSuites } from '../../checks/tls.other-suites-refused.js';
import type { CheckContext } from '../../src/runner/check.js';
import { clearCalibrations } from '../../src/tls/calibration.js';
import { ALLOWED_SUITE_CASES, LEGACY_VERSION_CASES, offerOf, suiteCase } from '../../src/tls/cases.js';
import { tlsEndpoint } from '../../src/tls/endpoint.js';
import { runCases } from '../../src/tls/matrix.js';
import { handshake } from '../../src/tls/handshake.js';
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
  const ctx = {
    target: {
      environment: 'test',
      baseUrl: server.url,
      credentials: { clientId: 'a', clientSecret: 'b' },
      caPem: pki.caPem,
    },
  } as unknown as CheckContext;
  const started = performance.now();
  const outcomes = await Promise.all(
    [legacyRefused, allowedSuites, otherSuites, certValid, certExpiry, noPlainHttp].map((c) => c.run(ctx)),
  );
  const ms = performance.now() - started;
  for (const o of outcomes) expect(o.status, o.message).toBe('pass');
  expect(ms).toBeLessThan(1_500);
});

const T = 3_000;

describe('runCases', () => {
  it('calibrates the refused cases and not the accepted ones', async () => {
    const results = await runCases(
      tlsEndpoint({ baseUrl: server.url }),
      [...ALLOWED_SUITE_CASES, ...LEGACY_VERSION_CASES],
      { timeoutMs: T },
    );
    const accepted = results.filter((r) => r.result.ok).map((r) => r.case.id);
    expect(accepted).toEqual(ALLOWED_SUITE_CASES.map((c) => c.id));
    for (const r of results) {
      if (r.result.ok) expect(r.calibration, r.case.id).toBeUndefined();
      else expect(r.calibration?.ok, r.case.id).toBe(true);
      // The matrix judges what was negotiated; no certificate is read for it.
      expect(r.result.peerCert, r.case.id).toBeUndefined();
    }
  });
});

describe('handshake', () => {
  it('reads the certificate unless told not to', async () => {
    const at = { host: '127.0.0.1', port: server.port, timeoutMs: T, ...offerOf(suiteCase('TLS_AES_128_GCM_SHA256')) };
    expect((await handshake(at)).peerCert?.subject).toBe('CN=localhost');
    const lean = await handshake({ ...at, readCertificate: false });
    expect(lean).toMatchObject({ ok: true, cipher: 'TLS_AES_128_GCM_SHA256' });
    expect(lean.peerCert).toBeUndefined();
  });
});

describe('the certificate checks', () => {
  it('share one handshake per run, and each run makes its own', async () => {
    // A relay in front of the server counts the connections the checks open.
    let connections = 0;
    const open = new Set<net.Socket>();
    const relay = net.createServer((socket) => {
      connections += 1;
      open.add(socket);
      const upstream = net.connect(server.port, '127.0.0.1');
      socket.pipe(upstream).pipe(socket);
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    try {
      const baseUrl = `https://127.0.0.1:${(relay.address() as net.AddressInfo).port}`;
      const run = () =>
        ({
          target: { environment: 'test', baseUrl, credentials: { clientId: 'a', clientSecret: 'b' }, caPem: pki.caPem },
        }) as unknown as CheckContext;
      const first = run();
      const outcomes = await Promise.all([certValid.run(first), certExpiry.run(first)]);
      for (const o of outcomes) expect(o.status, o.message).toBe('pass');
      expect(connections).toBe(1);
      const second = run();
      await Promise.all([certValid.run(second), certExpiry.run(second)]);
      expect(connections).toBe(2);
    } finally {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => relay.close(() => resolve()));
    }
  });
});
