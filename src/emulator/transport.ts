// How a listener talks, apart from what it answers: the parts a gateway in front of the service
// decides. The conformant default is the emulator's own; profiles (profiles/) change them the way
// real deployments do, which the spec allows.

import type { ContentCoding } from '../http/content-coding.js';

export interface Transport {
  /** How long an idle keep-alive connection stays open, ms (gateways often close them within a second or two). */
  keepAliveMs: number;

  // What the HTTP layer offers (profiles http2, compression).
  /** HTTP/2 offered by ALPN beside HTTP/1.1, as most gateways and CDNs do. */
  http2: boolean;
  /** Codings answers are compressed with when the request's Accept-Encoding allows one, preferred first; none when empty. */
  compression: readonly ContentCoding[];
}

/** Long enough for k6 and undici to reuse connections, short enough not to hoard sockets. */
export const DEFAULT_TRANSPORT: Transport = {
  keepAliveMs: 5_000,

  http2: false,
  compression: [],
};
