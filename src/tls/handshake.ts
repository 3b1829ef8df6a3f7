// One TLS handshake with exactly the versions and suites asked for, then close. The TLS checks are
// built from these: each offers one version or one suite alone and looks at what came back.
//
// How the offer is spelled for node:tls is in cipher-string.ts; what the certificate says, in
// peer-certificate.ts; how a result reads in a report, in handshake-outcome.ts.

import net from 'node:net';
import tls from 'node:tls';
import { nodeCipherString } from './cipher-string.js';
import { peerCertificateInfo, type PeerCertificateInfo } from './peer-certificate.js';
import { clientContext } from '../http/secure-contexts.js';

export type TlsVersion = 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';

export interface HandshakeOptions {
  host: string;
  port: number;
  /** SNI and the name the certificate must match; omit for an IP address (RFC 6066 forbids IPs in SNI). */
  servername?: string;
  /** Extra CA to trust besides Node's bundled roots (PEM); only read with `verify`. */
  caPem?: string;
  /** Default: Node's (tls.DEFAULT_MIN_VERSION / DEFAULT_MAX_VERSION). */
  minVersion?: TlsVersion;
  maxVersion?: TlsVersion;
  /** OpenSSL cipher list for TLS 1.2 and older. `@SECLEVEL=0` is added for TLS 1.0/1.1 unless a level is named. */
  ciphers?: string;
  /** TLS 1.3 suites, colon-separated IANA names (e.g. `TLS_AES_128_CCM_SHA256`). Default: OpenSSL's. */
  ciphersuites?: string;
  /**
   * Judge the certificate chain and hostname and report it in `authorized`. The handshake is
   * completed either way, so the certificate can still be read when it is not trusted.
   */
  verify?: boolean;
  /**
   * Read the server's certificate into `peerCert` (default: yes). The matrix cases only look at
   * what was negotiated, and Node builds the certificate object anew for every call.
   */
  readCertificate?: boolean;
  /** ALPN protocols to offer (`h2`, `http/1.1`); none by default. */
  alpn?: string[];
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface HandshakeError {
  /** Node's code, e.g. ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION, ECONNRESET, ECONNREFUSED, ETIMEDOUT. */
  code: string;
  message: string;
  /**
   * `client`: this machine could not even build the offer (OpenSSL rejected the options);
   * `connect`: no TCP connection; `handshake`: connected, then the TLS handshake failed.
   */
  stage: 'client' | 'connect' | 'handshake';
  /** The alert the server sent, when it sent one: "protocol version", "handshake failure". */
  alert?: string;
  /** Its number (RFC 8446 §6): 70, 40. */
  alertNumber?: number;
  timedOut?: boolean;
}

export interface HandshakeResult {
  ok: boolean;
  /** As Node names it: TLSv1, TLSv1.1, TLSv1.2, TLSv1.3. */
  protocol?: string;
  /** IANA name, e.g. TLS_AES_128_GCM_SHA256 or TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256. */
  cipher?: string;
  /** Only with `verify`. */
  authorized?: boolean;
  /** Only with `verify` and an untrusted certificate: OpenSSL's or Node's code, e.g. CERT_HAS_EXPIRED. */
  authorizationError?: string;
  peerCert?: PeerCertificateInfo;
  /** What ALPN settled on, with `alpn`; false when the server chose none. */
  alpnProtocol?: string | false;
  error?: HandshakeError;
  durationMs: number;
}

export function handshake(opts: HandshakeOptions): Promise<HandshakeResult> {
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 10) / 10;

  return new Promise<HandshakeResult>((resolve) => {
    let connected = false;
    let settled = false;
    let socket: tls.TLSSocket | undefined;

    const finish = (result: Omit<HandshakeResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve({ ...result, durationMs: elapsed() });
    };
    const failWith = (err: NodeJS.ErrnoException, extra: Partial<HandshakeError> = {}) => {
      const code = err.code ?? 'ERR_TLS_PROBE';
      const stage = connected ? 'handshake' : 'connect';
      finish({
        ok: false,
        error: { code, message: oneLine(err.message), stage, ...alertOf(code, err.message), ...extra },
      });
      socket?.destroy();
    };

    const timer = setTimeout(() => {
      const err: NodeJS.ErrnoException = new Error(`no TLS handshake within ${opts.timeoutMs} ms`);
      err.code = 'ETIMEDOUT';
      failWith(err, { timedOut: true });
    }, opts.timeoutMs);
    const onAbort = () => {
      const err: NodeJS.ErrnoException = new Error('handshake aborted');
      err.code = 'ABORT_ERR';
      failWith(err);
    };
    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    try {
      socket = tls.connect({
        host: opts.host,
        port: opts.port,
        servername: opts.servername !== undefined && net.isIP(opts.servername) === 0 ? opts.servername : undefined,
        // Built once per offer and shared, also with the calibration of the same case. The user's
        // CA only when verifying: without `verify` nothing is judged by it.
        secureContext: clientContext({
          caPem: opts.verify ? opts.caPem : undefined,
          minVersion: opts.minVersion,
          maxVersion: opts.maxVersion,
          ciphers: nodeCipherString(opts),
        }),
        // Never let Node abort on an untrusted certificate: the handshake result (and the
        // certificate's dates) are wanted either way, and `authorized` carries the verdict.
        rejectUnauthorized: false,
        ...(opts.alpn ? { ALPNProtocols: opts.alpn } : {}),
      });
    } catch (err) {
      // Options OpenSSL rejects outright (a cipher string that matches nothing here): this
      // machine cannot make the offer, and the target was never asked.
      return failWith(err as NodeJS.ErrnoException, { stage: 'client' });
    }
    const s = socket;

    s.once('connect', () => {
      connected = true;
    });
    s.once('secureConnect', () => {
      const cipher = s.getCipher();
      const result: Omit<HandshakeResult, 'durationMs'> = {
        ok: true,
        protocol: s.getProtocol() ?? undefined,
        cipher: cipher.standardName ?? cipher.name,
      };
      // Detailed (true): the issuer's certificate gives the run history a CA fingerprint.
      if (opts.alpn) result.alpnProtocol = s.alpnProtocol ?? false;
      if (opts.readCertificate !== false) result.peerCert = peerCertificateInfo(s.getPeerCertificate(true));
      if (opts.verify) {
        result.authorized = s.authorized;
        if (!s.authorized && s.authorizationError) result.authorizationError = String(s.authorizationError);
      }
      finish(result);
      // close_notify, then let go as soon as it is written: nothing else is read from this socket.
      s.end(() => s.destroy());
    });
    // Also after settling: a reset while closing must not become an unhandled 'error'.
    s.on('error', (err: NodeJS.ErrnoException) => failWith(err));
    s.once('close', () => {
      const err: NodeJS.ErrnoException = new Error('connection closed before the TLS handshake completed');
      err.code = 'ECONNRESET';
      failWith(err);
    });
  });
}

// Node names alerts in the error code (ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION) and numbers them in
// the message ("SSL alert number 70"); both together read best in a report.
function alertOf(code: string, message: string): Pick<HandshakeError, 'alert' | 'alertNumber'> {
  const m = /^ERR_SSL_(?:SSLV3|TLSV1|TLSV13)_ALERT_(.+)$/.exec(code);
  if (!m?.[1]) return {};
  const num = /alert number (\d+)/i.exec(message)?.[1];
  return { alert: m[1].toLowerCase().replace(/_/g, ' '), ...(num ? { alertNumber: Number(num) } : {}) };
}

// OpenSSL messages carry a source path and a trailing newline; the report wants one line.
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
