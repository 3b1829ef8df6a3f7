// Each misbehaving client breaks one client-side rule of the spec and must fail exactly the check
// that enforces it (other checks may pass, skip or warn). Real clients, a real emulator per run.

import { describe, it } from 'vitest';
import { fixture, runClientCli } from './run-client.js';

const CASES = [
  { client: 'token-content-type.mjs', scenario: 'steady', fails: 'client.token-request' },
  { client: 'token-scheme.mjs', scenario: 'steady', fails: 'client.bearer' },
  { client: 'never-renews.mjs', scenario: 'short-token-lifetime', fails: 'client.renews-after-expiry' },
  { client: 'ignores-retry-after.mjs', scenario: 'rate-limit-storm', fails: 'client.rate-limit-wait' },
  { client: 'fixed-backoff.mjs', scenario: 'rate-limit-no-retry-after', fails: 'client.rate-limit-wait' },
  { client: 'secret-in-header.mjs', scenario: 'steady', fails: 'client.secret-kept' },
  { client: 'secret-in-query.mjs', scenario: 'steady', fails: 'client.secret-kept' },
  { client: 'tls12-first.mjs', scenario: 'steady', fails: 'client.tls13' },
  { client: 'exits-nonzero.mjs', scenario: 'steady', fails: 'client.exit-code' },
] as const;

describe('ces-harness client with a misbehaving client', () => {
  // Side by side, each with its own emulator: a scenario is a fixed few seconds of calls, so the
  // runs wait on the clock, not the CPU (as test/client/well-behaved.test.ts runs its clients).
  it.concurrent.for(CASES)('$client fails $fails and nothing else', async ({ client, scenario, fails }, { expect }) => {
    // A steady client shows these faults on its first calls: 2 s of calls (CES_RUN_SECONDS is half
    // a 4 s time limit) prove what the usual 5 s do. The other scenarios keep their length: their
    // faults show only after a token expiry or a rate-limit refusal.
    const short = scenario === 'steady' ? ['--time-limit', '4'] : [];
    const run = await runClientCli(['--scenario', scenario, ...short], [process.execPath, fixture(client)]);
    expect({ code: run.code, failed: run.failed }).toEqual({ code: 1, failed: [fails] });
    expect(run.report?.verdict).toBe('fail');
    // The failure says why with evidence, in the terminal and the report alike.
    const result = run.report!.checks.find((c) => c.id === fails)!;
    expect(result.evidence.length).toBeGreaterThan(0);
    expect(run.stdout).toContain(`fail  ${fails}`);
  });
});
