// Building the `ciphers` string that makes node:tls offer exactly the versions and suites a probe
// asks for. Kept apart from the handshake because it is pure and is where the experiments below live.
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

import tls from 'node:tls';

const LEGACY: ReadonlySet<string> = new Set(['TLSv1', 'TLSv1.1']);

/** What node:tls gets as `ciphers`: the TLS ≤1.2 list and the TLS 1.3 suites in one string. */
export function nodeCipherString(opts: {
  minVersion?: string;
  ciphers?: string;
  ciphersuites?: string;
}): string | undefined {
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
