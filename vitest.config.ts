import { configDefaults, defineConfig } from 'vitest/config';
import { REAL_TIER_FILES, WHOLLY_REAL_FILES } from './test/tiers.js';

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
        },
      },
      {
        extends: true,
        test: {
          name: 'real',
          include: REAL_TIER_FILES,
          // The real tier waits (on windows, k6's durations, real limiters), it hardly computes:
          // measured at 0.28 of a core over 648 s with two workers. Four at once halve its time
          // (329 s) and still leave a core free for the probes' timers; the fast tier stays at two.
          maxWorkers: 4,
          setupFiles: ['test/setup/tier.ts'],
          provide: { tier: 'real' },
        },
      },
    ],
  },
});
