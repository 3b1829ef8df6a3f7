// The real limiters the fleet proof (fleet-proof.ts) runs k6 fleets against, one kind each, and for
// each: how to start a fresh one on loopback, the model the simulator replays it with, and the
// single-client figures `ratelimit` would read from it (what the candidate policies derive from).
//  - nginx `limit_req` (a leaky bucket), in front of the emulator;
//  - HAProxy's stick-table `http_req_rate(<period>)` (a sliding window), both recipes, in front of
//    the emulator;
//  - the emulator's own fixed window (edges at whole multiples of the window on the wall clock).

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import type { LimiterModel } from '../../src/ratelimit/limiters/index.js';
import type { RecommendInput } from '../../src/ratelimit/recommend.js';
import { haproxyMissing, startHaproxy } from './haproxy.js';
import { nginxMissing, startNginx } from './nginx.js';

export type ProofLimiter =
  | { kind: 'nginx'; rate: number; burst: number }
  | { kind: 'haproxy'; limit: number; periodMs: number; recipe: 'every' | 'admitted' }
  | { kind: 'emulator-fixed'; limit: number; windowS: number; countsRefused: boolean };

/** What a k6 fleet is pointed at for one run; stop() ends what start() began. */
export interface ProofTarget {
  url: string;
  upstream: Emulator;
  stop(): Promise<void>;
}

/** One line a person reads, for progress lines and table titles. */
export function describeProofLimiter(l: ProofLimiter): string {
  switch (l.kind) {
    case 'nginx':
      return `nginx limit_req ${l.rate} r/s, burst ${l.burst}`;
    case 'haproxy':
      return `HAProxy http_req_rate ${l.limit} per ${l.periodMs} ms, ${l.recipe === 'every' ? 'every request counted' : 'admitted requests counted'}`;
    case 'emulator-fixed':
      return `emulator fixed window ${l.limit} per ${l.windowS} s${l.countsRefused ? ', refused requests count' : ''}`;
  }
}

/** Why this limiter cannot run here (a Debian package missing), or undefined when it can. */
export function proofLimiterMissing(l: ProofLimiter): string | undefined {
  if (l.kind === 'nginx') return nginxMissing();
  if (l.kind === 'haproxy') return haproxyMissing();
  return undefined;
}

/** The sustained rate this limiter admits, req/s. */
export function proofLimitRps(l: ProofLimiter): number {
  switch (l.kind) {
    case 'nginx':
      return l.rate;
    case 'haproxy':
      return (l.limit * 1000) / l.periodMs;
    case 'emulator-fixed':
      return l.limit / l.windowS;
  }
}

/**
 * The single-client figures an exact reading of this limiter gives (as src/ratelimit/discover.ts
 * and probe/window-path.ts fill them in), and whether its refusals carry a truthful Retry-After.
 */
export function proofReading(l: ProofLimiter): { input: RecommendInput; burst: number; honourRetryAfter: boolean } {
  const common = { latency_p95_ms: 5, retry_after_max_s: null };
  switch (l.kind) {
    case 'nginx':
      // nginx sends no Retry-After: nothing to honour.
      return {
        input: {
          ...common,
          sustained_rps: l.rate,
          burst: l.burst + 1,
          recovery_s: 1 / l.rate,
          refill_s: (l.burst + 1) / l.rate,
          retry_after_header: 'absent',
        },
        burst: l.burst + 1,
        honourRetryAfter: false,
      };
    case 'haproxy': {
      // The recipes answer 429 without Retry-After. A client refused just after the window filled waits up to a period.
      const periodS = l.periodMs / 1000;
      return {
        input: {
          ...common,
          sustained_rps: proofLimitRps(l),
          burst: l.limit,
          recovery_s: periodS,
          refill_s: periodS,
          retry_after_header: 'absent',
        },
        burst: l.limit,
        honourRetryAfter: false,
      };
    }
    case 'emulator-fixed':
      // The emulator's Retry-After is truthful: the whole seconds to the next edge.
      return {
        input: {
          ...common,
          sustained_rps: proofLimitRps(l),
          burst: l.limit,
          recovery_s: l.windowS,
          refill_s: l.windowS,
          retry_after_header: 'truthful',
          retry_after_max_s: Math.ceil(l.windowS),
        },
        burst: l.limit,
        honourRetryAfter: true,
      };
  }
}

/**
 * The model the simulator replays one run with. `originMs` is the wall-clock instant of the run's
 * time 0 (k6's scenario start): a fixed window's edges fall at whole windows of the wall clock, so
 * in the run's time they fall at this phase.
 */
export function proofModel(l: ProofLimiter, originMs: number): LimiterModel {
  switch (l.kind) {
    case 'nginx':
      // limit_req admits while its excess stays at or under `burst`, counting the request itself:
      // from idle burst + 1 pass back to back, and the excess drains at `rate`; refusals do not count.
      return { kind: 'bucket', rate_rps: l.rate, burst: l.burst + 1 };
    case 'haproxy':
      return {
        kind: 'sliding-window',
        limit: l.limit,
        period_s: l.periodMs / 1000,
        counts_refused: l.recipe === 'every',
        counter: 'interpolated',
      };
    case 'emulator-fixed': {
      const windowMs = l.windowS * 1000;
      const phaseMs = (windowMs - (originMs % windowMs)) % windowMs;
      return {
        kind: 'fixed-window',
        limit: l.limit,
        window_s: l.windowS,
        phase_s: phaseMs / 1000,
        counts_refused: l.countsRefused,
      };
    }
  }
}

/**
 * The emulator that answers behind the limiter for a whole proof: its own limiter off, since nginx
 * or HAProxy limits. Null for the emulator's fixed window, which starts a limited emulator per run.
 */
export async function proofUpstream(l: ProofLimiter, tlsDir: string): Promise<Emulator | null> {
  return l.kind === 'emulator-fixed' ? null : createEmulator({ port: 0, rateLimit: { rps: 0, burst: 0 }, tlsDir });
}

/** A fresh limiter for one run: every run starts on a rested limiter, as the simulation does. */
export async function startProofTarget(
  l: ProofLimiter,
  upstream: Emulator | null,
  tlsDir: string,
): Promise<ProofTarget> {
  if (l.kind === 'emulator-fixed') {
    const dir = await mkdtemp(join(tmpdir(), 'ces-fleet-fixed-'));
    const emulator = await createEmulator({
      port: 0,
      limiter: {
        kind: 'fixed-window',
        limit: l.limit,
        window_s: l.windowS,
        phase_s: 0,
        counts_refused: l.countsRefused,
      },
      tlsDir: dir,
    });
    return {
      url: emulator.url,
      upstream: emulator,
      stop: async () => {
        await emulator.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  if (upstream === null) throw new Error(`${describeProofLimiter(l)} needs an upstream emulator`);
  const proxy =
    l.kind === 'nginx'
      ? await startNginx({ upstream: upstream.url, tlsDir, limit: { rate: l.rate, burst: l.burst } })
      : await startHaproxy({
          upstream: upstream.url,
          tlsDir,
          limit: { limit: l.limit, periodMs: l.periodMs, recipe: l.recipe },
        });
  return { url: proxy.url, upstream, stop: () => proxy.stop() };
}
