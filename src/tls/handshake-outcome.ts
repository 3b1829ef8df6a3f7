// What a handshake result means to a check (a refusal, or not) and how it reads as evidence. The
// probe returns data only; the checks, the verdicts and the calibration all judge and word it here.

import type { HandshakeError, HandshakeResult } from './handshake.js';

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
