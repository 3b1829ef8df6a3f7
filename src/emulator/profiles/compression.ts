// Gateways compress answers for clients that say they can read them (nginx `gzip on`, Envoy's
// compressor, CDNs): gzip first, then br and deflate, with Content-Encoding and
// `Vary: Accept-Encoding`. A client that sends no Accept-Encoding gets the answer as it was. HTTP
// content coding is below the spec's level (it names bodies, not their transfer), so a conformant
// client decodes what it asked for.

import { defineProfile } from './types.js';

export const profile = defineProfile({
  name: 'compression',
  description:
    "answers gzip-, br- or deflate-compressed when the request's Accept-Encoding allows it, with Vary: Accept-Encoding (as nginx gzip, Envoy and CDNs do)",
  transport: { compression: ['gzip', 'br', 'deflate'] },
});
