import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Says at the end which real parts (Chromium, nginx, openssl, stress-ng, k6) were missing and what skipped.
    globalSetup: ['test/setup/real-parts.ts'],
    // Every test talks to servers on loopback only: a developer's HTTPS_PROXY must not route them
    // to the proxy (the proxy tests pass their own environment to what they test).
    env: { NO_PROXY: 'localhost,127.0.0.1,::1', no_proxy: 'localhost,127.0.0.1,::1' },
    // Integration tests start real TLS servers and k6; give them room on a 2-core CI machine,
    // but no test waits on a fixed sleep, so these are ceilings, not expectations.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: more workers only make the timing-sensitive emulator tests contend.
    maxWorkers: 2,
  },
});
