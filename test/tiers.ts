// The two test tiers, in one place (vitest.config.ts and test/setup/tier.ts read this table).
//
//  - fast (`npm test`, `vitest run --project fast`): every test file not listed here, and from each
//    file listed with `fast`, the tests those patterns name: one test per real part (k6, nginx,
//    Chromium, openssl, HAProxy, toxiproxy) is in the fast tier, so a broken real part fails the
//    first command CI runs.
//  - real (`npm run test:real`, `vitest run --project 'real*'`): the rest of each file listed here,
//    the precision runs against real limiters, the k6 proofs, the heavy integration runs.
//
// Files are listed, not moved: the tier is a fact about a test's cost, not about what it tests.
// A file listed without `fast` runs whole in the real tier; one with `fast` runs in both, each test
// in exactly one of them (the others skip, naming the tier they run in).

export type Tier = 'fast' | 'real';

export interface RealTierFile {
  /** Why it is slow: what its time goes into. */
  why: string;
  /**
   * Its wall time in the last measured tier run, in seconds: each project starts its files longest
   * first by it (test/setup/longest-first.ts), so that no long file starts last and ends the phase alone.
   */
  seconds: number;
  /** The tests that stay in the fast tier, by their own name as vitest prints it (`$value` quoted), not their describe's. */
  fast?: RegExp[];
  /**
   * A probe read within a few percent of a real limiter's truth, or of the emulator's bucket before
   * proof rounds: its timers must not share the CPU with the rest of the tier's k6 and whole CLI
   * runs at their own priority, so these run first, four at a time (their probes wait on windows;
   * one closed loop with k6 among them, proof-loop-stage's), then the rest of the tier. Not beside the fast tier either, even under SCHED_IDLE (docs/development.md, test tiers).
   */
  precise?: true;
  /**
   * A precision run read wrong beside the other precision files, so run by itself after them
   * (vitest.config.ts): its probes read limiters across toxiproxy's 50 ± 10 ms, where the phase's
   * load stretches what jitter already blurs.
   */
  alone?: true;
}

export const REAL_TIER: Record<string, RealTierFile> = {
  'test/integration/profiles.test.ts': {
    // 194 s quiet with a `check` before each `run`; without it 346 → 242 s back to back at load 9-17 (0.70×).
    // Each group starting once the one before has probed: 173 → 133 s (file alone, load 2-5 → 4-7, 2026-11-30).
    seconds: 133,
    why: '`run` (its checks, k6 load and rate-limit sizing) against each of the four profile groups, one probe after another, as a user runs it: over two minutes',
  },
  'test/integration/check-emulator.test.ts': {
    seconds: 25,
    // The fast tier holds the fault matrix itself: each fault against the check that must catch it,
    // and one full conformant run.
    why: 'a fault that never lifts judged by the whole rate-limit family, its recovery waits included',
    fast: [/^passes every check/, /^has a catching check/, / fails the verdict$/, /^token\.lifetime with faults/],
  },
  'test/integration/load-sized.test.ts': {
    seconds: 25,
    why: 'the real k6 throughput run twice against a bucket of 2 a second: lost calls wait out their retry budget, then the sized run',
  },
  'test/integration/network.test.ts': {
    seconds: 54,
    why: '`run` across 100 ms of latency: the rate-limit probe and k6 pay it on every request',
    fast: [/^'check' passes$/],
  },
  'test/ratelimit/nginx.test.ts': {
    // 82 s, then 6 and 15 s alone for its two rows with no burst (8 Dec).
    seconds: 103,
    why: 'the probe against nginx limit_req at several settings, each within 5 %, and with no burst (a bucket of one) within 2 %',
    fast: [/^reports nginx without limit_req_status/],
    precise: true,
  },
  'test/ratelimit/nginx-proof.test.ts': {
    seconds: 31,
    // Not `precise`: its k6 runs would share the CPU with the precision probes beside it.
    why: 'the k6 proof of a recommendation behind nginx limit_req, and of a hasty policy that loses calls: two 4 s rounds after a probe; and a round behind limit_req with no burst',
  },
  'test/ratelimit/nginx-queue.test.ts': {
    seconds: 59,
    why: 'the probe against nginx limit_req without nodelay (a queue) at two settings, each within 2 %',
    precise: true,
  },
  'test/ratelimit/nginx-slow-upstream.test.ts': {
    // 29-30 s alone (7 Dec): the probe's 28 s, its stream waiting on the service's line.
    seconds: 30,
    why: "the probe against nginx limit_req in front of a service slower than it: nginx's rate and the service's pace each within 5 %",
    precise: true,
  },
  'test/ratelimit/nginx-zones.test.ts': {
    // 19.9-20.5 s in the five CI logs of 2026-11-30 (30 was listed): it started before
    // long-window-emulator and the precise phase ended on the longer one alone, 252 s where ~244 packs.
    seconds: 20,
    why: 'the probe against two nginx limit_req zones at once (30r/s and 600r/m), the lower read within 2 % and never recommended above',
    precise: true,
  },
  'test/ratelimit/haproxy.test.ts': {
    // 67 s alone (5 Dec): 16 and 18 s for the 500 ms recipes, 32 s for 50 per 10 s fit over its trace.
    seconds: 67,
    why: "HAProxy's sliding window read within 2 % in each recipe, and its usual 10 s recipe at 50 (nginx's test in the fast tier stands for the real limiters there)",
    precise: true,
  },
  'test/ratelimit/proof-loop-stage.test.ts': {
    // With cutover's searchOnly pair (a search, then an identified bucket): 126 s in CI land42.
    seconds: 126,
    why: 'the closed loop with real k6: proof rounds of several seconds each, until one holds or none does',
    // Its probe must read the emulator's bucket within its 30 s cap before any round: beside the
    // heavy files' CLI runs and k6 it read 33 of 50 req/s and stopped partial (no proof to test).
    // It ran alone after the rest until the precise phase had a third worker: its 28 CPU s in 113 s
    // (measured alone, load 8) are about what ratelimit-network's closed loop adds there.
    precise: true,
  },
  'test/ratelimit/proof-cut.test.ts': {
    // 23-29 s in the CI logs of 1 Dec, with its third row (a round cut on its dropped arrivals).
    seconds: 27,
    why: 'real k6 cutting a failed proof round short by its own thresholds (its 429s, its dropped arrivals), some 20 s of load',
  },
  'test/ratelimit/httprate.test.ts': {
    // 94 s in CI land32, then Traefik's row (20.5 s alone).
    seconds: 115,
    why: "real Go limiters (go-chi/httprate, golang.org/x/time/rate, a timer-refilled batch bucket, Traefik's rateLimit) built from the Go module proxy, each sized within 2 % and proven",
    precise: true,
  },
  'test/integration/ratelimit-network.test.ts': {
    // Each limiter's probe once the one before has probed, beside its k6 proof round: 128 → 100-102 s
    // (file alone, load 3-8, 2026-11-30). Until 5 Dec it ran by itself after the precise phase (a
    // fixed window across toxiproxy misread in 3 of 9 precise phases three at a time, 29 Nov, before
    // the probe's stall defences and the relay); one of the five since, its three limiters read right
    // in 4 of 4 precise phases and the CI run after (docs/development.md, test tiers), ~70 s saved.
    seconds: 80,
    why: '`ratelimit` through toxiproxy (50 ± 10 ms each way) against three limiter kinds, one probe after another, each proven by k6: a minute and a half',
    precise: true,
    // Alone again from 7 Dec: beside three or four precision files it failed 2 of 3 `.ci/run`s that
    // day (its fixed window "not identified", its sliding log read as a smooth window and searched
    // past its 170 s), each a different misreading of jitter the phase's load stretched.
    alone: true,
  },
  'test/integration/ratelimit-network-kinds.test.ts': {
    seconds: 115,
    why: 'the probe through toxiproxy (50 ± 10 ms each way) against x/time/rate, httprate 1 s and 10 s, HAProxy 10 s counters and a silent one, each within 2 %: about three minutes',
    precise: true,
  },
  'test/ratelimit/emulator.test.ts': {
    seconds: 109,
    why: "the probe against the emulator's token bucket at several settings, each within 5 %",
    precise: true,
  },
  'test/ratelimit/flexible.test.ts': {
    seconds: 39,
    why: 'fixed windows of a real limiter (rate-limiter-flexible) sized within 2 %: each probe sees two and a half windows',
    precise: true,
  },
  'test/ratelimit/long-window-emulator.test.ts': {
    // 23.6-27.8 s in the five CI logs of 2026-11-30.
    seconds: 27,
    why: 'a 10 s fixed window sized over real requests: two and a half periods, 25 s',
    precise: true,
  },
  'test/ratelimit/stage.test.ts': {
    seconds: 34,
    why: 'the `ratelimit` stage through the CLI: the probe, and the k6 proof of its recommendation',
    // Its in-process probe of a 2 s limit read "not identified" once with two other CLI files beside it (2026-11-30).
    precise: true,
  },
  'test/ratelimit/run-announced-minute.test.ts': {
    seconds: 32,
    // Its fast twins: announced-headline.test.ts (Kong's fields, the headline 10 req/s announced, not
    // proven, in every format, the recommendation within it) and announced-unproven.test.ts (Kong's
    // bucket of 30 beside the minute), on virtual time; the stage's wiring stays fast in its minute-alone case.
    why: "`run`'s rate-limit stage against Kong's second and minute on the emulator: the 30 s probe in real time and k6 proof rounds",
    // The silent minute at its start stops in 3 virtual seconds, no k6: fast. At 45 s in, the limit
    // stayed shut past run's 5 s rounds, so none runs (horizon.ts shutPastProof): fast too.
    fast: [
      /^run: announced, not proven/,
      /^ratelimit, capped as run is/,
      /^run, silent: not tested/,
      /^run, silent, 45 s into the minute/,
    ],
    // Its Kong case probes the emulator's bucket of 30 in real time: beside the heavy files' k6 and
    // CLI runs (CI ci-39a) the drain passed 51, the bucket came back whole as a window does, the
    // stream read 30.2 req/s but no window, and run's one 5 s round at the announced minute's 8
    // req/s fitted in that burst: "not identified … nothing was sized", not tested. 1 of 29 CI runs.
    precise: true,
  },
  'test/ratelimit/fleet/k6-proof.test.ts': {
    // 25.7-28.8 s in three runs at load 12-15 (2026-11-29), where 44 was listed.
    seconds: 28,
    why: 'the fleet simulator against k6 fleet runs behind real limiters (nginx, HAProxy)',
    // Its comparison is a precision one: the simulation replays k6's run with k6's mean round trip
    // and wake-up lateness, and agrees to within a request or two when k6 keeps its pace. Among the
    // heavy files' CLI and k6 runs (CI 50a: round trips 32 ms on loopback) one early refusal more or
    // less reordered HAProxy's 40 per 1 s for 16 instances: k6 sent 130, the simulation 115 (12.6 %).
    precise: true,
  },
  'test/cli/load.test.ts': {
    seconds: 35,
    why: 'k6 runs of all four scenarios through the CLI, and `run` (checks, rate limit, load)',
    fast: [/^an unknown scenario is a usage error/],
  },
  'test/cli/load-turnover.test.ts': {
    seconds: 42,
    why: 'k6 runs long enough for tokens to turn over mid-scenario, at several lifetimes',
  },
  'test/cli/cutover-faults.test.ts': {
    // 121 s five rows at a time beside three other files (2026-11-30, quiet); its conformant rows are
    // in the fault rows' list, so they start once every fault row has, not after the slowest ended.
    seconds: 121,
    why: '`cutover` over every production fault and profile group, with opt-ins: 48 runs of two check passes each, mostly waiting (the expiry, the probes, the pauses of the checks)',
    fast: [/^wrong-token-type$/],
  },
  'test/cli/cutover-faults-read-only.test.ts': {
    // 81 s as above.
    seconds: 80,
    why: '`cutover` over every production fault and profile group, without opt-ins: 48 runs of two check passes each, mostly waiting (the expiry, the probes, the pauses of the checks)',
    fast: [/^wrong-token-type$/],
  },
  'test/cli/cutover.test.ts': {
    // Its probing runs two at a time (turns): 107 s in CI land42, 105 s quiet.
    seconds: 107,
    why: '`cutover` against an emulator pair, one full run per readiness finding',
  },
  'test/cli/k6-failures.test.ts': {
    // The crash cases (~6 s) beside the stage runs, which take turns: 70 s at load 12-14 (all passing).
    seconds: 41,
    why: 'a whole `run` (checks, rate limit) per way k6 can fail, to see the report still written',
  },
  'test/cli/hostile-k6.test.ts': {
    // 29 s alone at load 0.9 (2026-11-30).
    seconds: 29,
    why: 'a whole `ratelimit` run (a 20 s probe, then a k6 proof round) against a service hostile to k6 alone',
  },
  'test/cli/shared-token.test.ts': {
    // Its `ratelimit` run, with `check` and `load` beside it: 98 s one after another at load 16, 74 s side by side at load 13.
    seconds: 28,
    why: '`check`, `ratelimit` and `load` each run whole, side by side, to prove what they keep in the token ledger',
  },
  'test/k6/scenarios.test.ts': {
    // 36 s one run after another (load 6-16), 15 s with the rate-limit rows alone and the rest side by side (load 7, 2026-11-29);
    // 24 s with the row whose token turns over as k6 starts (a 3.5 s wait before it, 2.5 s in its setup; 2026-12-01).
    seconds: 24,
    why: 'each bundled scenario run by real k6, conformant and against each fault it exists to catch, five at a time but the rate-limit rows',
  },
  'test/client/well-behaved.test.ts': {
    // Its two blocks side by side: 39.8 → 26.9 s (file alone, load 5 → 3, 2026-11-30).
    seconds: 27,
    why: 'every scenario of `ces-harness client` per reference client (Node, Python, curl), and jitter three times',
  },
  'test/client/misbehaving.test.ts': {
    seconds: 8,
    why: 'a real client run (about 5 s) per client-side rule broken',
  },
  'test/ci/action.test.ts': {
    seconds: 45,
    why: "the GitHub Action's own steps run locally against the emulator, a whole `run` included",
  },
  'test/ci/workflow.test.ts': {
    seconds: 35,
    why: "the scheduled workflow's steps run twice against the emulator, with the ledger carried over a token expiry",
  },
  'test/runner/slow-burst.test.ts': {
    seconds: 21,
    // Its fast twin: slow-burst-virtual.test.ts, the same two cases on virtual time (burst-world.ts).
    why: "check's burst against the emulator's 2 s business answers over real sockets: the answers' real timers, some 20 s",
  },
  'test/package/install.test.ts': {
    // `check` beside `run`: 42.8 → 41.0 s (file alone, load 3 → 7, 2026-11-30; the two runs 40.2 → 35.3 s).
    seconds: 41,
    why: 'npm pack, an install into an empty folder, and `check` and `run` with the installed bin',
  },
};

/** The tier a test runs in, by its file (relative to the repository, with '/') and its own name. */
export function tierOf(file: string, testName: string): Tier {
  const listed = REAL_TIER[file];
  if (!listed) return 'fast';
  return listed.fast?.some((name) => name.test(testName)) ? 'fast' : 'real';
}

/** The files each tier's project includes (a file with tests in both is in both). */
export const REAL_TIER_FILES = Object.keys(REAL_TIER);
export const WHOLLY_REAL_FILES = REAL_TIER_FILES.filter((file) => !REAL_TIER[file]!.fast);
/** The real tier in its three projects: the precision runs, those run alone, then the rest. */
export const PRECISE_FILES = REAL_TIER_FILES.filter((file) => REAL_TIER[file]!.precise && !REAL_TIER[file]!.alone);
export const ALONE_FILES = REAL_TIER_FILES.filter((file) => REAL_TIER[file]!.precise && REAL_TIER[file]!.alone);
export const HEAVY_FILES = REAL_TIER_FILES.filter((file) => !REAL_TIER[file]!.precise);
