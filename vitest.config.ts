import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Says at the end which real parts (Chromium, nginx, openssl, stress-ng, k6) were missing and what skipped.
    globalSetup: ['test/setup/real-parts.ts'],
    // Integration tests start real TLS servers and k6; give them room on a 2-core CI machine,
    // but no test waits on a fixed sleep, so these are ceilings, not expectations.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: more workers only make the timing-sensitive emulator tests contend.
    maxWorkers: 2,
  },
});
