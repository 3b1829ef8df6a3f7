// The TLS matrix of §5.8 as data: which version or suite each probe offers alone. The checks, the
// calibration servers and the tests all read these, so a case means the same offer everywhere.

import type { HandshakeOptions, TlsVersion } from './handshake.js';

export interface HandshakeCase {
  /** Unique and stable: the calibration memo is keyed by it. */
  id: string;
  /** For evidence and messages: "TLS 1.2", "TLS 1.3 with only TLS_AES_128_CCM_SHA256". */
  label: string;
  /** Offered alone (minVersion = maxVersion). */
  version: TlsVersion;
  /** TLS ≤1.2 cipher list, as for HandshakeOptions.ciphers. */
  ciphers?: string;
  /** The one TLS 1.3 suite offered, which must also be the one negotiated. */
  suite?: string;
}

/** §5.8: the only suites the service supports. */
export const ALLOWED_SUITES = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
] as const;

/** The other TLS 1.3 suites of RFC 8446 that OpenSSL can offer; §5.8 excludes them. */
export const OTHER_TLS13_SUITES = ['TLS_AES_128_CCM_SHA256', 'TLS_AES_128_CCM_8_SHA256'] as const;

const VERSION_LABEL: Record<TlsVersion, string> = {
  TLSv1: 'TLS 1.0',
  'TLSv1.1': 'TLS 1.1',
  'TLSv1.2': 'TLS 1.2',
  'TLSv1.3': 'TLS 1.3',
};
export const versionLabel = (v: string): string => VERSION_LABEL[v as TlsVersion] ?? v;

// ALL (not DEFAULT) so a legacy version is offered with every suite this OpenSSL has, weak and
// anonymous ones included: a server that would accept TLS 1.2 with anything is caught. SECLEVEL=0
// because OpenSSL 3 cannot do TLS 1.0/1.1 above it, and it lets 1.2 offer the weak suites too.
const EVERYTHING_LEGACY = 'ALL:@SECLEVEL=0';

export const versionCase = (version: Exclude<TlsVersion, 'TLSv1.3'>): HandshakeCase => ({
  id: `version:${version}`,
  label: versionLabel(version),
  version,
  ciphers: EVERYTHING_LEGACY,
});

export const suiteCase = (suite: string): HandshakeCase => ({
  id: `suite:${suite}`,
  label: `TLS 1.3 with only ${suite}`,
  version: 'TLSv1.3',
  suite,
});

export const LEGACY_VERSION_CASES: readonly HandshakeCase[] = (['TLSv1', 'TLSv1.1', 'TLSv1.2'] as const).map(
  versionCase,
);
export const ALLOWED_SUITE_CASES: readonly HandshakeCase[] = ALLOWED_SUITES.map(suiteCase);
export const OTHER_SUITE_CASES: readonly HandshakeCase[] = OTHER_TLS13_SUITES.map(suiteCase);

/** The client side of a case, for handshake(). */
export const offerOf = (
  c: HandshakeCase,
): Pick<HandshakeOptions, 'minVersion' | 'maxVersion' | 'ciphers' | 'ciphersuites'> => ({
  minVersion: c.version,
  maxVersion: c.version,
  ...(c.ciphers !== undefined ? { ciphers: c.ciphers } : {}),
  ...(c.suite !== undefined ? { ciphersuites: c.suite } : {}),
});

/** Did an accepted handshake negotiate what the case offered (and nothing else)? */
export const negotiatedAsOffered = (c: HandshakeCase, r: { protocol?: string; cipher?: string }): boolean =>
  r.protocol === c.version && (c.suite === undefined || r.cipher === c.suite);
