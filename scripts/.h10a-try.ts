import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmulator } from '../src/emulator/index.js';
import { startHaproxy } from '../test/helpers/haproxy.js';
import { probe } from '../test/ratelimit/support.js';
const tlsDir = await mkdtemp(join(tmpdir(), 'ces-hap-try-'));
const emu = await createEmulator({ port: 0, rateLimit: { rps: 0, burst: 0 }, tlsDir });
for (const recipe of ['admitted', 'every'] as const) {
  const h = await startHaproxy({ upstream: emu.url, tlsDir, limit: { limit: 50, periodMs: 1000, recipe } });
  try {
    const r = await probe({ url: h.url, caPem: emu.caPem, credentials: emu.credentials }, { maxRps: 200 });
    const e = r.estimate;
    console.log(recipe, JSON.stringify({ limiter: e.limiter, s: e.sustained_rps, sent: e.requests_sent, lim: e.requests_limited, secs: r.seconds.toFixed(1), ev: e.limiter_evidence, notes: e.notes }, null, 1));
  } finally { await h.stop(); }
}
await emu.close();
