// Which stages of a target job run at once, and that no overlap spends another stage's rate-limit
// budget. `run` puts the checks beside the load only when the load has instances of the built-in
// emulator to itself; the rate-limit sizing always runs alone, last. Each stage here is a stand-in
// that does what makes the real one sensitive: it sends at a pace the emulator's limit admits for
// one client (45 of 50 a second), and a single 429 is its verdict failing, as traffic beside the
// probe would skew what it reads. Two stages overlapping on one limit fail that way.
// In-process, against the emulator on 127.0.0.1; no timing is asserted, only verdicts and order.

import { mkdtempSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../checks/index.js';
import { conformanceStage } from '../../src/cli/commands/check.js';
import { targetJob, type Stages } from '../../src/cli/commands/target-job.js';
import type { Target } from '../../src/config/target.js';
import { createEmulator } from '../../src/emulator/index.js';
import { virtualClock } from '../../src/time/clock.js';
import { ServiceClient } from '../../src/http/service-client.js';
import { notProbed } from '../../src/ratelimit/result.js';
import type { CheckResult, Report } from '../../src/report/model.js';
import type { RunIo } from '../../src/stages/run-io.js';
import { emulatorProject } from '../helpers/emulator-project.js';
import { testIo } from '../helpers/cli.js';

/** A pace the emulator's bucket (50 a second, burst 50) admits from one stage; two at once are far over it. */
const PACE_PER_S = 45;
/** Requests of one stage: two seconds of it; beside another's, the 50 of the burst are spent in under two. */
const REQUESTS = 90;

/** A check of the `last` phase (after the concurrent ones), and a cheap one. */
const LAST_PHASE = CHECKS.filter((c) => c.id === 'token.no-secret-echo');

type StageName = 'checks' | 'load' | 'rateLimit';
type Ran = Record<StageName, { start: number; end: number }>;

/**
 * A stream of validations at PACE_PER_S from the stage's own token: the 429s among its answers.
 * Only the limiter (per client) links one stage's traffic to another's. A machine too busy to keep
 * the pace sends less, so it can hide an overlap but never make one up.
 */
async function pacedStream(target: Target, io: RunIo): Promise<number> {
  const http = new ServiceClient(target, { redactor: io.redactor, connections: 8 });
  try {
    const token = (await http.issueToken(undefined, { waitOut429: false })).issued?.token;
    if (token === undefined) return REQUESTS;
    const started = io.clock.now();
    const answers: Array<Promise<number>> = [];
    for (let i = 0; i < REQUESTS && !io.signal.aborted; i++) {
      await io.clock.sleep(Math.max(0, started + (i * 1000) / PACE_PER_S - io.clock.now()), io.signal);
      answers.push(http.validate(token, 'GET', { waitOut429: false }).then((a) => a.status));
    }
    return (await Promise.all(answers)).filter((status) => status === 429).length;
  } finally {
    await http.close();
  }
}

const passing: CheckResult = {
  id: 'token.issue',
  title: 'POST /tokens issues a token',
  spec: '4.1',
  level: 'must',
  status: 'pass',
  message: 'a stand-in',
  duration_ms: 1,
  evidence: [],
};

/**
 * The three stand-ins, each where the real stage sends (the checks to the target, load and sizing
 * to probeTarget()), recording when it ran. The checks wait, as the real ones do before their
 * rate-limit family, until no stage runs beside them: beside the load, they say their line after
 * its end, so the terminal's order shows whether the load's lines were held.
 */
function standIns() {
  const ran = {} as Ran;
  /** When the checks were told no other stage runs beside them any more (RunIo.untilAlone). */
  let aloneAt: number | undefined;
  /** When the load said its line, was done sending, and was let on to its blocking work (RunIo.beforeBlocking). */
  const loadAt: { said?: number; quiet?: number; blocking?: number } = {};
  const timed = async <T>(name: StageName, work: () => Promise<T>): Promise<T> => {
    const start = performance.now();
    try {
      return await work();
    } finally {
      ran[name] = { start, end: performance.now() };
    }
  };
  const disturbed = (io: RunIo, stage: 'checks' | 'load' | 'rate_limit', refused: number) => {
    if (refused > 0)
      io.untested(stage, `${refused} of ${REQUESTS} requests refused with 429: another stage spent the limit`);
  };
  const stages: Stages = {
    checks: (on, io) =>
      timed('checks', async () => {
        disturbed(io, 'checks', await pacedStream(on.settings.target, io));
        // Then a real check of the `last` phase, through the real stage: it asks untilAlone first.
        // Alone it has no answers to judge (a skip): what it says is not this test's matter.
        const [secretKept] = await conformanceStage(LAST_PHASE)(on, {
          ...io,
          untested: () => {},
          ...(io.untilAlone && {
            untilAlone: async () => {
              await io.untilAlone!();
              aloneAt = performance.now();
            },
          }),
        });
        io.out('checks: said');
        return [passing, secretKept!];
      }),
    load: (on, io) =>
      timed('load', async () => {
        disturbed(io, 'load', await pacedStream((await on.probeTarget()).target, io));
        io.out('load: said');
        loadAt.said = performance.now();
        // As the real load does before redacting k6's artefacts.
        if (io.beforeBlocking) {
          loadAt.quiet = performance.now();
          await io.beforeBlocking();
          loadAt.blocking = performance.now();
        }
        return { result: { k6_version: 'stand-in', run_id: 'r', scenarios: [], ok: true } };
      }),
    rateLimit: (on, io) =>
      timed('rateLimit', async () => {
        disturbed(io, 'rate_limit', await pacedStream((await on.probeTarget()).target, io));
        return notProbed('tokens.validate', 'a stand-in');
      }),
  };
  return { stages, ran, aloneAt: () => aloneAt, loadAt };
}

const overlap = (a: { start: number; end: number }, b: { start: number; end: number }) =>
  a.start < b.end && b.start < a.end;

async function runJob(stages: Stages, io: ReturnType<typeof testIo>, options: { config?: string }, dir: string) {
  const reportDir = join(dir, 'report');
  const exit = await targetJob({ ...options, 'report-dir': reportDir, 'no-color': true }, stages, io);
  const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as Report;
  return { exit, report, stdout: io.output().stdout };
}

describe('the stages of a target job', () => {
  // The two jobs side by side, each on a virtual clock of its own shared with its emulators: the
  // stand-ins' paces and the limiters' buckets keep their seconds, which pass in an instant. Each
  // paces against a limiter of its own (the built-in emulator's, and the configured one's), so
  // neither's 429s can come from the other.
  it.concurrent(
    'built-in emulator: the checks and the load run side by side on limits of their own, the sizing alone after',
    async ({ expect }) => {
      const dir = mkdtempSync(join(tmpdir(), 'ces-stage-order-'));
      const { stages, ran, aloneAt, loadAt } = standIns();
      const { exit, report, stdout } = await runJob(stages, testIo({ cwd: dir, clock: virtualClock() }), {}, dir);
      expect(report.untested, JSON.stringify(report.untested)).toEqual([]);
      expect(exit).toBe(0);
      expect(overlap(ran.checks, ran.load)).toBe(true);
      // The checks' `last` phase (the rate-limit family paces past the limit there) waits for the load's end.
      expect(LAST_PHASE.map((c) => c.phase)).toEqual(['last']);
      expect(aloneAt()).toBeGreaterThanOrEqual(loadAt.quiet!);
      // The load's seconds of blocking work wait for the checks' end.
      expect(loadAt.blocking).toBeGreaterThanOrEqual(ran.checks.end);
      expect(overlap(ran.rateLimit, ran.checks) || overlap(ran.rateLimit, ran.load)).toBe(false);
      // The load said its line first, yet it follows the checks': held while the checks ran.
      expect(loadAt.said).toBeLessThan(ran.checks.end);
      expect(stdout.indexOf('checks: said')).toBeLessThan(stdout.indexOf('load: said'));
      expect(stdout).toMatch(
        /^time: checks [\d.]+ s, load \(beside the checks\) [\d.]+ s, rate-limit sizing [\d.]+ s; [\d.]+ s in all$/m,
      );
    },
  );

  it.concurrent(
    'a configured service, one limit for every stage: they take turns',
    async ({ expect, onTestFinished }) => {
      const clock = virtualClock();
      const emulator = await createEmulator({ port: 0, now: clock.now });
      onTestFinished(() => emulator.close());
      const { dir, config } = emulatorProject(emulator, 'ces-stage-order-');
      const { clientId, clientSecret } = emulator.credentials;
      const io = testIo({ cwd: dir, env: { CES_CLIENT_ID: clientId, CES_CLIENT_SECRET: clientSecret }, clock });
      const { stages, ran } = standIns();
      const { exit, report, stdout } = await runJob(stages, io, { config }, dir);
      expect(report.untested, JSON.stringify(report.untested)).toEqual([]);
      expect(exit).toBe(0);
      expect(ran.checks.end).toBeLessThanOrEqual(ran.load.start);
      expect(ran.load.end).toBeLessThanOrEqual(ran.rateLimit.start);
      expect(stdout).toMatch(/^time: checks [\d.]+ s, load [\d.]+ s, rate-limit sizing [\d.]+ s; [\d.]+ s in all$/m);
    },
  );
});
