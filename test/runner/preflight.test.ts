// The preflight tells "cannot reach or trust the target" (exit 3, one line saying what happened)
// from "reachable, but its TLS is wrong" (the TLS checks' finding), against real loopback servers.

import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Target } from '../../src/config/target.js';
import { HarnessError } from '../../src/errors.js';
import { preflight, preflightError } from '../../src/runner/preflight.js';
import { mintSelfSigned } from '../../src/tls/certs/mint.js';
import { createTestPki } from '../tls/pki.js';
import { closedPort, startPlainHttp, startSilent, startTcp, startTls, type Started } from '../tls/servers.js';

const pki = createTestPki();
// Signed by a trusted CA, but for another name than the one dialled.
const otherName = createTestPki({ dnsNames: ['other.example.test'], ipAddresses: [] });
const DAY = 86_400_000;
const expired = createTestPki({
  notBefore: new Date('2025-12-01T00:00:00Z'),
  notAfter: new Date('2026-01-02T03:04:05Z'),
});
const notYetValid = createTestPki({
  notBefore: new Date(Date.now() + 20 * DAY),
  notAfter: new Date(Date.now() + 30 * DAY),
});
const selfSigned = mintSelfSigned({
  subject: { commonName: 'lone.example.test' },
  altNames: [{ type: 'ip', value: '127.0.0.1' }],
});

const target = (baseUrl: string, caPem?: string): Target => ({
  environment: 'sandbox',
  baseUrl,
  credentials: { clientId: 'id', clientSecret: 'secret' },
  ...(caPem ? { caPem, caFile: '/etc/ces/ca.pem' } : {}),
});

interface Case {
  name: string;
  start: () => Promise<Started | { url: string; close(): Promise<void> }>;
  ca?: string;
  code?: 'TARGET_UNREACHABLE' | 'CERT_UNTRUSTED';
  line?: RegExp;
}

const url = (port: number) => `https://127.0.0.1:${port}`;

const cases: Case[] = [
  {
    name: 'nothing listens',
    start: async () => ({ url: url(await closedPort()), close: async () => undefined }),
    code: 'TARGET_UNREACHABLE',
    line: /^cannot reach https:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED: connection refused: nothing listens there\); check the URL and port/,
  },
  {
    name: 'every connection reset',
    start: () => startTcp((s) => s.resetAndDestroy()),
    code: 'TARGET_UNREACHABLE',
    line: /^cannot reach .* \(ECONNRESET: the connection was closed or reset before the TLS handshake finished\); check that the port speaks HTTPS/,
  },
  {
    name: 'every connection closed at once',
    start: () => startTcp((s) => s.end()),
    code: 'TARGET_UNREACHABLE',
    line: /\(ECONNRESET: the connection was closed or reset before the TLS handshake finished\)/,
  },
  {
    name: 'closed on the ClientHello',
    start: () => startTcp((s) => s.once('data', () => s.destroy())),
    code: 'TARGET_UNREACHABLE',
    line: /\(ECONNRESET: the connection was closed or reset before the TLS handshake finished\)/,
  },
  {
    name: 'accepts and never answers',
    start: () => startSilent(),
    code: 'TARGET_UNREACHABLE',
    line: /^https:\/\/127\.0\.0\.1:\d+ accepted the connection but completed no TLS handshake within 0\.3 s; check that the port speaks HTTPS/,
  },
  // Certificates: each says what is wrong with it; only an unknown issuer is told to pass --ca.
  {
    name: 'a certificate from a CA this machine does not trust, no --ca',
    start: () => startTls(pki, {}),
    code: 'CERT_UNTRUSTED',
    line: /^the certificate of https:\/\/127\.0\.0\.1:\d+ is issued by ces-harness test CA, which this machine does not trust \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\); pass --ca FILE \(or ca_file in the config\) with the CA that signed it$/,
  },
  {
    name: 'a certificate from another CA than the --ca given',
    start: () => startTls(pki, {}),
    ca: otherName.caPem,
    code: 'CERT_UNTRUSTED',
    line: /^the certificate of .* is issued by ces-harness test CA, which neither the system roots nor the CA in \/etc\/ces\/ca\.pem signed \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\); give the CA that signed it$/,
  },
  {
    name: 'a trusted certificate for another name',
    start: () => startTls(otherName, {}),
    ca: otherName.caPem,
    code: 'CERT_UNTRUSTED',
    line: /^the certificate of https:\/\/127\.0\.0\.1:\d+ is for other\.example\.test, not 127\.0\.0\.1; use a URL with a host name it names, or have it reissued for 127\.0\.0\.1$/,
  },
  {
    name: 'a trusted certificate that has expired',
    start: () => startTls(expired, {}),
    ca: expired.caPem,
    code: 'CERT_UNTRUSTED',
    line: /^the certificate of .* expired on 2026-01-02T03:04:05Z; the service must renew it \(no --ca can fix an expired certificate\)$/,
  },
  {
    name: 'a trusted certificate not valid yet',
    start: () => startTls(notYetValid, {}),
    ca: notYetValid.caPem,
    code: 'CERT_UNTRUSTED',
    line: /^the certificate of .* is not valid until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ; check this machine's clock \(date -u\), or wait until it is valid$/,
  },
  {
    name: 'a self-signed certificate, no --ca',
    start: () => startTls(selfSigned, {}),
    code: 'CERT_UNTRUSTED',
    line: /^the certificate of .* is self-signed \(lone\.example\.test\) and not trusted; pass --ca FILE \(or ca_file in the config\) with this very certificate$/,
  },
  // Reachable: what is wrong is for the TLS checks to report, not a reason to stop.
  { name: 'TLS 1.2 only (trusted)', start: () => startTls(pki, { maxVersion: 'TLSv1.2' }), ca: pki.caPem },
  { name: 'plain HTTP on the port', start: () => startPlainHttp() },
  { name: 'a conformant TLS 1.3 server', start: () => startTls(pki, { minVersion: 'TLSv1.3' }), ca: pki.caPem },
];

describe('preflight against real loopback servers', () => {
  it.each(cases)('$name', async ({ start, ca, code, line }) => {
    const server = await start();
    try {
      const started = Date.now();
      const outcome = await preflight(target(server.url, ca), { timeoutMs: 300 }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(Date.now() - started).toBeLessThan(5_000);
      if (code === undefined) {
        expect(outcome).toBeUndefined();
        return;
      }
      expect(outcome).toBeInstanceOf(HarnessError);
      expect((outcome as HarnessError).code).toBe(code);
      expect((outcome as HarnessError).exitCode).toBe(3);
      expect((outcome as HarnessError).message).toMatch(line!);
      expect((outcome as HarnessError).message).not.toContain('\n');
    } finally {
      await server.close();
    }
  });
});

describe('preflightError for what loopback cannot show (no traffic leaves the machine)', () => {
  const attempt = {
    baseUrl: 'https://ces.example.test',
    host: 'ces.example.test',
    connected: false,
    timedOut: false,
    timeoutMs: 10_000,
  };
  const err = (code: string, message = code) => Object.assign(new Error(message), { code });
  it.each([
    {
      name: 'DNS: no such host',
      error: err('ENOTFOUND', 'getaddrinfo ENOTFOUND ces.example.test'),
      over: {},
      line: /^cannot reach https:\/\/ces\.example\.test \(ENOTFOUND: the host name does not resolve\); check the host name in the URL and your DNS$/,
    },
    {
      name: 'DNS: no answer',
      error: err('EAI_AGAIN'),
      over: {},
      line: /\(EAI_AGAIN: the host name could not be resolved \(DNS did not answer\)\); check your DNS and network$/,
    },
    { name: 'no route', error: err('EHOSTUNREACH'), over: {}, line: /\(EHOSTUNREACH: no route to the host\)/ },
    {
      name: 'TCP connect timed out',
      error: err('ETIMEDOUT', 'timed out'),
      over: { timedOut: true },
      line: /^cannot reach https:\/\/ces\.example\.test: no connection within 10 s; check the URL, the network/,
    },
  ])('$name', ({ error, over, line }) => {
    const e = preflightError(error, { ...attempt, ...over });
    expect(e?.code).toBe('TARGET_UNREACHABLE');
    expect(e?.message).toMatch(line);
  });
});

describe('after the handshake, one answer', () => {
  const pki = createTestPki();

  // HTTP/2 only, as some gateways serve: the probe offers HTTP/1.1 by ALPN and is refused with an
  // alert, which is reachable (the checks say the rest); without ALPN it closed the connection.
  it('an HTTP/2-only service is reachable', async () => {
    const server = http2.createSecureServer({ key: pki.keyPem, cert: pki.certPem, allowHTTP1: false }, (_q, s) =>
      s.end('ok'),
    );
    server.on('unknownProtocol', (socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await expect(preflight(target(url, pki.caPem), { env: {} })).resolves.toMatchObject({ reached: 'handshake' });
    } finally {
      server.close();
    }
  });

  it("a service that answers: the request is handed back for production's audit", async () => {
    const server = await startTls(pki, {});
    try {
      await expect(preflight(target(server.url, pki.caPem), { env: {} })).resolves.toMatchObject({
        reached: 'answer',
        method: 'POST',
        path: '/tokens/health_check',
        status: 200,
      });
    } finally {
      await server.close();
    }
  });
});
