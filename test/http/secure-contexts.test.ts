// The shared TLS contexts: one per setting, and trust that is the bundled roots plus the user's CA,
// judged by real handshakes against loopback servers whose certificates come from throwaway CAs.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { transformSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clearSecureContexts, clientContext } from '../../src/http/secure-contexts.js';
import { findProjectRoot } from '../../src/fs/project-root.js';
import { createTestPki, type TestPki } from '../tls/pki.js';
import { CONFORMANT, startTls, type Started } from '../tls/servers.js';

/** Loopback handshakes take milliseconds; this only bounds a broken machine. */
const T = 5_000;

let userCa: TestPki;
let otherCa: TestPki;
let servers: { user: Started; other: Started };
beforeAll(async () => {
  userCa = createTestPki();
  otherCa = createTestPki();
  servers = { user: await startTls(userCa, CONFORMANT), other: await startTls(otherCa, CONFORMANT) };
});
afterAll(async () => {
  await Promise.all([servers.user.close(), servers.other.close()]);
});

/** Does a handshake with this context trust the server's certificate for 127.0.0.1? */
function trusted(port: number, secureContext: tls.SecureContext): Promise<{ authorized: boolean; error?: string }> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, secureContext, rejectUnauthorized: false, timeout: T });
    socket.once('secureConnect', () => {
      resolve({
        authorized: socket.authorized,
        ...(socket.authorizationError ? { error: String(socket.authorizationError) } : {}),
      });
      socket.destroy();
    });
    socket.once('timeout', () => socket.destroy(new Error('no handshake in time')));
    socket.once('error', reject);
  });
}

describe('clientContext', () => {
  it('builds one context per setting and hands it out again', () => {
    clearSecureContexts();
    const tls13 = clientContext({ minVersion: 'TLSv1.3', maxVersion: 'TLSv1.3', ciphers: 'TLS_AES_128_GCM_SHA256' });
    expect(clientContext({ minVersion: 'TLSv1.3', maxVersion: 'TLSv1.3', ciphers: 'TLS_AES_128_GCM_SHA256' })).toBe(
      tls13,
    );
    expect(clientContext({ minVersion: 'TLSv1.3', maxVersion: 'TLSv1.3', ciphers: 'TLS_AES_256_GCM_SHA384' })).not.toBe(
      tls13,
    );
    // Naming Node's default is the same setting as leaving it out (preflight and the pool share one).
    expect(clientContext({ caPem: userCa.caPem, minVersion: tls.DEFAULT_MIN_VERSION as tls.SecureVersion })).toBe(
      clientContext({ caPem: userCa.caPem }),
    );
    expect(clientContext({ caPem: userCa.caPem })).not.toBe(clientContext({ caPem: otherCa.caPem }));
    expect(clientContext({ caPem: userCa.caPem })).not.toBe(clientContext());
  });

  it('keeps the newest settings when a process meets many CAs, and builds an evicted one again', () => {
    clearSecureContexts();
    const first = clientContext({ caPem: userCa.caPem });
    const cas = Array.from({ length: 40 }, (_, i) => `${otherCa.caPem}\n# ${i}\n`);
    const contexts = cas.map((caPem) => clientContext({ caPem }));
    expect(clientContext({ caPem: cas.at(-1)! })).toBe(contexts.at(-1));
    expect(clientContext({ caPem: userCa.caPem })).not.toBe(first);
  });

  it('throws for an offer OpenSSL rejects, as tls.connect does, and remembers nothing', () => {
    expect(() => clientContext({ minVersion: 'TLSv1.3', ciphers: 'TLS_NO_SUCH_SUITE' })).toThrow();
    expect(() => clientContext({ minVersion: 'TLSv1.3', ciphers: 'TLS_NO_SUCH_SUITE' })).toThrow();
  });

  it("trusts the user's CA, and only in the contexts that name it", async () => {
    clearSecureContexts();
    expect(await trusted(servers.user.port, clientContext({ caPem: userCa.caPem }))).toEqual({ authorized: true });
    expect(await trusted(servers.other.port, clientContext({ caPem: userCa.caPem }))).toMatchObject({
      authorized: false,
    });
    // Built after the CA's context: the CA must not have leaked into Node's shared store of roots.
    expect(await trusted(servers.user.port, clientContext())).toMatchObject({
      authorized: false,
      error: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    });
    expect(await trusted(servers.user.port, tls.createSecureContext())).toMatchObject({ authorized: false });
  });

  it("keeps Node's own store of trusted roots beside the user's CA", async () => {
    // Which roots Node's store holds can only be changed at a process' start: with
    // --use-openssl-ca it is OpenSSL's, read from SSL_CERT_FILE, here the other CA alone (by
    // default it is the ~140 bundled roots, which no test can handshake with). So a fresh process
    // is asked for a context trusting the user's CA, with the module compiled on its own (it
    // imports only node:tls); the other CA can reach that context only through Node's store.
    const dir = mkdtempSync(join(tmpdir(), 'ces-secure-contexts-'));
    try {
      const source = readFileSync(join(findProjectRoot(), 'src/http/secure-contexts.ts'), 'utf8');
      writeFileSync(join(dir, 'secure-contexts.mjs'), transformSync(source, { loader: 'ts', format: 'esm' }).code);
      writeFileSync(join(dir, 'other-ca.pem'), otherCa.caPem);
      writeFileSync(join(dir, 'user-ca.pem'), userCa.caPem);
      writeFileSync(
        join(dir, 'probe.mjs'),
        `import tls from 'node:tls';
import { readFileSync } from 'node:fs';
import { clientContext } from './secure-contexts.mjs';
const secureContext = clientContext({ caPem: readFileSync(new URL('./user-ca.pem', import.meta.url), 'utf8') });
const out = [];
for (const port of process.argv.slice(2).map(Number)) {
  out.push(await new Promise((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port, secureContext, rejectUnauthorized: false, timeout: ${T} });
    s.once('secureConnect', () => { resolve(s.authorized); s.destroy(); });
    s.once('timeout', () => s.destroy(new Error('no handshake in time')));
    s.once('error', reject);
  }));
}
process.stdout.write(JSON.stringify(out));
`,
      );
      // Not spawnSync: the servers answering the child live in this process' event loop.
      const child = await promisify(execFile)(
        process.execPath,
        ['--use-openssl-ca', join(dir, 'probe.mjs'), String(servers.user.port), String(servers.other.port)],
        {
          env: { PATH: process.env.PATH ?? '', SSL_CERT_FILE: join(dir, 'other-ca.pem'), SSL_CERT_DIR: dir },
          encoding: 'utf8',
          timeout: 20_000,
        },
      );
      expect(child.stderr).toBe('');
      expect(JSON.parse(child.stdout)).toEqual([true, true]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
