// The probe against real loopback servers: does it offer what it claims, and does it report what
// came back (version, IANA suite name, alert, certificate) the way the checks rely on?

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALLOWED_SUITES, offerOf, suiteCase, versionCase } from '../../src/tls/cases.js';
import { nodeCipherString } from '../../src/tls/cipher-string.js';
import { refused } from '../../src/tls/handshake-outcome.js';
import { handshake, type HandshakeOptions } from '../../src/tls/handshake.js';
import { tryPlainHttp } from '../../src/tls/plain-http.js';
import { createTestPki, type TestPki } from './pki.js';
import {
  CONFORMANT,
  closedPort,
  startPlainHttp,
  startPlainHttp400,
  startSilent,
  startTls,
  type Started,
} from './servers.js';

const T = 3_000;
let pki: TestPki;
let otherHostPki: TestPki;
const servers: Record<string, Started> = {};

beforeAll(async () => {
  pki = createTestPki();
  otherHostPki = createTestPki({ dnsNames: ['other.example'], ipAddresses: [] });
  const entries = await Promise.all(
    Object.entries({
      conformant: startTls(pki, CONFORMANT),
      tls12: startTls(pki, { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' }),
      ccm: startTls(pki, { minVersion: 'TLSv1.3', ciphers: 'TLS_AES_128_CCM_SHA256' }),
      noChacha: startTls(pki, { minVersion: 'TLSv1.3', ciphers: 'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384' }),
      tls10: startTls(pki, { minVersion: 'TLSv1', maxVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=0' }),
      otherHost: startTls(otherHostPki, CONFORMANT),
      plain: startPlainHttp(),
      plain400: startPlainHttp400(),
      silent: startSilent(),
    }).map(async ([name, p]) => [name, await p] as const),
  );
  for (const [name, s] of entries) servers[name] = s;
});

afterAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s.close()));
});

const at = (name: string, opts: Partial<HandshakeOptions> = {}) =>
  handshake({ host: '127.0.0.1', port: servers[name]!.port, timeoutMs: T, ...opts });

describe('(a) a TLS 1.3-only server with the three §5.8 suites', () => {
  it.each(ALLOWED_SUITES)('negotiates %s when offered alone, named the IANA way', async (suite) => {
    const r = await at('conformant', offerOf(suiteCase(suite)));
    expect(r).toMatchObject({ ok: true, protocol: 'TLSv1.3', cipher: suite });
    expect(r.peerCert?.subject).toBe('CN=localhost');
    expect(r.peerCert?.issuer).toBe('CN=ces-harness test CA');
    expect(r.peerCert?.daysLeft).toBeGreaterThanOrEqual(363);
    expect(r.peerCert?.validTo).toBe(pki.notAfter.toISOString().replace(/\.\d{3}Z$/, '.000Z'));
  });

  it.each(['TLSv1', 'TLSv1.1', 'TLSv1.2'] as const)(
    'refuses %s offered alone with a protocol_version alert',
    async (v) => {
      const r = await at('conformant', offerOf(versionCase(v)));
      expect(r.ok).toBe(false);
      expect(r.error).toMatchObject({
        stage: 'handshake',
        code: 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION',
        alert: 'protocol version',
        alertNumber: 70,
      });
      expect(refused(r)).toBe(true);
    },
  );

  it('refuses a CCM suite offered alone with a handshake_failure alert', async () => {
    const r = await at('conformant', offerOf(suiteCase('TLS_AES_128_CCM_SHA256')));
    expect(r.error).toMatchObject({ stage: 'handshake', alert: 'handshake failure', alertNumber: 40 });
  });
});

describe('(b) a server accepting TLS 1.2', () => {
  it('completes a TLS 1.2 handshake offered alone and names the suite the IANA way', async () => {
    const r = await at('tls12', offerOf(versionCase('TLSv1.2')));
    expect(r).toMatchObject({ ok: true, protocol: 'TLSv1.2' });
    expect(r.cipher).toMatch(/^TLS_ECDHE_ECDSA_WITH_/);
  });
});

describe('(c) a server accepting only TLS_AES_128_CCM_SHA256', () => {
  it('is reached when the probe names the CCM suite', async () => {
    const r = await at('ccm', offerOf(suiteCase('TLS_AES_128_CCM_SHA256')));
    expect(r).toMatchObject({ ok: true, protocol: 'TLSv1.3', cipher: 'TLS_AES_128_CCM_SHA256' });
  });

  it('is not reached with OpenSSL default suites: CCM has to be enabled explicitly', async () => {
    const r = await at('ccm', { minVersion: 'TLSv1.3' });
    expect(r.ok).toBe(false);
    expect(r.error?.alert).toBe('handshake failure');
  });

  it("puts TLS 1.3 suites into node's `ciphers` (tls.connect has no `ciphersuites`)", () => {
    expect(nodeCipherString({ minVersion: 'TLSv1.3', ciphersuites: 'TLS_AES_128_CCM_SHA256' })).toBe(
      'TLS_AES_128_CCM_SHA256',
    );
  });
});

describe('(d) a server without CHACHA20', () => {
  it('refuses TLS_CHACHA20_POLY1305_SHA256 offered alone', async () => {
    const r = await at('noChacha', offerOf(suiteCase('TLS_CHACHA20_POLY1305_SHA256')));
    expect(r.ok).toBe(false);
    expect(refused(r)).toBe(true);
    expect(r.error?.alert).toBe('handshake failure');
  });
});

describe('(e) a server with TLS 1.0 at SECLEVEL 0', () => {
  it('is reached by the TLS 1.0 probe, which adds @SECLEVEL=0 itself', async () => {
    expect(nodeCipherString({ minVersion: 'TLSv1' })).toBe('DEFAULT:@SECLEVEL=0');
    const r = await at('tls10', { minVersion: 'TLSv1', maxVersion: 'TLSv1' });
    expect(r).toMatchObject({ ok: true, protocol: 'TLSv1' });
  });

  it("is not reached at OpenSSL 3's default security level: a client-side failure that looks like a refusal", async () => {
    const r = await at('tls10', { minVersion: 'TLSv1', maxVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=1' });
    expect(r.ok).toBe(false);
    expect(refused(r)).toBe(true);
  });
});

describe('(f) a plain HTTP server', () => {
  it('is served plain text: tryPlainHttp sees the 2xx status line', async () => {
    const r = await tryPlainHttp('127.0.0.1', servers.plain!.port, T);
    expect(r).toMatchObject({ served: true, statusLine: 'HTTP/1.1 200 OK', closedWithoutHttp: false, timedOut: false });
  });

  it('fails a TLS handshake at the TLS stage', async () => {
    const r = await at('plain', { minVersion: 'TLSv1.3' });
    expect(r.ok).toBe(false);
    expect(r.error?.stage).toBe('handshake');
  });

  it('an HTTP 400 answer (nginx on its HTTPS port) is not "served"', async () => {
    const r = await tryPlainHttp('127.0.0.1', servers.plain400!.port, T);
    expect(r).toMatchObject({ served: false, statusLine: 'HTTP/1.1 400 Bad Request', closedWithoutHttp: false });
  });

  it('a TLS-only server closes without any HTTP answer', async () => {
    const r = await tryPlainHttp('127.0.0.1', servers.conformant!.port, T);
    expect(r).toMatchObject({ served: false, closedWithoutHttp: true, timedOut: false });
    expect(r.statusLine).toBeUndefined();
  });
});

describe('certificate verification', () => {
  it('trusts the chain with the CA given and matches the IP SAN', async () => {
    const r = await at('conformant', { verify: true, caPem: pki.caPem });
    expect(r).toMatchObject({ ok: true, protocol: 'TLSv1.3', authorized: true });
    expect(r.authorizationError).toBeUndefined();
  });

  it('matches a DNS SAN through SNI', async () => {
    const r = await at('conformant', { verify: true, caPem: pki.caPem, servername: 'localhost' });
    expect(r.authorized).toBe(true);
  });

  it('reports an untrusted chain without failing the handshake', async () => {
    const r = await at('conformant', { verify: true });
    expect(r).toMatchObject({ ok: true, authorized: false, authorizationError: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    expect(r.peerCert?.subject).toBe('CN=localhost');
  });

  it('reports a certificate for another host', async () => {
    const r = await at('otherHost', { verify: true, caPem: otherHostPki.caPem });
    expect(r).toMatchObject({ ok: true, authorized: false, authorizationError: 'ERR_TLS_CERT_ALTNAME_INVALID' });
  });
});

describe('bounds', () => {
  it('gives up on a silent server at the timeout, and that is not a refusal', async () => {
    const r = await at('silent', { timeoutMs: 150 });
    expect(r.error).toMatchObject({ code: 'ETIMEDOUT', timedOut: true, stage: 'handshake' });
    expect(refused(r)).toBe(false);
    expect(r.durationMs).toBeGreaterThanOrEqual(140);
    expect(r.durationMs).toBeLessThan(1_000);
  });

  it('reports a closed port at the connect stage, not as a refusal', async () => {
    const r = await handshake({ host: '127.0.0.1', port: await closedPort(), timeoutMs: T });
    expect(r.error).toMatchObject({ code: 'ECONNREFUSED', stage: 'connect' });
    expect(refused(r)).toBe(false);
  });

  it('stops when the signal aborts', async () => {
    const ac = new AbortController();
    const pending = at('silent', { signal: ac.signal });
    ac.abort();
    const r = await pending;
    expect(r.error?.code).toBe('ABORT_ERR');
  });

  it('plain-HTTP probe times out on a silent server without calling it served', async () => {
    const r = await tryPlainHttp('127.0.0.1', servers.silent!.port, 150);
    expect(r).toMatchObject({ served: false, closedWithoutHttp: true, timedOut: true });
  });

  it('plain-HTTP probe reports a closed port as an error', async () => {
    const r = await tryPlainHttp('127.0.0.1', await closedPort(), T);
    expect(r.error?.code).toBe('ECONNREFUSED');
    expect(r.served).toBe(false);
  });
});
