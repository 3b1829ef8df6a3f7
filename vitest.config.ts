import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { ALONE_FILES, HEAVY_FILES, LAST_FILES, PRECISE_FILES, WHOLLY_REAL_FILES } from './test/tiers.js';
import { LongestFirst } from './test/setup/longest-first.js';

export default defineConfig({
  test: {
    // Says at the end which real parts (Chromium, nginx, openssl, stress-ng, k6) were missing and what skipped.
    globalSetup: ['test/setup/real-parts.ts'],
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
      // The real tier, in three projects run one after the other (sequence.groupOrder), each
      // starting its files longest first. First the precision runs against real limiters, three at
      // a time, beside nothing but one another (four at once beside k6 and CLI runs once read
      // toxiproxy's fixed window as a bucket): their probes wait on their limiters' windows, and
      // their 668 s of files took ~5.6 min two at a time on a quiet machine, with proof-loop-stage
      // 286 s three at a time at load 3 to 5, all passing (docs/development.md, test tiers). Then
      // the rest, two at once: four (the cutover table's halves among them) failed seven tests at
      // load 2 to 9, where the machine, not the service, set the pace (a 3 s TLS handshake, a probe).
      realTier('real-precise', PRECISE_FILES, { workers: 3, order: 1 }),
      // Then the one precision run across a network, by itself (test/tiers.ts `alone`).
      realTier('real-alone', ALONE_FILES, { workers: 1, order: 2 }),
      realTier('real', HEAVY_FILES, { workers: 2, order: 3 }),
      // Then the cutover table's two halves side by side (test/tiers.ts `last`): its rows mostly
      // wait (33-40 s of CPU for all 96 in a 95-121 s phase at load 2.5-3.8, 2026-11-30), so eight
      // at a time per file rather than vitest's five: 121 → 119 s alone (the opted-in half waits on
      // its 74 s rate-limit-never-lifts row either way), 95 s with its conformant rows in the fault
      // rows' list (test/cli/cutover-faults.test.ts), all 94 green each time.
      realTier('real-last', LAST_FILES, { workers: 2, order: 4, concurrent: 8 }),
    ],
  },
});

/** One project of the real tier: its files, how many at once (and tests at once per file), and its place in the sequence. */
function realTier(
  name: string,
  include: string[],
  at: { workers: number; order: number; concurrent?: number },
): TestProjectInlineConfiguration {
  return {
    extends: true,
    test: {
      name,
      include,
      maxWorkers: at.workers,
      ...(at.concurrent ? { maxConcurrency: at.concurrent } : {}),
      sequence: { groupOrder: at.order },
      setupFiles: ['test/setup/tier.ts'],
      provide: { tier: 'real' },
    },
  };
}
