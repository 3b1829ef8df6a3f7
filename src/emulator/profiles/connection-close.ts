// A service (or gateway) that answers every request with `Connection: close`, as HTTP/1.0-minded
// frameworks and some WAFs do: one request per connection, a new TLS handshake for the next.

import { defineProfile } from './types.js';

export const profile = defineProfile({
  name: 'connection-close',
  description: 'every answer carries Connection: close and the server closes after it (one request per connection)',
  transport: { afterAnswer: 'close-announced' },
});
