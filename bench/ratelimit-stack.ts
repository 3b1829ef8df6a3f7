// One limiter for a bench/ratelimit.ts row, started on loopback: the emulator (its own limiter, or
// none behind a real one), optionally a real limiter in front of it (nginx, HAProxy, a Go front,
// rate-limiter-flexible) and optionally toxiproxy in front of everything, so the probe and the
// k6 proof alike cross the same ~100 ms. Stopped front to back, its certificates removed.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmulator, type EmulatorOptions } from '../src/emulator/index.js';
import { provisionToxiproxy, startToxiproxy, type Latency } from '../test/helpers/toxiproxy.js';
import { refillOf as refillOfModel, windowOf } from '../src/ratelimit/horizon.js';
import {
  describeLimiter,
  limitsOf,
  sustainedRate,
  type LimiterModel,
  type Limits,
} from '../src/ratelimit/limiters/index.js';
import { round } from '../src/toolkit/stats.js';
import type { ProbeTarget } from '../test/ratelimit/support.js';
import type { Named } from './ratelimit-goal.js';

export interface RunningFront {
  url: string;
  stop(): Promise<void>;
}

/** A real limiter in front of the emulator at `upstream`, sharing its certificates in `tlsDir`. */
export type StartFront = (upstream: string, tlsDir: string) => Promise<RunningFront>;

export interface StackOptions {
  /** The emulator's own settings; without a limiter of its own it admits everything (rps 0). */
  emulator?: Omit<EmulatorOptions, 'port' | 'tlsDir'>;
  front?: StartFront;
  latency?: Latency;
}

export interface Stack {
  target: ProbeTarget;
  /** Every value that must never be saved whole: the client secret and each token handed out so far. */
  secrets(): string[];
  stop(): Promise<void>;
}

export async function startStack(opts: StackOptions): Promise<Stack> {
  const tlsDir = await mkdtemp(join(tmpdir(), 'ces-bench-ratelimit-'));
  const stops: Array<() => Promise<void>> = [() => rm(tlsDir, { recursive: true, force: true })];
  const stop = async () => {
    for (const s of stops.splice(0).reverse()) await s();
  };
  try {
    const emulator = await createEmulator({
      port: 0,
      tlsDir,
      ...(opts.emulator ?? { rateLimit: { rps: 0, burst: 0 } }),
    });
    stops.push(() => emulator.close());
    let url = emulator.url;
    if (opts.front) {
      const front = await opts.front(url, tlsDir);
      stops.push(() => front.stop());
      url = front.url;
    }
    if (opts.latency) {
      const proxy = await startToxiproxy(await provisionToxiproxy(), url, opts.latency);
      stops.push(() => proxy.stop());
      url = proxy.url;
    }
    return {
      target: { url, caPem: emulator.caPem, credentials: emulator.credentials },
      secrets: () => [emulator.credentials.clientSecret, ...emulator.issuedTokens()],
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** One bench row before it runs: what it is called, its truth, the probe's cap and its limiter. */
export interface RowSpec extends Named {
  true_rps: number;
  /** The true limiter's longest window, seconds; null for a limiter without one (a bucket, a queue). */
  window_s: number | null;
  /** The longest time a limit without a window takes to refill its burst (burst / rate), seconds; null: none has. */
  refill_s: number | null;
  /** The probe's time cap (--max-duration): 60 s, or 2.5 periods (150 s) for a per-minute limit. */
  cap_s: number;
  /** Why the row cannot run here (a tool not installed), checked before anything starts. */
  missing?: () => string | undefined;
  stack: StackOptions;
}

/** A bucket's or a queue's time to refill its burst: burst / rate, in whole fills for a bucket refilled by a timer. */
export const refillOf = (rateRps: number, burst: number, fillIntervalS?: number): number =>
  round(
    refillOfModel({
      kind: 'bucket',
      rate_rps: rateRps,
      burst,
      ...(fillIntervalS ? { fill_interval_s: fillIntervalS } : {}),
    })!,
    2,
  );

/** The longest window of a limiter or a set, and the longest refill of its limits without one (RowSpec). */
export function spanOfModel(model: Limits): Pick<RowSpec, 'window_s' | 'refill_s'> {
  const longest = (xs: Array<number | null>): number | null =>
    xs.reduce<number | null>((m, x) => (x === null ? m : Math.max(m ?? 0, x)), null);
  const limits: readonly LimiterModel[] = limitsOf(model);
  return {
    window_s: longest(limits.map(windowOf)),
    refill_s: longest(
      limits.map((l) => {
        const refill = refillOfModel(l);
        return refill === null ? null : round(refill, 2);
      }),
    ),
  };
}

/** A row whose limiter is the emulator's own `model` (with `more` of the emulator's options, and latency). */
export const emulatorRow = (
  group: string,
  model: Limits,
  setting: string,
  cap_s: number,
  more: { emulator?: StackOptions['emulator']; latency?: Latency } = {},
): RowSpec => ({
  group,
  limiter: `emulator: ${describeLimiter(model)}`,
  setting,
  true_rps: round(sustainedRate(model), 2),
  ...spanOfModel(model),
  cap_s,
  stack: { emulator: { ...more.emulator, limiter: model }, ...(more.latency ? { latency: more.latency } : {}) },
});
