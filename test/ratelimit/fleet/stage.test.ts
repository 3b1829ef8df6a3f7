// `ratelimit --fleet N` as the CLI runs it against the built-in emulator: the probe measures the
// emulator's per-client bucket, and the stage adds the fleet sizing to the terminal and the report.
// The k6 proof of the single-client policy is off here (proofS 0): it has its own tests.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRateLimitStage } from '../../../src/stages/rate-limit.js';
import { runIo } from '../../../src/stages/run-io.js';
import { processIo } from '../../../src/cli/io.js';
import { prepareTarget, type PreparedTarget } from '../../../src/cli/prepare-target.js';
import { plainText, type Terminal } from '../../../src/cli/terminal.js';
import { Redactor } from '../../../src/http/redact.js';
import { createEmulator, type Emulator } from '../../../src/emulator/index.js';
import { virtualClock } from '../../../src/time/clock.js';
import { stageTargetOn } from '../../helpers/stage-target.js';

function capture(): Terminal & { lines: string[] } {
  const lines: string[] = [];
  return {
    color: false,
    lines,
    out: (l) => lines.push(plainText(l)),
    err: (l) => lines.push(plainText(l)),
    progress: () => {},
  };
}

describe('ratelimit --fleet against the built-in bucket (50/s, burst 50)', () => {
  let prepared: PreparedTarget;
  let emulator: Emulator;
  let reportDir: string;
  const redactor = new Redactor();
  const clock = virtualClock();

  beforeAll(async () => {
    reportDir = await mkdtemp(join(tmpdir(), 'ces-fleet-stage-'));
    prepared = await prepareTarget({ fleet: 200 }, redactor, capture(), processIo());
    emulator = await createEmulator({ port: 0, now: clock.now, tokenTtlS: 3_600, rateLimit: { rps: 50, burst: 50 } });
  });
  afterAll(async () => {
    await emulator?.close();
    await prepared?.close();
    await rm(reportDir, { recursive: true, force: true });
  });

  it('sizes the policy for 200 instances sharing the per-client limit, in the terminal and the result', async () => {
    expect(prepared.settings.rateLimit.fleet).toBe(200);
    const terminal = capture();
    const untested: string[] = [];
    const result = await makeRateLimitStage({ proofS: 0 })(
      await stageTargetOn(prepared, emulator, reportDir),
      runIo(
        terminal,
        redactor,
        new AbortController().signal,
        (stage, reason) => untested.push(`${stage}: ${reason}`),
        clock,
      ),
    );
    const context = JSON.stringify(
      { ...result, timeline: undefined, fleet: { ...result.fleet, rows: undefined } },
      null,
      1,
    );
    expect(untested, context).toEqual([]);
    const fleet = result.fleet!;
    expect(fleet, context).toBeTruthy();
    expect(fleet.instances).toBe(200);
    expect(new Set(fleet.rows.map((r) => r.instances))).toEqual(new Set([1, 4, 16, 64, 200]));
    // The emulator's limit is per client, so the fleet on one credential shares it: the
    // recommended rate (about 40 req/s) split 200 ways.
    expect(fleet.sharing).toBe('shared');
    expect(fleet.recommendation!.per_instance_rps, context).toBeCloseTo(result.recommendation!.target_rps / 200, 3);
    const text = terminal.lines.join('\n');
    expect(text).toMatch(/^fleet of 200: per instance ≤ 0\.\d+ req\/s \(burst 1\), policy [a-z-]+/m);
    expect(text).toMatch(/^ {2}assumption: /m);
    expect(text).toMatch(/^ {2}simulated \(token bucket [\d.]+ req\/s, burst \d+; /m);
  }, 90_000);
});
