import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { ALONE_FILES, HEAVY_FILES, PRECISE_FILES, WHOLLY_REAL_FILES } from './test/tiers.js';
import { LongestFirst } from './test/setup/longest-first.js';

export default defineConfig({
  test: {
    // One temp folder per run, every worker's TMPDIR, removed at its end (temp-root.ts); then, at the
    // end, which real parts (Chromium, nginx, openssl, stress-ng, k6) were missing and what skipped.
    globalSetup: ['test/setup/temp-root.ts', 'test/setup/real-parts.ts'],
    // Every test talks to servers on loopback only: a developer's HTTPS_PROXY must not route them
    // to the proxy (the proxy tests pass their own environment to what they test).
    env: { NO_PROXY: 'localhost,127.0.0.1,::1', no_proxy: 'localhost,127.0.0.1,::1' },
    // Integration tests start real TLS servers and k6; give them room on a 2-core CI machine,
    // but no test waits on a fixed sleep, so these are ceilings, not expectations.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: the fast tier computes, and more workers only make its timing-sensitive tests contend.
    maxWorkers: 2,
    // The real tier's projects start their files longest first (test/tiers.ts `seconds`), the fast tier as vitest orders it.
    sequence: { sequencer: LongestFirst },
    // Two tiers (test/tiers.ts says which file is where, and why): `npm test` runs the fast one,
    // `npm run test:real` the precision and heavy runs; .ci/run runs both. Each project names its
    // own include: `extends: true` joins arrays, so one at the top would be in both.
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...WHOLLY_REAL_FILES],
          setupFiles: ['test/setup/tier.ts'],
          provide: { tier: 'fast' },
          // One worker process runs many files, each importing src/ once per worker rather than once
          // per file (a fresh fork each): 35 → 22 CPU seconds for test/config, spec and report's 34
          // files. Nothing here needs a process of its own: the CLI runs in-process without process
          // state (test/cli/in-process.test.ts), and the two files that vi.mock a module load it
          // afresh and drop the mock after them (writable.test.ts, context.test.ts).
          isolate: false,
        },
      },
      // The real tier, in two projects run one after the other (sequence.groupOrder), each starting
      // its files longest first. First the precision runs against real limiters, five at a time (four
      // until 4 Dec; five green in 3 of 3 clean `.ci/run`s, ~35 s shorter; six once read a bucket
      // across toxiproxy "not identified"), beside no other real-tier file (four at once beside k6 and
      // CLI runs once read toxiproxy's fixed window as a bucket): their probes wait on their limiters'
      // windows (docs/development.md, test tiers). ratelimit-network, across toxiproxy, is one of them
      // since 5 Dec: it ran by itself after them (81 s), and the phase with it took 182-193 s where it
      // took ~171 without (3 of 3 green, 0.46 of a core). Four again from 6 Dec: five at a time, 5 of
      // 17 `.ci/run`s failed a precision run on round trips the phase's load stretched (a sliding log
      // and a fixed window across toxiproxy, HAProxy's politeness, Traefik's burst 97 of 100, a k6
      // fleet run starved), each passing alone; the phase ~35 s longer.
      // Then ratelimit-network across toxiproxy by itself (test/tiers.ts `alone`): on 7 Dec, beside
      // three or four others, it failed 2 of 3 `.ci/run`s, each time another misreading of jitter.
      realTier('real-precise', PRECISE_FILES, { workers: 4, order: 1 }),
      realTier('real-alone', ALONE_FILES, { workers: 1, order: 2 }),
      // Then the rest, six at a time, the cutover table's halves among them: its files wait on k6's
      // durations, expiries and probes, not the CPU. Four at once took 233 s where two at a time and
      // the table after took ~450 s (2026-11-30, quiet); the one failure there was the product's (a
      // stored burst figure that moved with the machine's pace, fixed in src/runner/limit-burst.ts). The
      // one file of them whose probe read wrong three at a time (stage.test.ts) is a precision run now.
      // Five at a time from 4 Dec (~237 s in CI, 60 % of two cores); on 5 Dec, quiet, six took 202 s
      // (55 % of two cores) and seven 183 and 183 s (61 %), every file green and each as long as
      // before (the files' sum 1,094 → 1,131-1,157 s). Six, not seven: on 1 Dec a slower machine ran
      // this phase CPU-bound six at a time (files 1.3-2.2 times as long), and its timed runs must keep
      // their margin on a CI machine slower than this one; the floor is profiles.test.ts, 160 s.
      // Five again from 6 Dec, afternoon: on a slower machine (fast tier 241-281 s, where 225 s was
      // usual) two `.ci/run`s of three failed in cutover-faults' rows at six, both starved (a loopback
      // health round trip of 0.74 s, a TLS handshake past 5 s; a sandbox probe's search past 290 s).
      // Four from 7 Dec: at five, ci-56D failed two cutover rows on emulators the phase starved (a
      // production bucket read as a window; a sandbox that let 357 through, then a search past 290 s),
      // as session 55's runs did three times in eight.
      realTier('real', HEAVY_FILES, { workers: 4, order: 3 }),
    ],
  },
});

/** One project of the real tier: its files, how many at once, and its place in the sequence. */
function realTier(
  name: string,
  include: string[],
  at: { workers: number; order: number },
): TestProjectInlineConfiguration {
  return {
    extends: true,
    test: {
      name,
      include,
      maxWorkers: at.workers,
      sequence: { groupOrder: at.order },
      setupFiles: ['test/setup/tier.ts'],
      provide: { tier: 'real' },
    },
  };
}
