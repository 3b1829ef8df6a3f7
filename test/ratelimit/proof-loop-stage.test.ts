// The closed loop as the `ratelimit` stage runs it, with real k6: behind a limit the probe misreads
// on purpose, the recommendation is lowered round by round until a proof holds; when no round
// holds, nothing is recommended and the stage is not tested (exit 1). The emulator's limit is a
// token bucket of 50/s, burst 50, while the probe runs (what it identifies), and stricter from the
// first proof round on (what the steady client meets): the probe cannot see the steady limit, as
// it cannot see an httprate counter it reads as a faster bucket. And `run`'s rounds against a large
// burst: lengthened to two of its refill within run's cap, and proven over that horizon.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRateLimitStage, RUN_SHORT_HORIZON } from '../../src/stages/rate-limit.js';
import { RUN_HORIZON_S } from '../../src/ratelimit/horizon.js';
import { MAX_PROOF_ROUNDS } from '../../src/ratelimit/proof-loop.js';
import { runIo } from '../../src/stages/run-io.js';
import { processIo } from '../../src/cli/io.js';
import { prepareTarget, type PreparedTarget } from '../../src/cli/prepare-target.js';
import { plainText, type Terminal } from '../../src/cli/terminal.js';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { Redactor } from '../../src/http/redact.js';
import { createLimiter, type Limiter } from '../../src/ratelimit/limiters/index.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { buildReport } from '../../src/report/build.js';
import { realK6 } from '../k6/support.js';
import { stageTargetOn } from '../helpers/stage-target.js';

const k6 = await realK6();

/**
 * Per client a token bucket: 50/s, burst 50 until the stage announces its first proof round, then
 * `steady(round)` from each round's announcement on, and `fleetLimit` from the fleet proof's.
 */
type Bucket = { rate_rps: number; burst: number };
const PROBED: Bucket = { rate_rps: 50, burst: 50 };

function misreadLimit(steady: (round: number) => Bucket, fleetLimit?: Bucket, probed: Bucket = PROBED) {
  let round = 0;
  let fleet = false;
  const limiters = new Map<string, Limiter>();
  const rateOf = () => (fleet && fleetLimit !== undefined ? fleetLimit : round === 0 ? probed : steady(round));
  return {
    take: (key: string, nowMs: number) => {
      let limiter = limiters.get(key);
      if (limiter === undefined) limiters.set(key, (limiter = createLimiter({ kind: 'bucket', ...rateOf() })));
      return limiter.take(nowMs);
    },
    /** The stage's progress line: from "proof round N" on, the steady limit of round N holds. */
    progress: (line: string) => {
      const m = /^proof round (\d+):/.exec(line);
      if (m) round = Number(m[1]);
      if (line.startsWith('fleet proof:')) fleet = true;
      if (m || line.startsWith('fleet proof:')) limiters.clear();
    },
  };
}

function capture(onProgress: (l: string) => void): Terminal & { lines: string[] } {
  const lines: string[] = [];
  return {
    color: false,
    lines,
    out: (l) => lines.push(plainText(l)),
    err: (l) => lines.push(plainText(l)),
    progress: onProgress,
  };
}

// The tests run side by side: each stage run has its own emulator and limit, and waits mostly on
// k6's proof rounds (4 s each, in k6's own process); the first and third share one run. Their
// probes take turns (probeTurns): the probe's 30 s cap (maxDurationS) bounds the probe alone, on
// its own wall clock, never the proof rounds or k6's start-up, and a probe that reaches it is
// partial, which is never proven. One probe here takes 15 s, quiet or beside stress-ng --cpu 3;
// three at once, sharing this worker's one event loop with their three emulators, took 13-16 s
// quiet and 17.7-20.1 s beside stress-ng, where one stall of the worker cost all three 6 s at once.

/**
 * One probe at a time: each stage run waits for the one before to reach its first proof round (or
 * end), so a probe shares the worker with k6's rounds in their own processes, never with another probe.
 */
function probeTurns(): () => { ready: Promise<void>; over: () => void } {
  let last: Promise<void> = Promise.resolve();
  return () => {
    let over!: () => void;
    const ended = new Promise<void>((resolve) => (over = resolve));
    const ready = last;
    last = last.then(() => ended);
    return { ready, over };
  };
}

/** `run`'s stage (its 5 s rounds and their scope) with a probe that has time to read a large burst from idle. */
const runRoundsWithTimeToReadTheBurst = makeRateLimitStage({
  proofS: RUN_HORIZON_S,
  maxDurationS: 60,
  shortHorizon: RUN_SHORT_HORIZON,
});

const misread = 'the proof loop of the ratelimit stage, behind a limit the probe misreads';
describe.skipIf(k6 === undefined)(misread, { concurrent: true }, () => {
  let prepared: PreparedTarget;
  let reportDir: string;
  const redactor = new Redactor();
  const emulators: Emulator[] = [];
  const probeTurn = probeTurns();

  beforeAll(async () => {
    reportDir = await mkdtemp(join(tmpdir(), 'ces-proof-loop-'));
    prepared = await prepareTarget(
      {},
      redactor,
      capture(() => {}),
      processIo(),
    );
  });
  afterAll(async () => {
    await Promise.all(emulators.map((e) => e.close()));
    await prepared?.close();
    await rm(reportDir, { recursive: true, force: true });
  });

  async function runStage(
    steady: (round: number) => Bucket,
    fleetLimit?: Bucket,
    run: { stage?: ReturnType<typeof makeRateLimitStage>; probed?: Bucket } = {},
  ) {
    const limit = misreadLimit(steady, fleetLimit, run.probed);
    const emulator = await createEmulator({
      port: 0,
      environments: ['sandbox'],
      overrides: [() => ({ limit: (ctx, key) => limit.take(key, ctx.now) })],
    });
    emulators.push(emulator);
    redactor.addSecret(emulator.credentials.clientSecret, emulator.credentials.clientId);
    const untested: string[] = [];
    const turn = probeTurn();
    const terminal = capture((line) => {
      limit.progress(line);
      if (/^proof round \d+:/.test(line)) turn.over();
    });
    const on = await stageTargetOn(
      prepared,
      emulator,
      reportDir,
      fleetLimit !== undefined
        ? { settings: { ...prepared.settings, rateLimit: { ...prepared.settings.rateLimit, fleet: 4 } } }
        : {},
    );
    const io = runIo(terminal, redactor, new AbortController().signal, (stage, reason) =>
      untested.push(`${stage}: ${reason}`),
    );
    await turn.ready;
    const stage = run.stage ?? makeRateLimitStage({ proofS: 4, maxDurationS: 30 });
    const result = await stage(on, io).finally(turn.over);
    return {
      result,
      untested,
      text: terminal.lines.join('\n'),
      context: JSON.stringify({ ...result, timeline: undefined }, null, 1),
    };
  }

  // Steady limit 20/s for the single client, then 2/s for the --fleet run: one stage run read by the
  // first test (the single client's rounds) and the third (the fleet's proof). The stage proves the
  // single client to the end before it sizes the fleet, so the fleet changes nothing the first test
  // reads; a run of its own for each cost the file a whole probe and its proof rounds.
  let steady20: ReturnType<typeof runStage> | undefined;
  const steady20ThenFleet = () =>
    (steady20 ??= runStage(() => ({ rate_rps: 20, burst: 5 }), { rate_rps: 2, burst: 1 }));

  it('lowers the recommendation round by round until the proof holds, and gives only that one', async () => {
    // Steady limit 20/s: the probe reads about 50, recommends about 40, which half fails.
    const { result, untested, text, context } = await steady20ThenFleet();
    const rounds = result.proof_rounds ?? [];
    // Nothing untested but the fleet's refuted choice, which the third test is about.
    expect(
      untested.filter((line) => !line.startsWith('rate_limit: fleet of 4: ')),
      context,
    ).toEqual([]);
    expect(result.proof_verdict, context).toBe('proven');
    expect(rounds.length, context).toBeGreaterThanOrEqual(2);
    expect(rounds[0]!.verdict, context).toBe('fails');
    expect(rounds[0]!.rate_429!, context).toBeGreaterThan(0.1);
    // Lowered until one held, then bisected: every later round between the highest rate that held
    // and the lowest that failed; the one given is the highest that held, at or below the steady limit.
    for (let i = 1; i < rounds.length; i++) {
      const before = rounds.slice(0, i);
      const failed = Math.min(...before.filter((r) => r.verdict === 'fails').map((r) => r.target_rps));
      const held = before.filter((r) => r.verdict === 'holds').map((r) => r.target_rps);
      expect(rounds[i]!.target_rps, context).toBeLessThan(failed);
      if (held.length > 0) expect(rounds[i]!.target_rps, context).toBeGreaterThan(Math.max(...held));
    }
    const highestHeld = Math.max(...rounds.filter((r) => r.verdict === 'holds').map((r) => r.target_rps));
    expect(result.recommendation!.target_rps, context).toBe(highestHeld);
    expect(result.recommendation!.target_rps, context).toBeLessThanOrEqual(20);
    // The probe's reading (a bucket near 50/s) was refuted by round 1: it is reported nowhere, and
    // the sustained rate is what held.
    expect(result.limiter, context).toBeNull();
    expect(result.sustained_rps, context).toBe(highestHeld);
    expect(text).toMatch(/^ {2}horizon: proven for \d+ s; a limit on a window longer than [\d.]+ s is not tested/m);
    expect(result.proof!.lost_requests, context).toBe(0);
    expect(text).toMatch(/^ {2}proof round 1: at [\d.]+\/s: [\d.]+% 429, .*: fails \(/m);
    expect(text).toMatch(new RegExp(`^recommend: ≤ ${result.recommendation!.target_rps} req/s`, 'm'));
    console.log(
      `proof rounds behind a 20/s steady limit: ${rounds.map((r) => `${r.target_rps} req/s → ${((r.rate_429 ?? 0) * 100).toFixed(1)} % 429, goodput ${r.goodput_rps}, ${r.lost_requests} lost: ${r.verdict}`).join('; ')}`,
    );
    const md = renderMarkdown(
      buildReport({
        version: 'test',
        target: { environment: 'sandbox', base_url: 'https://x' },
        startedAt: new Date(),
        finishedAt: new Date(),
        checks: [],
        rateLimit: result,
      }),
    );
    expect(md).toMatch(/\*\*Proof run:\*\* round 1 at [\d.]+\/s: .*fails .*; round 2 at/);
    // The live progress may name what the probe read; the report, once refuted, does not.
    expect(md).not.toMatch(/token bucket/);
    expect(md).toMatch(/proven for \d+ s; a limit on a window longer than/);
  }, 150_000);

  it('gives no recommendation and is not tested (exit 1) when the limit tightens every round', async () => {
    // 10, 2.5, 0.6, 0.16 req/s: each round's lowered rate is above the next round's limit. A burst of
    // one, so no 4 s round of a low rate can hold on the burst alone (a burst of 5 let 0.88 req/s
    // hold for 4 s behind 0.16 req/s once the quota ceiling lowered the rounds faster).
    const { result, untested, text, context } = await runStage((round) => ({ rate_rps: 40 / 4 ** round, burst: 1 }));
    expect(result.proof_verdict, context).toBe('not proven');
    expect(result.recommendation, context).toBeNull();
    expect(result.proof_rounds?.length, context).toBe(MAX_PROOF_ROUNDS);
    expect(
      result.proof_rounds!.every((r) => r.verdict === 'fails'),
      context,
    ).toBe(true);
    expect(untested, context).toEqual([
      expect.stringMatching(
        new RegExp(
          `^rate_limit: tokens\\.validate: not proven: no recommended policy kept its promise in ${MAX_PROOF_ROUNDS} k6 proof rounds`,
        ),
      ),
    ]);
    expect(text).toMatch(/^recommend: nothing — NOT PROVEN/m);
    expect(text).not.toMatch(/^recommend: ≤/m);
    expect(result.fleet ?? null).toBeNull();
  }, 150_000);

  it("`run`'s rounds against a large burst: lengthened to two of its refill within run's cap, and proven over that horizon", async () => {
    // 20/s with a burst of 200 all along: a 5 s round (about 80 requests) fits in the burst alone
    // and would prove nothing. Since a proof must cover two of the longest span known (horizon.ts),
    // run lengthens it to two of the 10 s refill, within its cap, and says that horizon. A burst too
    // large for run's cap is "not proven within horizon" (proof-reach.test.ts, on a virtual clock).
    // run's short rounds with a probe cap of 60 s, not run's 30: the burst is read from idle only
    // when the probe has time to wait out its refill after reading the rate (in CI, 30 Nov, the rate
    // took 12 s and 19.8 s of wait no longer fitted in 30 s: "burst not measured", a 5 s round on a
    // drained limit, another case).
    const big = { rate_rps: 20, burst: 200 };
    const { result, untested, text, context } = await runStage(() => big, undefined, {
      stage: runRoundsWithTimeToReadTheBurst,
      probed: big,
    });
    expect(untested, context).toEqual([]);
    expect(result.burst, context).toBeGreaterThanOrEqual(180);
    expect(result.proof_verdict, context).toBe('proven');
    expect(
      result.proof_rounds?.map((r) => r.verdict),
      context,
    ).toEqual(['holds']);
    expect(result.recommendation?.target_rps, context).toBeLessThanOrEqual(20);
    const horizon = result.proof_horizon!;
    expect(horizon.proven_s, context).toBeGreaterThanOrEqual(2 * result.refill_s!);
    expect(horizon.proven_s, context).toBeLessThanOrEqual(30);
    expect(text).toMatch(new RegExp(`proven for ${horizon.proven_s} s`));
    console.info(`run against 20/s, burst 200: ${text.split('\n').find((l) => l.startsWith('recommend'))}`);
  }, 150_000);

  // Cutover's sandbox side (searchOnly): k6 rounds only where the probe identified nothing. A bucket
  // of 2/s, burst 3, read in a 5 s probe is too loose to report (discover.test.ts has it on the
  // virtual clock): the search sizes it, and what held is said as held. A bucket the probe
  // identified runs no round: no proof is asked for (CI land40: a loose reading under load had
  // left cutover's sandbox with no rate at all, NOT TESTED for a conformant pair).
  it('searchOnly: a limit the probe left unidentified is searched by k6 rounds and said as held', async () => {
    const slow = { rate_rps: 2, burst: 3 };
    const { result, untested, context } = await runStage(() => slow, undefined, {
      stage: makeRateLimitStage({ proofS: RUN_HORIZON_S, maxDurationS: 5, searchOnly: true }),
      probed: slow,
    });
    expect(untested, context).toEqual([]);
    expect(result.limiter, context).toBeNull();
    expect(result.proof_rounds?.length, context).toBeGreaterThan(0);
    expect(result.sustained_held, context).toBeDefined();
    // A 5 s round holds up to (3 + 2 × 5) / 5 = 2.6 req/s: what held may be above the refill, never past that.
    expect(result.sustained_rps, context).toBeGreaterThanOrEqual(1.5);
    expect(result.sustained_rps, context).toBeLessThanOrEqual(2.6);
    expect(result.recommendation?.target_rps, context).toBeLessThanOrEqual(result.sustained_rps!);
  }, 150_000);

  it('searchOnly: a limit the probe identified runs no k6 round; its recommendation is given unproven', async () => {
    const { result, untested, context } = await runStage(() => PROBED, undefined, {
      stage: makeRateLimitStage({ proofS: RUN_HORIZON_S, maxDurationS: 30, searchOnly: true }),
    });
    expect(untested, context).toEqual([]);
    expect(result.limiter?.kind, context).toBe('bucket');
    expect(result.proof_rounds ?? [], context).toEqual([]);
    expect(result.proof_verdict, context).toBe('not run');
    expect(result.recommendation?.target_rps, context).toBeLessThanOrEqual(50);
  }, 150_000);

  it('--fleet: a simulated choice its k6 fleet run refutes is not given, and is not tested (exit 1)', async () => {
    // The single client is proven (steady 20/s); the fleet then meets 2/s, far below its share.
    const { result, untested, text, context } = await steady20ThenFleet();
    expect(result.proof_verdict, context).toBe('proven');
    const fleet = result.fleet!;
    expect(fleet.proof, context).toMatchObject({ instances: 4, verdict: 'not proven' });
    expect(fleet.proof!.rate_429!, context).toBeGreaterThan(0.05);
    expect(fleet.recommendation, context).toBeNull();
    expect(untested, context).toEqual([
      expect.stringMatching(
        /^rate_limit: fleet of 4: [a-z-]+ not proven by a k6 fleet run: .*% of requests refused \(promise: ≤ 5 %\)/,
      ),
    ]);
    expect(text).toMatch(/^fleet of 4: none: NOT PROVEN, the chosen [a-z-]+ failed its k6 fleet run$/m);
    expect(text).toMatch(
      /^ {2}k6 fleet proof \(4 instances, [a-z-]+, [\d.]+ req\/s offered for 4 s\): goodput .*: not proven \(/m,
    );
  }, 150_000);

  it('--fleet: gives the simulated choice once its k6 fleet run held', async () => {
    // A limit the probe reads right: 50/s, burst 50 all along.
    const { result, untested, text, context } = await runStage(() => PROBED, PROBED);
    expect(untested, context).toEqual([]);
    expect(result.fleet!.proof, context).toMatchObject({ instances: 4, verdict: 'proven', lost: 0 });
    expect(result.fleet!.recommendation, context).not.toBeNull();
    expect(text).toMatch(/^ {2}k6 fleet proof \(4 instances, .*: proven \(no call lost/m);
  }, 150_000);
});
