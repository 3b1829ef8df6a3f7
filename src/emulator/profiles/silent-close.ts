// The nastiest real gateway: it closes the connection right after each answer, yet the answer says
// `Connection: keep-alive` (or nothing). A pooling client believes it may reuse the connection and
// races the close; a request sent in that race meets a closed connection before any answer byte.

import { defineProfile } from './types.js';

export const profile = defineProfile({
  name: 'silent-close',
  description:
    'the connection closes right after each answer without a Connection: close header (a proxy that does not pool client connections)',
  transport: { afterAnswer: 'close-silently', advertiseKeepAlive: false },
});
