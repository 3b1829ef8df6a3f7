// One TLS handshake with exactly the versions and suites asked for, then close. The TLS checks are
// built from these: each offers one version or one suite alone and looks at what came back.
//
// What node:tls needs to really offer what is asked (found by experiment on Node 20 / OpenSSL 3.0):
// - TLS 1.3 suites go in the `ciphers` string under their TLS_ names; Node splits them off and
//   hands them to SSL_CTX_set_ciphersuites. tls.connect has no `ciphersuites` option: one passed
//   is silently ignored and the client offers the default three.
// - The TLS 1.3 CCM suites are not in OpenSSL's default list; naming them is enough to offer them.
// - A `ciphers` string of TLS_ names only clears the TLS 1.2 list, which is what a 1.3-only probe
//   wants; to keep a 1.2 list beside explicit 1.3 suites both have to be in the string.
// - TLS 1.0 and 1.1 need `@SECLEVEL=0` in the cipher string: at OpenSSL 3's default level 1 the
//   client aborts with ERR_SSL_LEGACY_SIGALG_DISALLOWED_OR_UNSUPPORTED (their handshakes sign with
//   SHA-1), which from the outside looks exactly like the server refusing.
// - minVersion/maxVersion override Node's defaults (TLSv1.2..TLSv1.3) per connection.

import net from 'node:net';
import tls from 'node:tls';

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
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface PeerCertificateInfo {
  subject: string;
  issuer: string;
  /** ISO 8601. */
  validTo: string;
  /** Whole days until validTo, rounded down: 0 on the last day, -1 within the day after expiry. */
  daysLeft: number;
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
  error?: HandshakeError;
  durationMs: number;
}

const DAY_MS = 86_400_000;
const LEGACY: ReadonlySet<string> = new Set(['TLSv1', 'TLSv1.1']);

/** What node:tls gets as `ciphers`: the TLS ≤1.2 list and the TLS 1.3 suites in one string. */
export function nodeCipherString(opts: Pick<HandshakeOptions, 'minVersion' | 'ciphers' | 'ciphersuites'>): string | undefined {
  const min = opts.minVersion ?? tls.DEFAULT_MIN_VERSION;
  const legacyVersion = LEGACY.has(min);
  let list = opts.ciphers;
  // Only TLS_ names would clear the ≤1.2 list; keep Node's default one unless the probe is 1.3-only.
  if (list === undefined && opts.ciphersuites !== undefined && min !== 'TLSv1.3') list = defaultLegacyList();
  if (legacyVersion) {
    list ??= 'DEFAULT';
    if (!/@SECLEVEL=/i.test(list)) list += ':@SECLEVEL=0';
  }
  const parts = [list, opts.ciphersuites].filter((p): p is string => p !== undefined && p !== '');
  return parts.length > 0 ? parts.join(':') : undefined;
}

const defaultLegacyList = () =>
  tls.DEFAULT_CIPHERS.split(':')
    .filter((c) => c !== '' && !c.startsWith('TLS_'))
    .join(':');

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
      finish({ ok: false, error: { code, message: oneLine(err.message), stage, ...alertOf(code, err.message), ...extra } });
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

    let ciphers: string | undefined;
    try {
      ciphers = nodeCipherString(opts);
      socket = tls.connect({
        host: opts.host,
        port: opts.port,
        servername: opts.servername !== undefined && net.isIP(opts.servername) === 0 ? opts.servername : undefined,
        minVersion: opts.minVersion,
        maxVersion: opts.maxVersion,
        ciphers,
        // Passing `ca` replaces Node's bundled roots, so keep them and add the user's CA. Only
        // when verifying: re-parsing the ~140 roots costs ~50 ms of CPU per handshake.
        ca: opts.verify && opts.caPem ? [...tls.rootCertificates, opts.caPem] : undefined,
        // Never let Node abort on an untrusted certificate: the handshake result (and the
        // certificate's dates) are wanted either way, and `authorized` carries the verdict.
        rejectUnauthorized: false,
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
        peerCert: certInfo(s.getPeerCertificate(false)),
      };
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

/** A TLS-level refusal: the server was reached and answered, and no handshake came of it. */
export const refused = (r: HandshakeResult): boolean => !r.ok && r.error?.stage === 'handshake' && !r.error.timedOut;

/** Evidence wording: "accepted with TLS_AES_128_GCM_SHA256 (TLSv1.3)", "refused: protocol version alert (70)". */
export function describeHandshake(r: HandshakeResult): string {
  if (r.ok) return `accepted with ${r.cipher ?? 'an unknown cipher'} (${r.protocol ?? 'unknown version'})`;
  const e = r.error;
  if (!e) return 'failed';
  if (e.timedOut) return `no answer: ${e.message}`;
  if (e.stage === 'client') return `not offered: this machine's OpenSSL rejected the options (${e.code})`;
  if (e.stage === 'connect') return `not reached: ${e.code}`;
  return `refused: ${refusalText(e)}`;
}

/** "protocol version alert (70)", or the error code when no alert came. */
export function refusalText(e: HandshakeError): string {
  if (!e.alert) return e.code;
  return e.alertNumber !== undefined ? `${e.alert} alert (${e.alertNumber})` : `${e.alert} alert`;
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

function certInfo(cert: tls.PeerCertificate | Record<string, never>): PeerCertificateInfo | undefined {
  if (!cert || !('valid_to' in cert) || !cert.valid_to) return undefined;
  const validTo = new Date(cert.valid_to);
  if (Number.isNaN(validTo.getTime())) return undefined;
  return {
    subject: dn(cert.subject),
    issuer: dn(cert.issuer),
    validTo: validTo.toISOString(),
    daysLeft: Math.floor((validTo.getTime() - Date.now()) / DAY_MS),
  };
}

// Node gives names as objects ({ CN: 'x', O: ['a', 'b'] }); reports want "CN=x, O=a, O=b".
function dn(name: tls.Certificate | undefined): string {
  if (!name) return '';
  return Object.entries(name)
    .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${k}=${String(x)}`))
    .join(', ');
}
