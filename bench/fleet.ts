// Bench 7: the fleet simulator against real k6 fleets. For N = 1, 4 and 16 instances and every
// candidate policy, a k6 run of N instances (scenarios/fleet.ts) behind nginx's limit_req and the
// simulation of the same run, side by side: goodput and 429 rate (the goal: within 10 %), p99
// of a logical call, requests sent. Then how long the simulator takes to size a fleet of 1,000.
//
//   benchFleet()                               the section for bench/main.ts (`npm run bench -- fleet`)
//   node scripts/run-ts.mjs bench/fleet.ts     the same, printed on its own

import { FLEET_POLICY_NAMES } from '../src/ratelimit/fleet/policy.js';
import { sizeFleet } from '../src/ratelimit/fleet/size.js';
import { recommend } from '../src/ratelimit/recommend.js';
import { nginxMissing } from '../test/helpers/nginx.js';
import { AGREEMENT, agrees, fleetProof, relativeGap } from '../test/helpers/fleet-proof.js';
import { median, renderSection, type Section } from './stats.js';

export const FLEET_BENCH = { rate: 40, burst: 10, sizes: [1, 4, 16], durationS: 10, overload: 1.5 } as const;

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const gap = (x: number) => (Number.isFinite(x) ? pct(x) : '∞');

/** Seconds the simulator takes to size a fleet of `instances` (every policy, sizes 1, 4, … N, surge and backlog). */
export function timeSizing(instances: number, runs: number): number[] {
  const recommendation = recommend({ sustained_rps: 50, burst: 20, recovery_s: 0.02, refill_s: 0.4, retry_after_header: 'truthful', retry_after_max_s: 1, latency_p95_ms: 5 })!;
  const estimate = { sustained_rps: 50, burst: 20, scope: 'per-client' as const, retry_after_header: 'truthful' as const, latency_p95_ms: 5 };
  return Array.from({ length: runs }, () => {
    const started = performance.now();
    sizeFleet({ estimate, recommendation, instances });
    return (performance.now() - started) / 1000;
  });
}

export async function benchFleet(k6Path: string, bundleDir: string, progress: (m: string) => void): Promise<Section> {
  const missing = nginxMissing();
  if (missing) throw new Error(missing);
  const rows = await fleetProof({ k6Path, bundleDir, ...FLEET_BENCH, policies: FLEET_POLICY_NAMES, progress });
  const sizing = timeSizing(1000, 5);
  return {
    title: `7. Fleet: simulation vs k6 behind nginx limit_req ${FLEET_BENCH.rate} r/s, burst ${FLEET_BENCH.burst}; ${FLEET_BENCH.overload} × the limit offered for ${FLEET_BENCH.durationS} s`,
    headers: ['N', 'policy', 'goodput k6', 'goodput sim', 'gap', '429 k6', '429 sim', 'gap', 'p99 k6 (ms)', 'p99 sim (ms)', 'sent k6 / sim', 'rtt (ms)', `within ${pct(AGREEMENT)}`],
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
        agrees(r) ? 'yes' : 'NO',
      ];
    }),
    notes: [
      `${rows.filter(agrees).length} of ${rows.length} runs agree within ${pct(AGREEMENT)} on both goodput and 429 rate.`,
      'The simulation of each run is given the round trip k6 measured (median http_req_duration) and nginx modelled as a token bucket of its rate and burst + 1.',
      `Sizing a fleet of 1,000 (5 policies × sizes 1, 4, 16, 64, 256, 1000, surge and backlog each): median ${median(sizing).toFixed(2)} s of ${sizing.length} runs (min ${Math.min(...sizing).toFixed(2)}, max ${Math.max(...sizing).toFixed(2)}).`,
    ],
  };
}

// Run on its own (scripts/run-ts.mjs sets argv[1] to the entry file), not when bench/main.ts imports it.
if (process.argv[1]?.replace(/\\/g, '/').endsWith('bench/fleet.ts')) {
  const { locateK6 } = await import('../src/k6/locate.js');
  const { findProjectRoot } = await import('../src/fs/project-root.js');
  const { join } = await import('node:path');
  const root = findProjectRoot();
  const k6 = await locateK6(process.env, root);
  process.stdout.write(renderSection(await benchFleet(k6.path, join(root, 'dist', 'scenarios'), (m) => process.stderr.write(`bench: ${m}\n`))));
}
