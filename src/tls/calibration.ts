// Proof that the probe really makes the offer a case claims. A refusal by the target only means
// something if this machine could have handshaken that way at all: OpenSSL builds and configs
// differ (TLS 1.0 needs SECLEVEL 0, CCM suites must be named), and a client that silently cannot
// offer TLS 1.0 sees a "refusal" from every server. So for each case a throwaway loopback server
// accepting exactly that version or suite is started, the same probe is run against it, and the
// case counts as calibrated only if that handshake succeeds and negotiates what was offered.

import tls from 'node:tls';
import { negotiatedAsOffered, offerOf, type ProbeCase } from './cases.js';
import { describeHandshake } from './handshake-outcome.js';
import { handshake } from './probe.js';
import { mintSelfSigned, type ServerCertificate } from './certs/mint.js';

export interface Calibration {
  ok: boolean;
  detail: string;
}

/** Loopback answers in milliseconds; this only bounds a broken machine. */
export const CALIBRATION_TIMEOUT_MS = 3_000;

// The server side offers broadly at the case's version; the client side (the case) decides what
// is really tested. SECLEVEL 0 so the server never is the reason TLS 1.0/1.1 fails.
const serverCiphers = (c: ProbeCase) => c.suite ?? 'DEFAULT:@SECLEVEL=0';

// Per case id, per process: the answer cannot change while the process runs, and checks that
// share a case (or run concurrently) share one calibration.
const memo = new Map<string, Promise<Calibration>>();

// One self-signed certificate per process: the probe does not verify it, it only has to exist.
// ECDSA, so it works at every version from TLS 1.0 to 1.3.
let certificate: ServerCertificate | undefined;
const calibrationCert = (): ServerCertificate =>
  (certificate ??= mintSelfSigned({ subject: { commonName: 'ces-harness calibration' }, altNames: [{ type: 'ip', value: '127.0.0.1' }] }));

export function calibrate(c: ProbeCase): Promise<Calibration> {
  let p = memo.get(c.id);
  if (!p) memo.set(c.id, (p = runCalibration(c)));
  return p;
}

/** For tests that need a cold start. */
export function clearCalibrations(): void {
  memo.clear();
}

async function runCalibration(c: ProbeCase): Promise<Calibration> {
  let server: tls.Server | undefined;
  let serverSaw: string | undefined;
  try {
    const { keyPem, certPem } = calibrationCert();
    const srv = tls.createServer({ key: keyPem, cert: certPem, minVersion: c.version, maxVersion: c.version, ciphers: serverCiphers(c) }, (sock) => {
      // The probe closes first; a reset on this side must not become an uncaught 'error'.
      sock.on('error', () => {});
      sock.end();
    });
    server = srv;
    srv.on('tlsClientError', (err: NodeJS.ErrnoException) => {
      serverSaw = err.code ?? err.message;
    });
    await new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(0, '127.0.0.1', () => resolve());
    });
    const address = srv.address();
    if (address === null || typeof address === 'string') throw new Error('loopback server has no port');

    const r = await handshake({ host: '127.0.0.1', port: address.port, ...offerOf(c), readCertificate: false, timeoutMs: CALIBRATION_TIMEOUT_MS });
    const got = describeHandshake(r);
    if (r.ok && negotiatedAsOffered(c, r)) return { ok: true, detail: `a loopback server accepting only ${c.label}: ${got}` };
    const seen = serverSaw ? `; the server saw ${serverSaw}` : '';
    return { ok: false, detail: `a loopback server accepting only ${c.label}: ${got}${seen}` };
  } catch (err) {
    return { ok: false, detail: `no loopback server for ${c.label}: ${(err as Error).message}` };
  } finally {
    // Not awaited: closing only waits for the (already closed) probe connection.
    server?.close();
  }
}
