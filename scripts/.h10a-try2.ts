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
for (const recipe of ['admitted'] as const) {
  const h = await startHaproxy({ upstream: emu.url, tlsDir, limit: { limit: 50, periodMs: 1000, recipe } });
  const call = async () => (await request(h.url + '/tokens/health_check', { method: 'POST', dispatcher: agent }).then(async (r) => { await r.body.text(); return r.statusCode; }));
  try {
    await call(); if (process.env.HIST) { for (let i = 0; i < 50; i++) { void call(); await sleep(5); } await sleep(800); for (let i = 0; i < 6; i++) { await call(); await sleep(20); } } await sleep(Number(process.env.IDLE ?? 2500));
    const t0 = performance.now();
    const clump: number[] = [];
    const ps: Promise<number>[] = []; for (let i = 0; i < 50; i++) { ps.push(call()); await sleep(Number(process.env.GAP ?? 4)); } clump.push(...(await Promise.all(ps)));
    const out: string[] = [];
    for (let i = 0; i < 120; i++) {
      const at = 300 + i * 15;
      const w = t0 + at - performance.now(); if (w > 0) await sleep(w);
      const s = await call();
      out.push(`${Math.round(performance.now() - t0)}:${s === 429 ? 'x' : 'o'}`);
    }
    console.log(recipe, 'clump', clump.filter((s) => s === 429).length, 'refused;', out.join(' '));
  } finally { await h.stop(); }
}
await agent.close(); await emu.close();
