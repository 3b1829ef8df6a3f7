// The emulator behind go-chi/httprate's sliding-window counter, the limiter issue 21's reviewer
// found the probe misreads, for reproducing the proof loop by hand:
//   node scripts/run-ts.mjs bench/serve-httprate.ts        # prints {url, ca, id, secret}; Ctrl-C stops it
//   CES_CLIENT_ID=… CES_CLIENT_SECRET=… node bin/ces-harness.js ratelimit --base-url URL --ca CA
// httprate keeps two counters per key on windows aligned to the clock: the rate it reads is the
// previous window's count weighted by the share of the current window still to come, plus the
// current count, rounded; a request is refused when that reaches the limit, and only admitted
// requests are counted. Loopback only (the emulator listens on 127.0.0.1).

import { createEmulator } from '../src/emulator/index.js';
import type { LimitDecision } from '../src/ratelimit/limiters/index.js';

const LIMIT = 50;
const WINDOW_MS = 1000;

const windows = new Map<string, { startMs: number; current: number; previous: number }>();

function take(key: string, nowMs: number): LimitDecision {
  const startMs = Math.floor(nowMs / WINDOW_MS) * WINDOW_MS;
  let w = windows.get(key);
  if (w === undefined) windows.set(key, (w = { startMs, current: 0, previous: 0 }));
  if (startMs !== w.startMs) {
    w.previous = startMs - w.startMs === WINDOW_MS ? w.current : 0;
    w.current = 0;
    w.startMs = startMs;
  }
  const rate = Math.round((w.previous * (WINDOW_MS - (nowMs - startMs))) / WINDOW_MS + w.current);
  if (rate >= LIMIT) return { ok: false, retryAfterS: 1 };
  w.current += 1;
  return { ok: true };
}

const emulator = await createEmulator({
  port: 0,
  environments: ['sandbox'],
  overrides: [() => ({ limit: (ctx, key) => take(key, ctx.now) })],
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
