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
  /** The handshake did not finish within `bound`: the machine was too busy, which says nothing of OpenSSL. */
  timedOut?: boolean;
  bound?: CalibrationBound;
}

/**
 * How long the calibration handshake may take, and why, in words for the report. A fixed 3 s once
 * made the verdict depend on the machine's load: on a 2-core machine at load 2–9 the loopback
 * handshake took longer, and conformant runs ended "cannot offer TLS 1.0". So the bound scales
 * with what this run measured on the same machine, and stays a bound (calibrationBound below).
 */
export interface CalibrationBound {
  ms: number;
  why: string;
  /** The per-request timeout set it: raising that (--request-timeout) raises the bound. */
  capped?: true;
}

/** Loopback answers in milliseconds on a quiet machine: the least a calibration is given. */
export const CALIBRATION_FLOOR_MS = 3_000;
/**
 * A calibration is a full handshake with both ends in this process (a key share each, the
 * server's signature); the target's refusals it is scaled from are one round trip each (the
 * ClientHello, an alert). Measured under load 15 on 2 cores (25 rounds of the five refused cases
 * against the emulator), the slowest calibration took 1.0 times the slowest refusal at the median,
 * 4.0 at most, all in tens of milliseconds, where the floor rules.
 */
export const CALIBRATION_SCALE = 4;

const seconds = (ms: number) => `${Number((ms / 1000).toPrecision(3))} s`;

/**
 * The bound for a check's calibrations: CALIBRATION_SCALE × the slowest of its handshakes with the
 * target, measured just before on this machine, at least the floor, at most the run's per-request
 * timeout (request_timeout_s, --request-timeout; never below the floor), so a silent loopback
 * still ends.
 */
export function calibrationBound(slowestHandshakeMs: number, requestTimeoutMs: number): CalibrationBound {
  const ceiling = Math.max(CALIBRATION_FLOOR_MS, requestTimeoutMs);
  const scaled = CALIBRATION_SCALE * slowestHandshakeMs;
  const measured = `${CALIBRATION_SCALE} × the slowest handshake with the target, ${seconds(slowestHandshakeMs)}`;
  if (scaled <= CALIBRATION_FLOOR_MS)
    return { ms: CALIBRATION_FLOOR_MS, why: `${seconds(CALIBRATION_FLOOR_MS)} (the floor; ${measured} is less)` };
  if (scaled >= ceiling)
    return ceiling > CALIBRATION_FLOOR_MS
      ? {
          ms: ceiling,
          why: `${seconds(ceiling)} (the ceiling, the per-request timeout; ${measured} is more)`,
          capped: true,
        }
      : {
          ms: ceiling,
          why: `${seconds(ceiling)} (the floor, which a per-request timeout of ${seconds(requestTimeoutMs)} does not lower; ${measured} is more)`,
        };
  return { ms: Math.round(scaled), why: `${seconds(scaled)} (${measured})` };
}

export interface CalibrationOptions {
  /** Default: the floor, for a case calibrated without a handshake to scale from. */
  bound?: CalibrationBound;
  /**
   * Hold each connection this long before the server side handshakes: in tests, a stand-in for a
   * machine too busy to answer in time.
   */
  holdMs?: number;
}

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

export function calibrate(c: HandshakeCase, opts: CalibrationOptions = {}): Promise<Calibration> {
  let p = memo.get(c.id);
  if (!p) {
    const bound = opts.bound ?? { ms: CALIBRATION_FLOOR_MS, why: `${seconds(CALIBRATION_FLOOR_MS)} (the floor)` };
    const running = runCalibration(c, bound, opts.holdMs ?? 0);
    memo.set(c.id, (p = running));
    // A busy moment is no property of the machine's OpenSSL: the next run (cutover's second pass,
    // the next test) calibrates again rather than inherit it.
    void running.then((cal) => cal.timedOut && memo.get(c.id) === running && memo.delete(c.id));
  }
  return p;
}

/** For tests and the bench that need a cold start. */
export function clearCalibrations(): void {
  memo.clear();
  serverContext = undefined;
}

async function runCalibration(c: HandshakeCase, bound: CalibrationBound, holdMs: number): Promise<Calibration> {
  let server: net.Server | undefined;
  let serverSaw: string | undefined;
  try {
    const secureContext = calibrationServerContext();
    // A plain TCP server whose connections are made TLS with the shared context (tls.Server
    // would build a context of its own from key and cert).
    const srv = net.createServer((raw) => {
      const serve = () => {
        const sock = new tls.TLSSocket(raw, { isServer: true, secureContext });
        // The handshake's failure, as this side saw it; and the probe closes first, so a reset on
        // this side must not become an uncaught 'error' either.
        sock.on('error', (err: NodeJS.ErrnoException) => {
          serverSaw ??= err.code ?? err.message;
        });
      };
      if (holdMs <= 0) return serve();
      raw.pause();
      raw.on('error', () => undefined);
      const held = setTimeout(() => !raw.destroyed && serve(), holdMs);
      raw.once('close', () => clearTimeout(held));
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
      timeoutMs: bound.ms,
    });
    const got = describeHandshake(r);
    if (r.ok && negotiatedAsOffered(c, r))
      return { ok: true, detail: `a loopback server that accepts ${c.label}: ${got}`, bound };
    if (r.error?.timedOut)
      return {
        ok: false,
        timedOut: true,
        bound,
        detail: `a loopback server that accepts ${c.label}: no TLS handshake within the calibration's bound, ${bound.why}`,
      };
    const seen = serverSaw ? `; the server saw ${serverSaw}` : '';
    return { ok: false, detail: `a loopback server that accepts ${c.label}: ${got}${seen}`, bound };
  } catch (err) {
    return { ok: false, detail: `no loopback server for ${c.label}: ${(err as Error).message}` };
  } finally {
    // Not awaited: closing only waits for the (already closed) probe connection.
    server?.close();
  }
}
