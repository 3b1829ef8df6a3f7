import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { createEmulator } from '../src/emulator/index.js';
import { startHaproxy } from '../test/helpers/haproxy.js';
const tlsDir = await mkdtemp(join(tmpdir(), 'ces-hap-try-'));
const emu = await createEmulator({ port: 0, rateLimit: { rps: 0, burst: 0 }, tlsDir });
const agent = new Agent({ connect: { ca: emu.caPem }, connections: 16 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const h = await startHaproxy({ upstream: emu.url, tlsDir, limit: { limit: 50, periodMs: 1000, recipe: 'admitted' } });
const call = async () => (await request(h.url + (process.env.P ?? '/tokens/health_check'), { method: (process.env.M ?? 'POST') as 'POST', dispatcher: agent }).then(async (r) => { await r.body.text(); return r.statusCode; }));
const t00 = performance.now();
for (let trial = 0; trial < 5; trial++) {
  await sleep(2100);
  const t0 = performance.now();
  const ps: Promise<number>[] = []; for (let i = 0; i < 50; i++) { ps.push(call()); await sleep(5); }
  const clump = await Promise.all(ps);
  const out: string[] = [];
  for (const x of [300, 600, 900, 1010]) { const w = t0 + x - performance.now(); if (w > 0) await sleep(w); const s = await call(); out.push(`${Math.round(performance.now() - t0)}:${s === 429 ? 'x' : 'o'}`); if (s !== 429) break; }
  console.log('trial at', Math.round(t0 - t00), 'clump refused', clump.filter((s) => s === 429).length, out.join(' '));
}
await h.stop(); await agent.close(); await emu.close();
