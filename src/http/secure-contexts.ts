// One TLS secure context per client setting (trusted CA, versions, cipher offer), built once per
// process and shared by every connection that uses that setting: the TLS probes, the calibration
// probes, the preflight and the service client's connection pool.
//
// Why: without `secureContext`, tls.connect builds a new one for every connection. That is cheap
// with Node's default trust (~0.3 ms), but trusting the user's CA beside the bundled roots meant
// `ca: [...rootCertificates, caPem]`, and parsing those ~140 roots took ~30 ms of blocked event
// loop per connection: the TLS matrix, the preflight and the pool each paid it, and every other
// handshake of a run waited behind it. A context serves any number of connections (a TLS server
// shares one among all of its own); Node resumes no session unless asked to (`session`), so sharing
// one does not change what a handshake offers or how it is verified.

import tls from 'node:tls';

export interface ClientContextSettings {
  /** A CA (PEM, one or more certificates) to trust besides Node's bundled roots. */
  caPem?: string | undefined;
  /** Default: Node's (tls.DEFAULT_MIN_VERSION / DEFAULT_MAX_VERSION). */
  minVersion?: tls.SecureVersion | undefined;
  maxVersion?: tls.SecureVersion | undefined;
  /** As tls.connect's `ciphers`: the TLS ≤1.2 list and the TLS 1.3 suites (see cipher-string.ts). Default: Node's. */
  ciphers?: string | undefined;
}

const contexts = new Map<string, tls.SecureContext>();
// A run needs about ten (the eight matrix offers, the CA's trust, Node's default); a process that
// meets many CAs (the test suite, the bench: an emulator with a new CA each time) keeps the newest.
const MAX_CONTEXTS = 32;

/**
 * The shared context for these settings. Throws as tls.connect would when OpenSSL rejects them (a
 * cipher string that matches nothing here); a rejected setting is not remembered.
 */
export function clientContext(settings: ClientContextSettings = {}): tls.SecureContext {
  // Defaults spelled out, so that naming Node's default and leaving it out share one context.
  const key = JSON.stringify([
    settings.minVersion ?? tls.DEFAULT_MIN_VERSION,
    settings.maxVersion ?? tls.DEFAULT_MAX_VERSION,
    settings.ciphers ?? '',
    settings.caPem ?? '',
  ]);
  let context = contexts.get(key);
  if (!context) {
    context = build(settings);
    if (contexts.size >= MAX_CONTEXTS) contexts.delete(contexts.keys().next().value as string);
    contexts.set(key, context);
  }
  return context;
}

/** For the bench's cold runs and tests: the next connection builds its context again. */
export function clearSecureContexts(): void {
  contexts.clear();
}

interface NativeContext {
  addCACert?: (pem: string) => void;
}

function build({ caPem, ...offer }: ClientContextSettings): tls.SecureContext {
  // Without `ca`, Node trusts its bundled roots from one store it parsed once per process.
  const context = tls.createSecureContext(offer);
  if (caPem === undefined) return context;
  // Adding the user's CA to such a context gives it a fresh copy of Node's store (certificates
  // already parsed, ~1 ms) plus the CA: the same trust as `ca: [...rootCertificates, caPem]` at a
  // thirtieth of the cost, NODE_EXTRA_CA_CERTS left out alike (Node adds those only where no `ca`
  // is given). One difference, only under --use-openssl-ca: the copy is then OpenSSL's store, where
  // rootCertificates would have been Node's bundled list. `context.context` is Node's handle
  // (SecureContext, src/crypto/crypto_context.cc) and not in its documentation, so the documented
  // route stays as the fallback should a Node version drop it.
  const native = (context as { context?: NativeContext }).context;
  if (typeof native?.addCACert !== 'function')
    return tls.createSecureContext({ ...offer, ca: [...tls.rootCertificates, caPem] });
  native.addCACert(caPem);
  return context;
}
