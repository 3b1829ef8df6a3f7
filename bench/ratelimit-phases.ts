// Where a rate-limit probe spends its time: one probe against one limiter, its requests grouped
// into runs of one phase (a new run starts when the phase changes or after 150 ms of silence, so
// each trial's clump, its single requests and the waits between them show as separate lines),
// each with the requests sent and refused, when it started and ended, and the silence before it.
// The per-phase totals follow. For tuning the probe's waits; the accuracy table is bench/ratelimit.ts.
//
//   node scripts/run-ts.mjs bench/ratelimit-phases.ts haproxy 50 1000 every|admitted
//   node scripts/run-ts.mjs bench/ratelimit-phases.ts nginx 25 10
//   node scripts/run-ts.mjs bench/ratelimit-phases.ts sliding|fixed 50 1      (the emulator's own limiter; limit, seconds)
// Loopback only; the probe is bounded by its own budget (60 s, 3,000 requests).

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmulator, type Emulator } from '../src/emulator/index.js';
import { describeLimiter } from '../src/ratelimit/limiters/index.js';
import { startHaproxy } from '../test/helpers/haproxy.js';
import { startNginx } from '../test/helpers/nginx.js';
import { phaseRuns, phaseTotals, type PhaseRun } from '../test/ratelimit/phase-runs.js';
import { probe } from '../test/ratelimit/support.js';

/** The runs one a line, then the per-phase totals. */
function formatRuns(runs: readonly PhaseRun[]): string {
  const s = (ms: number) => (ms / 1000).toFixed(3).padStart(7);
  const lines = runs.map(
    (r) =>
      `${r.phase.padEnd(15)} ${String(r.sent).padStart(4)} sent ${String(r.refused).padStart(3)} refused  ${s(r.firstMs)} – ${s(r.lastMs)} s  after ${s(r.quietBeforeMs)} s quiet`,
  );
  const totals = phaseTotals(runs).map(
    (t) =>
      `${t.phase.padEnd(15)} ${String(t.sent).padStart(4)} sent ${String(t.refused).padStart(3)} refused  ${s(t.ms)} s with its waits`,
  );
  return [...lines, '', ...totals].join('\n') + '\n';
}

async function main(argv: string[]): Promise<void> {
  const [kind = 'haproxy', a, b, recipe = 'every'] = argv;
  const tlsDir = await mkdtemp(join(tmpdir(), 'ces-bench-phases-'));
  const stops: Array<() => Promise<void>> = [];
  try {
    let emulator: Emulator;
    let url: string;
    if (kind === 'sliding' || kind === 'fixed') {
      const limit = Number(a ?? 50);
      const seconds = Number(b ?? 1);
      const limiter =
        kind === 'sliding'
          ? { kind: 'sliding-window' as const, limit, period_s: seconds, counts_refused: recipe === 'every' }
          : { kind: 'fixed-window' as const, limit, window_s: seconds, phase_s: 0, counts_refused: recipe === 'every' };
      emulator = await createEmulator({ port: 0, limiter, tlsDir });
      stops.push(() => emulator.close());
      url = emulator.url;
    } else {
      // The upstream for nginx and HAProxy: the emulator with its own limiter off, so they alone limit.
      emulator = await createEmulator({ port: 0, rateLimit: { rps: 0, burst: 0 }, tlsDir });
      stops.push(() => emulator.close());
      const proxy =
        kind === 'nginx'
          ? await startNginx({
              upstream: emulator.url,
              tlsDir,
              limit: { rate: Number(a ?? 25), burst: Number(b ?? 10) },
            })
          : await startHaproxy({
              upstream: emulator.url,
              tlsDir,
              limit: {
                limit: Number(a ?? 50),
                periodMs: Number(b ?? 1000),
                recipe: recipe === 'admitted' ? 'admitted' : 'every',
              },
            });
      stops.unshift(() => proxy.stop());
      url = proxy.url;
    }
    const run = await probe(
      { url, caPem: emulator.caPem, credentials: emulator.credentials },
      { maxRps: 200, maxDurationS: 60 },
    );
    const e = run.estimate;
    process.stdout.write(formatRuns(phaseRuns(run.samples)));
    process.stdout.write(
      `\n${e.limiter ? describeLimiter(e.limiter) : 'not identified'}: ${e.sustained_rps} req/s, ${e.requests_sent} sent, ${e.requests_limited} refused, ${run.seconds.toFixed(1)} s\n`,
    );
    for (const note of e.notes) process.stdout.write(`  note: ${note}\n`);
  } finally {
    for (const stop of stops) await stop();
    await rm(tlsDir, { recursive: true, force: true });
  }
}

// Run on its own (scripts/run-ts.mjs sets argv[1] to the entry file), not when imported.
if (process.argv[1]?.replace(/\\/g, '/').endsWith('bench/ratelimit-phases.ts')) await main(process.argv.slice(2));
