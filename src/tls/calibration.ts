// Proof that the probe really makes the offer a case claims. A refusal by the target only means
// something if this machine could have handshaken that way at all: OpenSSL builds and configs
// differ (TLS 1.0 needs SECLEVEL 0, CCM suites must be named), and a client that silently cannot
// offer TLS 1.0 sees a "refusal" from every server. So for each case a throwaway loopback server
// that accepts every version and suite is started, the same probe (offering that version or suite
// alone) is run against it, and the case counts as calibrated only if that handshake succeeds and
// negotiates what was offered. The client side alone decides what is tested: the server only must
// never be the reason a handshake fails.

import net from 'node:net';
import tls from 'node:tls';
import { ALLOWED_SUITES, negotiatedAsOffered, offerOf, OTHER_TLS13_SUITES, type HandshakeCase } from './cases.js';
import { describeHandshake } from './handshake-outcome.js';
import { handshake } from './handshake.js';
import { mintSelfSigned, type ServerCertificate } from './certs/mint.js';

export interface Calibration {
  ok: boolean;
  detail: string;
}

/** Loopback answers in milliseconds; this only bounds a broken machine. */
export const CALIBRATION_TIMEOUT_MS = 3_000;

// Per case id, per process: the answer cannot change while the process runs, and checks that
// share a case (or run concurrently) share one calibration.
const memo = new Map<string, Promise<Calibration>>();

// One self-signed certificate per process: the probe does not verify it, it only has to exist.
// ECDSA, so it works at every version from TLS 1.0 to 1.3.
let certificate: ServerCertificate | undefined;
const calibrationCert = (): ServerCertificate =>
  (certificate ??= mintSelfSigned({
    subject: { commonName: 'ces-harness calibration' },
    altNames: [{ type: 'ip', value: '127.0.0.1' }],
  }));

// The server side of every calibration, one context for all of them: reading the key and the
// certificate into a context costs ~0.8 ms, a server per case paid it again each time. TLS 1.0 to
// 1.3; SECLEVEL 0 so the server is never why TLS 1.0/1.1 fail; the TLS 1.3 suites named, since the
// CCM ones are not in OpenSSL's default list.
let serverContext: tls.SecureContext | undefined;
const calibrationServerContext = (): tls.SecureContext => {
  const { keyPem, certPem } = calibrationCert();
  return (serverContext ??= tls.createSecureContext({
    key: keyPem,
    cert: certPem,
    minVersion: 'TLSv1',
    maxVersion: 'TLSv1.3',
    ciphers: ['DEFAULT', '@SECLEVEL=0', ...ALLOWED_SUITES, ...OTHER_TLS13_SUITES].join(':'),
  }));
};

export function calibrate(c: HandshakeCase): Promise<Calibration> {
  let p = memo.get(c.id);
  if (!p) memo.set(c.id, (p = runCalibration(c)));
  return p;
}

/** For tests and the bench that need a cold start. */
export function clearCalibrations(): void {
  memo.clear();
  serverContext = undefined;
}

async function runCalibration(c: HandshakeCase): Promise<Calibration> {
  let server: net.Server | undefined;
  let serverSaw: string | undefined;
  try {
    const secureContext = calibrationServerContext();
    // A plain TCP server whose connections are made TLS with the shared context (tls.Server
    // would build a context of its own from key and cert).
    const srv = net.createServer((raw) => {
      const sock = new tls.TLSSocket(raw, { isServer: true, secureContext });
      // The handshake's failure, as this side saw it; and the probe closes first, so a reset on
      // this side must not become an uncaught 'error' either.
      sock.on('error', (err: NodeJS.ErrnoException) => {
        serverSaw ??= err.code ?? err.message;
      });
    });
    server = srv;
    await new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(0, '127.0.0.1', () => resolve());
    });
    const address = srv.address();
    if (address === null || typeof address === 'string') throw new Error('loopback server has no port');

    const r = await handshake({
      host: '127.0.0.1',
      port: address.port,
      ...offerOf(c),
      readCertificate: false,
      timeoutMs: CALIBRATION_TIMEOUT_MS,
    });
    const got = describeHandshake(r);
    if (r.ok && negotiatedAsOffered(c, r))
      return { ok: true, detail: `a loopback server that accepts ${c.label}: ${got}` };
    const seen = serverSaw ? `; the server saw ${serverSaw}` : '';
    return { ok: false, detail: `a loopback server that accepts ${c.label}: ${got}${seen}` };
  } catch (err) {
    return { ok: false, detail: `no loopback server for ${c.label}: ${(err as Error).message}` };
  } finally {
    // Not awaited: closing only waits for the (already closed) probe connection.
    server?.close();
  }
}
