// The one ordinary handshake both certificate checks read: tls.certificate-valid judges its trust,
// tls.certificate-expiry its dates. Made once per run and shared, with verification on: verifying
// only judges what came back, it changes nothing the client offers or the server sends, and the
// handshake completes (and the certificate is read) whether or not the chain is trusted.

import type { CheckContext } from '../runner/check.js';
import type { TlsEndpoint } from './endpoint.js';
import { defaultHandshake } from './matrix.js';
import type { HandshakeResult } from './handshake.js';

const perRun = new WeakMap<CheckContext, Promise<HandshakeResult>>();

export function certificateHandshake(ctx: CheckContext, endpoint: TlsEndpoint): Promise<HandshakeResult> {
  let handshake = perRun.get(ctx);
  if (!handshake) {
    handshake = defaultHandshake(endpoint, { verify: true, signal: ctx.signal });
    perRun.set(ctx, handshake);
  }
  return handshake;
}
