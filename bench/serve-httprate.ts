// The emulator behind go-chi/httprate's sliding-window counter, the limiter issue 21's reviewer
// found the probe misreads, for reproducing the proof loop by hand:
//   node scripts/run-ts.mjs bench/serve-httprate.ts        # prints {url, ca, id, secret}; Ctrl-C stops it
//   CES_CLIENT_ID=… CES_CLIENT_SECRET=… node bin/ces-harness.js ratelimit --base-url URL --ca CA
// httprate keeps two counters per key on windows aligned to the clock: the rate it reads is the
// previous window's count weighted by the share of the current window still to come, plus the
// current count, rounded; a request is refused when that reaches the limit, and only admitted
// requests are counted. Loopback only (the emulator listens on 127.0.0.1).

import { createEmulator } from '../src/emulator/index.js';

// go-chi/httprate v0.16.1 as the emulator runs it (src/ratelimit/limiters/sliding-counter.ts):
// `serve --limiter counter --rate-limit 50 --window 1` is the same from the command line.
const emulator = await createEmulator({
  port: 0,
  environments: ['sandbox'],
  limiter: { kind: 'sliding-counter', limit: 50, window_s: 1, phase_s: 0, counts_refused: false },
});
console.log(
  JSON.stringify({
    url: emulator.url,
    ca: emulator.caFile,
    id: emulator.credentials.clientId,
    secret: emulator.credentials.clientSecret,
  }),
);
process.once('SIGINT', () => void emulator.close().then(() => process.exit(0)));
process.once('SIGTERM', () => void emulator.close().then(() => process.exit(0)));
