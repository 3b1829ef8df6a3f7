// Before any check: can we reach the target and do we trust its certificate? Failing here is the
// contract's exit 3, with one line saying what happened and what to do, rather than thirty checks
// erroring. Only a TLS-level refusal (an alert, a protocol version the service will not speak)
// counts as reachable: that is the TLS checks' finding to report, not a reason to stop.

import { connect, type PeerCertificate } from 'node:tls';
import { isIP, type Socket } from 'node:net';
import { HarnessError } from '../errors.js';
import { isProduction, type Target } from '../config/target.js';
import type { ProductionGate } from '../http/production-gate.js';
import { requestTimeoutMs } from '../http/dispatcher.js';
import { clientContext } from '../http/secure-contexts.js';
import { proxyFor, shownProxy } from '../http/proxy.js';
import { openTunnel, type TunnelError } from '../http/proxy-tunnel.js';

/** What a connection error means for a user, and what to do; code → [what happened, fix]. */
const UNREACHABLE: Record<string, [string, string]> = {
  ECONNREFUSED: ['connection refused: nothing listens there', 'check the URL and port, and that the service is up'],
  ECONNRESET: [
    'the connection was closed or reset before the TLS handshake finished',
    'check that the port speaks HTTPS and that no proxy or firewall cuts the connection',
  ],
  EPIPE: [
    'the connection was closed before the TLS handshake finished',
    'check that the port speaks HTTPS and that no proxy or firewall cuts the connection',
  ],
  ENOTFOUND: ['the host name does not resolve', 'check the host name in the URL and your DNS'],
  EAI_AGAIN: ['the host name could not be resolved (DNS did not answer)', 'check your DNS and network'],
  EAI_FAIL: ['the host name could not be resolved (DNS failure)', 'check your DNS and network'],
  EHOSTUNREACH: ['no route to the host', 'check the network, a VPN or proxy'],
  ENETUNREACH: ['the network is unreachable', 'check the network, a VPN or proxy'],
};

export function hostAndPort(baseUrl: string): { host: string; port: number; servername?: string } {
  const url = new URL(baseUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return { host, port: url.port ? Number(url.port) : 443, ...(isIP(host) ? {} : { servername: host }) };
}

interface Attempt {
  baseUrl: string;
  host: string;
  /** The extra CA file the user gave (--ca, ca_file), if any. */
  caFile?: string;
  /** The TCP connection was up: the silence or the failure came after it. */
  connected: boolean;
  /** Our own timer ended the attempt. */
  timedOut: boolean;
  /** The TLS handshake completed: what fails after it is the answer's absence, not the connection's. */
  handshaken?: boolean;
  timeoutMs: number;
}

/** The exit-3 error for a failed handshake attempt, or undefined when the target is reachable. */
export function preflightError(err: NodeJS.ErrnoException, a: Attempt): HarnessError | undefined {
  const code = err.code ?? 'ERROR';
  const seconds = `${a.timeoutMs / 1000} s`;
  if (a.timedOut) {
    return a.connected
      ? new HarnessError(
          'TARGET_UNREACHABLE',
          `${a.baseUrl} accepted the connection but completed no TLS handshake within ${seconds}; check that the port speaks HTTPS and the service is not stuck`,
        )
      : new HarnessError(
          'TARGET_UNREACHABLE',
          `cannot reach ${a.baseUrl}: no connection within ${seconds}; check the URL, the network and that the service is up`,
        );
  }
  // Reachable, and the handshake failed for protocol reasons: the TLS checks say why.
  if (code.startsWith('ERR_SSL') || code === 'EPROTO') return undefined;
  const [what, fix] = UNREACHABLE[code] ?? [err.message, 'check the URL, the network and that the service is up'];
  return new HarnessError('TARGET_UNREACHABLE', `cannot reach ${a.baseUrl} (${code}: ${what}); ${fix}`);
}

/** The exit-3 line for a proxy that would not open the tunnel: the proxy is the thing to fix, not the service. */
export function proxyError(err: TunnelError, proxy: string, baseUrl: string): HarnessError {
  const what =
    err.proxyStatus !== undefined
      ? err.message
      : `${err.code ?? 'ERROR'}: ${UNREACHABLE[err.code ?? '']?.[0] ?? err.message}`;
  return new HarnessError(
    'TARGET_UNREACHABLE',
    `cannot reach ${baseUrl} through the proxy ${shownProxy(proxy)} (${what}); check HTTPS_PROXY, or list the host in NO_PROXY to connect directly`,
  );
}

export async function preflight(
  target: Target,
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<PreflightRequest> {
  const { host, port, servername } = hostAndPort(target.baseUrl);
  const attempt: Attempt = {
    baseUrl: target.baseUrl,
    host,
    ...(target.caFile ? { caFile: target.caFile } : {}),
    connected: false,
    timedOut: false,
    timeoutMs: options.timeoutMs ?? requestTimeoutMs(target),
  };
  // Through the proxy the environment names, as every request of the run will go (dispatcher.ts).
  const proxy = proxyFor(target, options.env ?? process.env);
  let tunnel: Socket | undefined;
  if (proxy !== undefined) {
    tunnel = await openTunnel(proxy, host, port, attempt.timeoutMs).catch((err: TunnelError) =>
      Promise.reject(proxyError(err, proxy, target.baseUrl)),
    );
    attempt.connected = true;
  }
  return new Promise<PreflightRequest>((resolve, reject) => {
    const socket = connect({
      ...(tunnel ? { socket: tunnel } : { host, port }),
      ...(servername ? { servername } : {}),
      // The service client's trust for this CA (bundled roots plus the user's CA), built once.
      // Deliberately permissive on versions: a service that wrongly speaks TLS 1.2 is reachable, and
      // the TLS checks, not this preflight, must be the ones to say it is non-conformant.
      secureContext: clientContext({ caPem: target.caPem, minVersion: 'TLSv1.2' }),
      // Judged below rather than by node:tls, which would drop the connection before the
      // certificate could be read: what is wrong with it (name, dates, issuer) is the message.
      rejectUnauthorized: false,
      // The probe speaks HTTP/1.1: said by ALPN, so a service that serves only HTTP/2 refuses it
      // with an alert (reachable: the checks say the rest) rather than closing an unasked connection.
      ALPNProtocols: ['http/1.1'],
    });
    socket.once('connect', () => (attempt.connected = true));
    // Covers the TCP connect, the handshake and the answer: a server that accepts and never answers included.
    const timer = setTimeout(() => {
      attempt.timedOut = true;
      socket.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' }));
    }, attempt.timeoutMs);
    const settle = (error: HarnessError | undefined, answered?: PreflightRequest) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(answered ?? { reached: 'handshake' });
    };
    socket.once('secureConnect', () => {
      const untrusted = socket.authorized
        ? undefined
        : certificateError(String(socket.authorizationError), peerFacts(socket.getPeerCertificate()), attempt);
      if (untrusted) return settle(untrusted);
      attempt.handshaken = true;
      // A handshake is not an answer: a TLS terminator with no backend completes it and then
      // closes every connection, and each check would error (exit 1). One §4.2 health check, which
      // needs no credentials, tells a service that answers from one that cannot.
      const sentAt = Date.now();
      const started = performance.now();
      socket.write(
        `${PROBE.method} ${PROBE.path} HTTP/1.1\r\nHost: ${new URL(target.baseUrl).host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
      );
      socket.once('data', (chunk: Buffer) => {
        const status = /^HTTP\/\d(?:\.\d)? (\d{3})/.exec(chunk.toString('latin1'))?.[1];
        settle(undefined, {
          reached: 'answer',
          ...PROBE,
          status: status === undefined ? null : Number(status),
          sentAt,
          durationMs: Math.round(performance.now() - started),
        });
      });
      socket.once('end', () => settle(closedWithoutAnswer(attempt, 'closed')));
    });
    // `on`, not `once`: a second error (a reset after our own end()) must not go unhandled.
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (attempt.handshaken) return settle(closedWithoutAnswer(attempt, err.code ?? 'ERROR'));
      settle(preflightError(err, attempt));
    });
  });
}

/** The request the preflight sends once the handshake is done: §4.2, no credentials, no body. */
const PROBE = { method: 'POST', path: '/tokens/health_check' } as const;

/** What the preflight learned: the target answered a request (the one it sent, for production's audit), or only shook hands. */
export type PreflightRequest =
  | { reached: 'answer'; method: string; path: string; status: number | null; sentAt: number; durationMs: number }
  | { reached: 'handshake' };

/**
 * The preflight's request in production's audit trail and budget, like every request sent there.
 * It was sent before the gate existed: a budget already spent cannot unsend it, so it is listed anyway.
 */
export function auditPreflight(gate: ProductionGate | undefined, target: Target, sent: PreflightRequest): void {
  if (!gate || !isProduction(target) || sent.reached !== 'answer') return;
  try {
    gate.admit(sent.path, 'none');
  } catch {
    // the budget is the gate's to report (budget_reached); the request is listed below all the same
  }
  gate.record({
    environment: target.environment,
    method: sent.method,
    path: sent.path,
    status: sent.status,
    at: new Date(sent.sentAt).toISOString(),
    duration_ms: sent.durationMs,
    auth: 'none',
  });
}

/** The exit-3 error for a target that completed the TLS handshake and then gave no answer. */
function closedWithoutAnswer(a: Attempt, how: string): HarnessError {
  if (a.timedOut)
    return new HarnessError(
      'TARGET_UNREACHABLE',
      `${a.baseUrl} completed the TLS handshake but sent no answer to ${PROBE.method} ${PROBE.path} within ${a.timeoutMs / 1000} s; check that the service behind the TLS endpoint is up and not stuck`,
    );
  return new HarnessError(
    'TARGET_UNREACHABLE',
    `cannot reach ${a.baseUrl}: it completed the TLS handshake, then ${how === 'closed' ? 'closed the connection' : `dropped it (${how})`} without answering ${PROBE.method} ${PROBE.path}; check that the service behind the TLS endpoint (a proxy's or load balancer's backend) is up`,
  );
}

/** What the certificate says about itself, for the message. */
export interface PeerFacts {
  subject: string;
  issuer: string;
  /** The DNS names and IP addresses it is for (subjectAltName, else the common name). */
  names: string[];
  validFrom: string;
  validTo: string;
}

function peerFacts(cert: PeerCertificate | Record<string, never>): PeerFacts | undefined {
  if (!cert || !('subject' in cert)) return undefined;
  const cn = (dn: PeerCertificate['subject'] | undefined) =>
    dn?.CN ? String(dn.CN) : dn?.O ? String(dn.O) : 'no name';
  const alt = (cert.subjectaltname ?? '')
    .split(', ')
    .map((n) => n.replace(/^(DNS|IP Address):/, ''))
    .filter(Boolean);
  return {
    subject: cn(cert.subject),
    issuer: cn(cert.issuer),
    names: alt.length ? alt : cert.subject?.CN ? [String(cert.subject.CN)] : [],
    validFrom: isoDate(cert.valid_from),
    validTo: isoDate(cert.valid_to),
  };
}

const isoDate = (text: string | undefined) => {
  const d = new Date(text ?? '');
  return Number.isNaN(d.getTime()) ? (text ?? 'an unknown date') : d.toISOString().replace(/\.\d{3}Z$/, 'Z');
};

/** The exit-3 error for a certificate that did not verify, with what the handshake showed: `cutover` reports production's as a finding. */
export class UntrustedCertificate extends HarnessError {
  constructor(
    message: string,
    /** The verification code, e.g. UNABLE_TO_VERIFY_LEAF_SIGNATURE. */
    readonly verifyCode: string,
    /** The leaf's issuer (common name), when the certificate could be read. */
    readonly leafIssuer: string | undefined,
  ) {
    super('CERT_UNTRUSTED', message);
  }
}

// The chain does not end in a CA this machine trusts: the one case --ca can fix.
const UNKNOWN_ISSUER = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_UNTRUSTED',
]);

/**
 * The exit-3 line for a certificate the handshake did not verify: what is actually wrong with it,
 * and the fix for that. Only an unknown issuer is told to pass --ca; a wrong name, an expiry or a
 * clock is not something a CA file can mend.
 */
export function certificateError(
  code: string,
  peer: PeerFacts | undefined,
  a: Pick<Attempt, 'baseUrl' | 'host' | 'caFile'>,
): HarnessError {
  const of = `the certificate of ${a.baseUrl}`;
  const line = (text: string) => new UntrustedCertificate(text, code, peer?.issuer);
  const givenCa = a.caFile ? `the CA in ${a.caFile}` : undefined;
  switch (code) {
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
    case 'HOSTNAME_MISMATCH':
      return line(
        `${of} is for ${peer?.names.length ? peer.names.join(', ') : 'no host name'}, not ${a.host}; use a URL with a host name it names, or have it reissued for ${a.host}`,
      );
    case 'CERT_HAS_EXPIRED':
      return line(
        `${of} expired on ${peer?.validTo ?? 'an earlier date'}; the service must renew it (no --ca can fix an expired certificate)`,
      );
    case 'CERT_NOT_YET_VALID':
      return line(
        `${of} is not valid until ${peer?.validFrom ?? 'a later date'}; check this machine's clock (date -u), or wait until it is valid`,
      );
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
      return line(
        `${of} is self-signed (${peer?.subject ?? 'no name'}) and not trusted; ${givenCa ? `${givenCa} is another certificate: give this one` : 'pass --ca FILE (or ca_file in the config) with this very certificate'}`,
      );
  }
  if (UNKNOWN_ISSUER.has(code)) {
    const issuer = peer ? `is issued by ${peer.issuer}, ` : '';
    return givenCa
      ? line(
          `${of} ${issuer}which neither the system roots nor ${givenCa} signed (${code}); give the CA that signed it`,
        )
      : line(
          `${of} ${issuer}which this machine does not trust (${code}); pass --ca FILE (or ca_file in the config) with the CA that signed it`,
        );
  }
  return line(`${of} is not trusted (${code}); check the service's certificate chain`);
}
