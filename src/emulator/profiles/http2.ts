// Gateways, load balancers and CDNs (nginx, Envoy, ALBs, Cloudflare) offer HTTP/2 by ALPN beside
// HTTP/1.1, and clients that offer it too (k6, browsers, curl, undici with allowH2) then speak it.
// The spec names no HTTP version (§5.8 asks for TLS 1.3, which HTTP/2 runs over), so a conformant
// client works with either; every answer must read the same over both.

import { defineProfile } from './types.js';

export const profile = defineProfile({
  name: 'http2',
  description:
    'HTTP/2 offered by ALPN beside HTTP/1.1 (as nginx, Envoy, load balancers and CDNs do); clients that offer h2 speak it',
  transport: { http2: true },
});
