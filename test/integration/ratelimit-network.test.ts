// tier: real
// The rate-limit probe across a network ~100 ms away: the emulator's three limiters behind Shopify's
// toxiproxy with 50 ± 10 ms each way (test/helpers/toxiproxy.ts), probed by `ces-harness ratelimit`
// as a user probes a remote service. Before, answers a round trip late made the probe take the
// requests still in flight after the first refusal for late sending, the first refusal for the end
// of a clump that had passed whole in the limiter's order, and its one-after-another pings for a
// disturbed trial: a fixed window read as a sliding one 8 % off, or as nothing. Wants each limit
// within 2 % (or the precision it states), its kind (or, said so, none, the rate then held by k6 rounds), and the recommendation
// proven by k6 (the closed loop), exit 0; and no
// timer's staircase sent (probe/batch-staircase.ts: round trips this long cannot time a timer, and
// the requests it once sent here before it stopped cost the sliding log its period one run in four).

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import { sustainedRate, type LimiterModel } from '../../src/ratelimit/limiters/index.js';
import { NOT_IDENTIFIED } from '../../src/ratelimit/evidence.js';
import { NOT_RUN, STAIRCASE_TIMING } from '../../src/ratelimit/probe/batch-staircase.js';
import { SCOUT_NARROW } from '../../src/ratelimit/search-loop.js';
import type { RateLimitResult } from '../../src/report/model.js';
import { startCli } from '../helpers/cli.js';
import { startToxiproxy, toxiproxyMissing } from '../helpers/toxiproxy.js';
import { toxiproxySuite } from '../helpers/toxiproxy-suite.js';
import { relay } from '../helpers/turns.js';

const missing = toxiproxyMissing();
const skipWhy = missing !== undefined && !process.env.CI ? missing : undefined;
if (skipWhy) console.warn(`skipping the rate-limit network test: toxiproxy ${skipWhy}`);

/** Each way: ~100 ms round trips, as to a service in another region. */
const LATENCY = { latencyMs: 50, jitterMs: 10 };

const limiters: Array<{ name: string; model: LimiterModel }> = [
  { name: 'token bucket 50/s, burst 50', model: { kind: 'bucket', rate_rps: 50, burst: 50 } },
  // Once on CI (land11) read as nothing, no rate either: its edges read on send times fitted no
  // lattice under the jitter; now read within the arrivals' noise. Its virtual twin, at 20 places of
  // the window × 20 jitter seeds: test/ratelimit/network-fixed-phases-virtual.test.ts.
  {
    name: 'fixed window 50 per 1 s',
    model: { kind: 'fixed-window', limit: 50, window_s: 1, phase_s: 0, counts_refused: false },
  },
  // On a busy machine a few round trips stretched by 100 ms once made the log's period "not pinned
  // down" (CI, 27 Nov 2026, beside ratelimit-network-kinds: ± 30 and ± 50 ms of noise after 2 and 3
  // trials); the trials now leave them out (test/ratelimit/network-virtual.test.ts, heavy tail).
  {
    name: 'sliding log 50 per 1 s',
    model: { kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: false },
  },
];

/** The stage's line once its probe is over and the first proof round about to begin (src/stages/rate-limit.ts). */
const PROBE_OVER = /proof round 1: waiting/;

describe.skipIf(skipWhy !== undefined)(
  `ratelimit across a network with 50 ± 10 ms each way${skipWhy ? ` (skipped: ${skipWhy})` : ''}`,
  () => {
    const suite = toxiproxySuite(missing, 'rate-limit network test', 'ces-ratelimit-network-');

    // One probe at a time, and nothing of this file beside it (side by side, 116 → 50 s, one run in
    // four read the token bucket 2.02 % off and the fixed window as a bucket): but a limiter's run
    // starts once the one before has finished probing, so its set-up and probe go beside the other's
    // k6 proof rounds (a client at most the limit's rate, in k6's own process) and report, as
    // profiles.test.ts's groups do.
    const limiterTurn = relay();
    it.concurrent.for(limiters)(
      '$name: identified within 2 %, the recommendation proven',
      // Its own run's 180 s, after the turns of the runs before it.
      { timeout: limiters.length * 180_000 },
      async ({ name, model }, { expect }) =>
        limiterTurn(async (passOn) => {
          const emulator = await createEmulator({ port: 0, limiter: model });
          const proxy = await startToxiproxy(suite.binary, emulator.url, LATENCY).catch(async (err: unknown) => {
            await emulator.close();
            throw err;
          });
          try {
            const reportDir = join(suite.cwd, model.kind);
            const cli = startCli(
              ['ratelimit', '--base-url', proxy.url, '--ca', emulator.caFile, '--report-dir', reportDir].concat([
                '--ledger',
                'off',
                '--history',
                'off',
                '--max-duration',
                '60',
                // `run`'s horizon: this test is about the network, not a client's hours. Each k6 round runs
                // 5 s (it spans two 1 s windows with room), not 10: up to four rounds a limiter, 5 s each saved.
                '--horizon',
                '5',
              ]),
              {
                cwd: suite.cwd,
                env: {
                  CES_CLIENT_ID: emulator.credentials.clientId,
                  CES_CLIENT_SECRET: emulator.credentials.clientSecret,
                },
                timeoutMs: 170_000,
              },
            );
            // A run whose probe sized nothing has no proof round: the next limiter waits for its end instead.
            cli.waitFor(PROBE_OVER).then(passOn, () => undefined);
            const r = await cli.done;
            const report = JSON.parse(await readFile(join(reportDir, 'report.json'), 'utf8')) as {
              rate_limit: RateLimitResult;
            };
            const rl = report.rate_limit;
            // The probe's own evidence too: what a misread kind needs to be told apart afterwards.
            const context = JSON.stringify({
              code: r.code,
              precision: rl.sustained_precision,
              notes: rl.notes,
              limiter: rl.limiter,
              evidence: rl.limiter_evidence,
              rounds: rl.proof_rounds,
            });
            const truth = sustainedRate(model);
            const ruledOut = (rl.limiter_evidence ?? []).find((line) => line.includes(NOT_RUN));
            // The period's trials (how many, the bracket) or why it was not pinned: what a misreading needs.
            const period = [...(rl.limiter_evidence ?? []), ...(rl.notes ?? [])].find((line) =>
              /trials of|period was not pinned/.test(line),
            );
            console.info(
              `${name} through toxiproxy: ${rl.sustained_rps} req/s, ${rl.limiter?.kind ?? (rl.sustained_held ? 'not identified, held by k6 rounds' : 'not identified')}, proof ${rl.proof_verdict}${ruledOut ? `; ${ruledOut.slice(ruledOut.indexOf(NOT_RUN))}` : ''}${period ? `; ${period}` : ''}`,
            );
            // The probe's progress reaches stderr (not a terminal: one line each); the staircase says
            // there when it starts sending.
            expect(r.stderr, context).toContain('probing the rate limit');
            expect(r.stderr, context).not.toContain(STAIRCASE_TIMING);
            // Its kind, or honestly none: on a busy machine the probe may leave the kind open (CI, land17:
            // the fixed window's drain refused after 45 at 155 req/s, its edges then "not evenly spaced";
            // before, such a run reported no rate at all). Then paced k6 rounds must have held a rate
            // within 2 % of the truth, said as held (sustained_held), and the run still exit 0. How often
            // the kind is read under noise is counted by the virtual twins (network-*-virtual.test.ts).
            if (rl.limiter === null) {
              expect(
                rl.notes?.some((n) => n.startsWith(NOT_IDENTIFIED)),
                context,
              ).toBe(true);
              expect(rl.sustained_held, context).toBeDefined();
            } else expect(rl.limiter?.kind, context).toBe(model.kind);
            // A refill read off the line the search's refused rounds lie on is claimed to ± its own
            // error, 4 requests over their span: 5 s rounds leave at most 3.5 s of it, ±2.3 % at best
            // (CI land42: 48.86 ± 2.71 on 68 and 61 req/s, refused 1.5 s apart; 2.3 % under). The
            // truth must lie within what is claimed, and the claim within 10 % (quota-line.ts).
            const lineError = rl.sustained_held?.quota_line?.refill_error_rps ?? 0;
            expect(lineError / truth, context).toBeLessThanOrEqual(0.1);
            // A search without such a line claims a floor and the lowest rate refused above it,
            // scouting stopped once they were within SCOUT_NARROW of each other (search-loop.ts; CI
            // land64: 47 held, 52 refused, the window's 50 between; before, this asked 2 % of a search
            // that promises 10 %). The hold is never above the truth. The refusal may be just below
            // it: a clock window meets a paced client's jitter (50 ± 10 ms each way, k6 on a loaded
            // machine) before its own rate, and a client paced there is refused as the report says
            // (CI 48e: 49 req/s refused, 58 let through in 1.18 s). Not further below than 5 %.
            // The search's narrowness is between the rates it paced; the hold heads the report as k6
            // sent it, below its pace when k6 dropped arrivals for want of a free call (refuted.ts
            // heldAtRps; CI 53b: paced at 51, 16 of 255 dropped, 47.8 sent, "51 held" was above the 50).
            const held = rl.sustained_held;
            if (held && !held.quota_line && held.refused_rps !== null) {
              const paced = Math.max(
                ...(rl.proof_rounds ?? [])
                  .filter((r) => r.verdict === 'holds' && r.scout_s === undefined)
                  .map((r) => r.target_rps),
              );
              expect(rl.sustained_rps!, context).toBeLessThanOrEqual(Math.min(truth, paced));
              expect(held.refused_rps, context).toBeGreaterThan(0.95 * truth);
              expect(paced / held.refused_rps, context).toBeGreaterThanOrEqual(SCOUT_NARROW);
            } else {
              // The probe's own reading is claimed to ± its stated precision (report.json
              // sustained_precision): the truth lies within it, or within 2 %, and a bucket is claimed
              // only read to 5 % (discover.ts BUCKET_PRECISION).
              const stated = (rl.sustained_precision ?? 0) * (rl.sustained_rps ?? 0);
              expect(rl.sustained_precision ?? 0, context).toBeLessThanOrEqual(0.05);
              expect(Math.abs((rl.sustained_rps ?? 0) - truth), context).toBeLessThanOrEqual(
                Math.max(0.02 * truth, lineError, stated),
              );
            }
            expect(rl.proof_verdict, context).toBe('proven');
            expect(r.code, context).toBe(0);
          } finally {
            await proxy.stop();
            await emulator.close();
          }
        }),
    );
  },
);
