// A k6 proof round that has certainly failed is cut short (scenarios/rate-limit.ts, prove.ts
// roundCut): real k6 against the emulator's bucket of 1 req/s, burst 30. At 10 req/s its refusals
// begin after some 3 s; 3 s after them, once the 429s met since break the promise on their own,
// k6's threshold stops the run, and the figures are over what it ran. A round that holds with the
// same cut configured runs its whole length. And behind a window of 20 per 10 s on the clock, a
// policy whose calls in flight each wait out a Retry-After (up to 10 s, and half as long again)
// meets a 429 or two a window while k6 drops some 80 arrivals: the drops, not the 429s, end it,
// once a call begun after the window's edge reckons them.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { prove } from '../../src/ratelimit/prove.js';
import type { Recommendation } from '../../src/ratelimit/types.js';
import { bundleScenarios, realK6 } from '../k6/support.js';

const k6 = await realK6();

const policy = (target_rps: number): Recommendation => ({
  target_rps,
  max_concurrency: 4,
  backoff: { base_ms: 50, cap_ms: 200, jitter: 'full', max_retries: 2 },
  retry_budget_s: 1,
  why: [],
});

describe.skipIf(k6 === undefined)('a failed proof round cut short by k6', () => {
  let emulator: Emulator;
  let windowed: Emulator;
  let bundleDir: string;
  let workDir: string;
  beforeAll(async () => {
    emulator = await createEmulator({ port: 0, limiter: { kind: 'bucket', rate_rps: 1, burst: 30 } });
    windowed = await createEmulator({
      port: 0,
      limiter: { kind: 'fixed-window', limit: 20, window_s: 10, phase_s: 0, counts_refused: false },
    });
    bundleDir = await bundleScenarios();
    workDir = await mkdtemp(join(tmpdir(), 'ces-proof-cut-'));
  }, 60_000);
  afterAll(async () => {
    await emulator?.close();
    await windowed?.close();
    await rm(workDir, { recursive: true, force: true });
    await rm(bundleDir, { recursive: true, force: true });
  });

  const run = (rec: Recommendation, durationS: number, on = emulator, waitsHoldConcurrency = false) =>
    prove({
      k6Path: k6!.path,
      bundleDir,
      workDir,
      target: { baseUrl: on.url, credentials: on.credentials, caFile: on.caFile },
      waitsHoldConcurrency,
      endpoint: 'tokens.validate',
      recommendation: rec,
      durationS,
      cut: { afterRefusalsS: 3, atOnceAfterS: 3 },
      tokenLifetimeS: 86_400,
      clockToleranceS: 1,
      runId: 'proof-cut',
    });

  // First, on the bucket full: the round after finds it drained.
  it('a round that holds with the same cut runs its whole length', async () => {
    const { proof } = await run(policy(0.5), 6);
    expect(proof).toMatchObject({ rate_429: 0 });
    expect(proof!.cut_at_s).toBeUndefined();
  }, 60_000);

  it('ends 3 s past its refusals, far before its 40 s, its figures over what it ran', async () => {
    const { proof, notes } = await run(policy(10), 40);
    const context = JSON.stringify({ proof, notes });
    expect(proof, context).not.toBeNull();
    expect(proof!.rate_429, context).toBeGreaterThan(0.01);
    expect(proof!.cut_at_s, context).toBeDefined();
    expect(proof!.cut_at_s!, context).toBeGreaterThanOrEqual(proof!.refusals_began_s! + 3);
    expect(proof!.cut_at_s!, context).toBeLessThan(25);
    // 30 of the burst and 1 a second after: over the seconds it ran, not over the 40 asked.
    expect(proof!.goodput_rps, context).toBeGreaterThan((30 + proof!.cut_at_s! - 4) / proof!.cut_at_s!);
    expect(notes.join(' '), context).toContain('cut short after');
    expect(notes.join(' '), context).not.toContain('thresholds not met (proof_refusals_past_cut');
  }, 90_000);

  it('ends soon past its refusals once k6 dropped more arrivals than the promise allows, though few 429s came', async () => {
    const oneAtATime = { ...policy(10), max_concurrency: 1, retry_budget_s: 20 };
    const { proof, notes } = await run(oneAtATime, 60, windowed, true);
    const context = JSON.stringify({ proof, notes });
    expect(proof, context).not.toBeNull();
    // Not the refusals' cut: 13 429s past it would end the round, and by the first edge the calls
    // waiting out the window have met a few.
    expect(notes.join(' '), context).not.toContain('its refusals (from');
    expect(proof!.dropped_arrivals, context).toBeGreaterThan(0.01 * proof!.arrivals!);
    expect(proof!.cut_at_s, context).toBeDefined();
    expect(proof!.cut_at_s!, context).toBeGreaterThanOrEqual(proof!.refusals_began_s! + 3);
    expect(proof!.cut_at_s!, context).toBeLessThan(35);
    expect(notes.join(' '), context).toContain('dropped more of its arrivals than the promise allows');
    expect(notes.join(' '), context).not.toContain('thresholds not met (proof_dropped_past_cut');
  }, 90_000);
});
