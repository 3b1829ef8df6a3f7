// §5.8: TLS 1.3 only, exactly three suites, no plain HTTP; and a certificate chain that Node (and
// Go, for k6) verifies: CA with keyCertSign, leaf with SAN and serverAuth.

import { X509Certificate } from 'node:crypto';
import { stat, readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type Running } from './support/client.js';
import { handshake, plainHttp, portOf } from './support/tls-probe.js';

let s: Running;
let port: number;
beforeAll(async () => {
  s = await start();
  port = portOf(s.emu.url);
});
afterAll(() => s.close());

describe('protocol and suites', () => {
  it.each(['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'])(
    'handshakes TLS 1.3 with %s alone',
    async (suite) => {
      const h = await handshake(port, s.emu.caPem, { minVersion: 'TLSv1.3', ciphers: suite });
      expect(h).toEqual({ ok: true, protocol: 'TLSv1.3', cipher: suite });
    },
  );

  it.each(['TLS_AES_128_CCM_SHA256', 'TLS_AES_128_CCM_8_SHA256'])(
    'refuses a client offering only %s',
    async (suite) => {
      const h = await handshake(port, s.emu.caPem, { minVersion: 'TLSv1.3', ciphers: suite });
      expect(h.ok).toBe(false);
    },
  );

  it.each(['TLSv1.2', 'TLSv1.1'] as const)('refuses %s', async (version) => {
    // Node's client refuses to even offer < 1.2 unless the security level allows it.
    const h = await handshake(port, s.emu.caPem, {
      minVersion: version,
      maxVersion: version,
      ciphers: 'DEFAULT:@SECLEVEL=0',
    });
    expect(h.ok).toBe(false);
  });

  it('does not serve plain HTTP on the TLS port', async () => {
    const reply = await plainHttp(port);
    expect(reply.startsWith('HTTP/')).toBe(false);
    // …and the listener survives it.
    expect((await s.call('POST', '/tokens/health_check')).status).toBe(200);
  });
});

describe('certificates', () => {
  it('verifies against the CA by IP and by localhost (rejectUnauthorized is on by default)', async () => {
    // An empty servername makes Node check the certificate against the IP it dialled.
    const byIp = await handshake(port, s.emu.caPem, { servername: '' });
    expect(byIp.ok).toBe(true);
    const byName = await handshake(port, s.emu.caPem, { servername: 'localhost' });
    expect(byName.ok).toBe(true);
    const wrongName = await handshake(port, s.emu.caPem, { servername: 'example.com' });
    expect(wrongName).toMatchObject({ ok: false, error: expect.stringMatching(/example\.com/) });
    const untrusted = await handshake(port, s.emu.caPem, { ca: [] });
    expect(untrusted.ok).toBe(false);
  });

  it('has a CA and a P-256 leaf with SAN, serverAuth and the one-hour backdating', async () => {
    const dir = s.emu.caFile.replace(/ca\.pem$/, '');
    const ca = new X509Certificate(s.emu.caPem);
    const leaf = new X509Certificate(await readFile(`${dir}server.pem`));
    expect(ca.ca).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    expect(leaf.keyUsage).toContain('1.3.6.1.5.5.7.3.1');
    expect(leaf.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    const notBefore = Date.parse(leaf.validFrom);
    expect(Date.now() - notBefore).toBeGreaterThan(59 * 60_000);
    expect(Date.parse(leaf.validTo) - Date.now()).toBeGreaterThan(364 * 24 * 3_600_000);
  });

  it('writes ca.pem, server.pem and a 0600 server-key.pem, and removes its temp folder on close', async () => {
    const other = await start();
    const dir = other.emu.caFile.replace(/\/ca\.pem$/, '');
    expect(await readFile(other.emu.caFile, 'utf8')).toBe(other.emu.caPem);
    expect((await stat(`${dir}/server-key.pem`)).mode & 0o777).toBe(0o600);
    expect((await stat(`${dir}/server.pem`)).isFile()).toBe(true);
    await other.close();
    await expect(stat(dir)).rejects.toThrow(/ENOENT/);
  });
});
