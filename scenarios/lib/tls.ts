// §5.8 as k6 reports it: `res.tls_version` is "tls1.3" etc., `res.tls_cipher_suite` the IANA name.

import { counter } from './metrics';

export const REQUIRED_TLS_VERSION = 'tls1.3';

export const ALLOWED_SUITES: readonly string[] = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
];

// Every version and suite k6 can report (k6 lib/tlsconfig.go), one counter each, created up
// front because k6 only allows metrics in the init context. Only those that occur get samples,
// so the summary names exactly what the service negotiated (tags would not reach the summary).
const VERSIONS = ['tls1.0', 'tls1.1', 'tls1.2', 'tls1.3'];
const SUITES = [
  ...ALLOWED_SUITES,
  'TLS_RSA_WITH_RC4_128_SHA',
  'TLS_RSA_WITH_3DES_EDE_CBC_SHA',
  'TLS_RSA_WITH_AES_128_CBC_SHA',
  'TLS_RSA_WITH_AES_256_CBC_SHA',
  'TLS_RSA_WITH_AES_128_CBC_SHA256',
  'TLS_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_ECDSA_WITH_RC4_128_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_RC4_128_SHA',
  'TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305',
  'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256',
];

const metricName = (prefix: string, value: string) => `${prefix}${value.replace(/[^A-Za-z0-9_]/g, '_')}`;
const versionCounters = new Map(VERSIONS.map((v) => [v, counter(metricName('tls_seen_version_', v))]));
const suiteCounters = new Map(SUITES.map((s) => [s, counter(metricName('tls_seen_suite_', s))]));
const otherSeen = counter('tls_seen_other');

/** Counts one response's negotiated version and suite. */
export function recordNegotiated(version: string, suite: string): void {
  const v = versionCounters.get(version);
  const s = suiteCounters.get(suite);
  v?.add(1);
  s?.add(1);
  if (v === undefined || s === undefined) otherSeen.add(1);
}
