// Bench 8: the fleet simulator against real k6 fleets. Per limiter kind (nginx's limit_req, a leaky
// bucket; HAProxy's sliding window in both recipes; the emulator's fixed window), for N = 1, 4 and
// 16 instances and every candidate policy, a k6 run of N instances (scenarios/fleet.ts) and the
// simulation of the same run, side by side: goodput and 429 rate (the goal: within 10 %), p99 of a
// logical call, requests sent. Then how long the simulator takes to size a fleet of 1,000.
//
//   benchFleet()                               the section for bench/main.ts (`npm run bench -- fleet`)
//   node scripts/run-ts.mjs bench/fleet.ts     the same, printed on its own

import { FLEET_POLICY_NAMES } from '../src/ratelimit/fleet/policy.js';
import { sizeFleet } from '../src/ratelimit/fleet/size.js';
import { recommend } from '../src/ratelimit/recommend.js';
import { describeProofLimiter, proofLimiterMissing, type ProofLimiter } from '../test/helpers/fleet-limiters.js';
import { AGREEMENT, agrees, fleetProof, relativeGap, type FleetProofRow } from '../test/helpers/fleet-proof.js';
import { median, type Section } from './stats.js';

export interface FleetBenchSetting {
  limiter: ProofLimiter;
  durationS: number;
}

/**
 * One setting per limiter kind (HAProxy's sliding window in both recipes). The windows' runs are
 * 5 s against nginx's 8 s so that the section stays within about six minutes: 60 k6 runs of their
 * duration each, the simulation beside each instant.
 */
export const FLEET_BENCH = {
  sizes: [1, 4, 16],
  overload: 1.5,
  settings: [
    { limiter: { kind: 'nginx', rate: 40, burst: 10 }, durationS: 8 },
    { limiter: { kind: 'haproxy', limit: 40, periodMs: 1000, recipe: 'admitted' }, durationS: 5 },
    { limiter: { kind: 'haproxy', limit: 40, periodMs: 1000, recipe: 'every' }, durationS: 5 },
    { limiter: { kind: 'emulator-fixed', limit: 40, windowS: 1, countsRefused: false }, durationS: 5 },
  ] satisfies FleetBenchSetting[],
} as const;

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const gap = (x: number) => (Number.isFinite(x) ? pct(x) : '∞');

/** Seconds the simulator takes to size a fleet of `instances` (every policy, sizes 1, 4, … N, surge and backlog). */
export function timeSizing(instances: number, runs: number): number[] {
  const recommendation = recommend({
    sustained_rps: 50,
    burst: 20,
    recovery_s: 0.02,
    refill_s: 0.4,
    retry_after_header: 'truthful',
    retry_after_max_s: 1,
    latency_p95_ms: 5,
  })!;
  const estimate = {
    sustained_rps: 50,
    burst: 20,
    scope: 'per-client' as const,
    retry_after_header: 'truthful' as const,
    latency_p95_ms: 5,
  };
  return Array.from({ length: runs }, () => {
    const started = performance.now();
    sizeFleet({ estimate, recommendation, instances });
    return (performance.now() - started) / 1000;
  });
}

/** One limiter's table: a row per run, k6 and the simulation side by side. */
export function fleetTable(setting: FleetBenchSetting, rows: readonly FleetProofRow[], seconds: number): Section {
  return {
    title: `Fleet: simulation vs k6 behind ${describeProofLimiter(setting.limiter)}; ${FLEET_BENCH.overload} × the limit offered for ${setting.durationS} s`,
    headers: [
      'N',
      'policy',
      'goodput k6',
      'goodput sim',
      'gap',
      '429 k6',
      '429 sim',
      'gap',
      'p99 k6 (ms)',
      'p99 sim (ms)',
      'sent k6 / sim',
      'rtt (ms)',
      'late (ms)',
      `within ${pct(AGREEMENT)}`,
    ],
    rows: rows.map((r) => {
      const k = r.k6;
      return [
        String(r.instances),
        r.policy,
        k ? k.goodput_rps.toFixed(2) : (r.error ?? '–'),
        r.sim.goodput_rps.toFixed(2),
        k ? gap(relativeGap(r.sim.goodput_rps, k.goodput_rps)) : '–',
        k ? pct(k.rate_429) : '–',
        pct(r.sim.rate_429),
        k ? gap(relativeGap(r.sim.rate_429, k.rate_429)) : '–',
        String(k?.p99_ms ?? '–'),
        String(r.sim.p99_ms ?? '–'),
        `${k?.sent ?? '–'} / ${r.sim.sent}`,
        r.latency_ms.toFixed(2),
        r.wake_late_ms.toFixed(2),
        agrees(r) ? 'yes' : 'NO',
      ];
    }),
    notes: [
      `${rows.filter(agrees).length} of ${rows.length} runs agree within ${pct(AGREEMENT)} on both goodput and 429 rate; ${Math.round(seconds)} s.`,
    ],
  };
}

export async function benchFleet(k6Path: string, bundleDir: string, progress: (m: string) => void): Promise<Section[]> {
  const missing = FLEET_BENCH.settings.map((s) => proofLimiterMissing(s.limiter)).find((m) => m !== undefined);
  if (missing) throw new Error(missing);
  const sections: Section[] = [];
  for (const setting of FLEET_BENCH.settings) {
    const started = performance.now();
    const rows = await fleetProof({
      k6Path,
      bundleDir,
      limiter: setting.limiter,
      durationS: setting.durationS,
      sizes: FLEET_BENCH.sizes,
      overload: FLEET_BENCH.overload,
      policies: FLEET_POLICY_NAMES,
      progress,
    });
    sections.push(fleetTable(setting, rows, (performance.now() - started) / 1000));
  }
  const sizing = timeSizing(1000, 5);
  sections[sections.length - 1]!.notes.push(
    "Each simulation is given the time k6 spent per attempt (rtt: mean, from sending to the answer in hand), how late its instances woke from sleeps (late: mean), when the run began on the wall clock (a fixed window's edges) and the token request k6's setup() sent through the limiter just before.",
    `Sizing a fleet of 1,000 (5 policies × sizes 1, 4, 16, 64, 256, 1000, surge and backlog each): median ${median(sizing).toFixed(2)} s of ${sizing.length} runs (min ${Math.min(...sizing).toFixed(2)}, max ${Math.max(...sizing).toFixed(2)}).`,
  );
  return sections;
}

// Run on its own (scripts/run-ts.mjs sets argv[1] to the entry file), not when bench/main.ts imports it.
if (process.argv[1]?.replace(/\\/g, '/').endsWith('bench/fleet.ts')) {
  const { locateK6 } = await import('../src/k6/locate.js');
  const { findProjectRoot } = await import('../src/fs/project-root.js');
  const { renderSection } = await import('./stats.js');
  const { join } = await import('node:path');
  const root = findProjectRoot();
  const k6 = await locateK6(process.env, root);
  for (const section of await benchFleet(k6.path, join(root, 'dist', 'scenarios'), (m) =>
    process.stderr.write(`bench: ${m}\n`),
  ))
    process.stdout.write(renderSection(section));
}
