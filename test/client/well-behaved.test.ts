// The reference clients users copy (examples/clients/) pass every scenario: no check fails, none
// warns, and the run exits 0. A real Node (undici) client and a real Python one, standard library only.

import { describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { fixture, runClientCli } from './run-client.js';

const CLIENTS = [
  { name: 'node-undici.mjs', command: [process.execPath, resolve('examples/clients/node-undici.mjs')] },
  { name: 'python_client.py', command: ['python3', resolve('examples/clients/python_client.py')] },
];

// The two blocks side by side too ({ concurrent: true }, as test/cli/load.test.ts): one after the
// other they took 27.7 + 12.1 s (2026-11-30, load 5), five runs of about 0.15 of a core each.
describe('ces-harness client with the reference clients', { concurrent: true }, () => {
  // The clients run side by side, each with its own emulator (the CLI's built-in one on port 0):
  // every scenario is a fixed few seconds of calls, so the runs wait on the clock, not the CPU.
  it.concurrent.for(CLIENTS)(
    '$name passes every scenario without a warning',
    { timeout: 180_000 },
    async ({ command }, { expect }) => {
      // Spawned, as a user runs it: the bin's own `client` wiring, end to end, per reference client.
      const run = await runClientCli([], command, { timeoutMs: 170_000, spawned: true });
      const notPassed = run.report?.checks
        .filter((c) => c.status !== 'pass')
        .map((c) => `${c.id}: ${c.status}: ${c.message}`);
      expect({ code: run.code, notPassed }).toEqual({ code: 0, notPassed: [] });
      expect(run.report?.client?.runs.map((r) => r.scenario)).toEqual([
        'steady',
        'short-token-lifetime',
        'rate-limit-storm',
        'rate-limit-no-retry-after',
        'slow-business',
      ]);
      // Each scenario did what it is for: the token expired mid-run, the storms sent 429s.
      const runs = Object.fromEntries(run.report!.client!.runs.map((r) => [r.scenario, r]));
      expect(runs['short-token-lifetime']!.token_fetches).toBeGreaterThanOrEqual(2);
      expect(runs['rate-limit-storm']!.exchanges.some((e) => e.status === 429 && e.retry_after !== undefined)).toBe(
        true,
      );
      expect(
        runs['rate-limit-no-retry-after']!.exchanges.some((e) => e.status === 429 && e.retry_after === undefined),
      ).toBe(true);
      expect(runs['slow-business']!.exchanges.some((e) => e.path.startsWith('/v1/') && e.duration_ms >= 1_400)).toBe(
        true,
      );
      expect(runs['steady']!.exchanges.every((e) => e.status === 200)).toBe(true);
      expect(runs['steady']!.tls_offered.versions).toContain('TLSv1.3');
    },
  );
});

describe('ces-harness client with randomised backoff', { concurrent: true }, () => {
  // Full jitter draws some short waits by design; three runs, so a rule that fails a short single wait
  // (or a flat stretch) would show up here rather than on a user's CI.
  // Side by side, as above: independent runs, each its own emulator.
  it.concurrent.for([1, 2, 3])(
    'full jitter passes both 429 scenarios (run %i)',
    { timeout: 60_000 },
    async (_, { expect }) => {
      const run = await runClientCli(
        ['--scenario', 'rate-limit-storm', '--scenario', 'rate-limit-no-retry-after'],
        [process.execPath, fixture('full-jitter.mjs')],
      );
      expect({ code: run.code, failed: run.failed }).toEqual({ code: 0, failed: [] });
      expect(run.statuses['client.rate-limit-wait']).toBe('pass');
    },
  );
});
