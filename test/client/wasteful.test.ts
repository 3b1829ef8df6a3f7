// Wasteful but allowed by the spec (§5.5: a token per call "at the cost of latency"; fetching early;
// fetching only after a 401): warned with what it cost, never failed, and the run passes (exit 0).

import { describe, it } from 'vitest';
import { fixture, runClientCli } from './run-client.js';

const CASES = [
  {
    client: 'per-call-token.mjs',
    scenario: 'steady',
    warns: 'client.token-reuse',
    says: /delaying the client's next call by [\d.]+ ms/,
  },
  { client: 'early-token.mjs', scenario: 'short-token-lifetime', warns: 'client.token-reuse', says: /still valid/ },
  {
    client: 'token-until-401.mjs',
    scenario: 'short-token-lifetime',
    warns: 'client.bearer',
    says: /past its expires_at/,
  },
] as const;

describe('ces-harness client with a wasteful client', () => {
  // Side by side, each with its own emulator: a scenario is a fixed few seconds of calls, so the
  // runs wait on the clock, not the CPU (as test/client/well-behaved.test.ts runs its clients).
  it.concurrent.for(CASES)(
    '$client is warned by $warns, never failed',
    async ({ client, scenario, warns, says }, { expect }) => {
      const run = await runClientCli(['--scenario', scenario], [process.execPath, fixture(client)]);
      expect({ code: run.code, failed: run.failed, verdict: run.report?.verdict }).toEqual({
        code: 0,
        failed: [],
        verdict: 'pass',
      });
      expect(run.statuses[warns]).toBe('warn');
      expect(run.report!.checks.find((c) => c.id === warns)!.message).toMatch(says);
    },
  );
});
