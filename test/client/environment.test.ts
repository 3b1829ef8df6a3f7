// The connection reaches the client under every documented name, and common stacks trust the
// emulator's CA from those variables with no code of their own (curl, Node's fetch). The harness'
// own CES_* variables are not passed on to the program under test.

import { describe, expect, it } from 'vitest';
import { fixture, runClientCli } from './run-client.js';

describe('the client environment', () => {
  it('curl trusts the emulator through CURL_CA_BUNDLE, and every variable is set', async () => {
    const run = await runClientCli(['--scenario', 'steady'], [fixture('curl-health.sh')], {
      env: { CES_SANDBOX_CLIENT_SECRET: 'not-for-the-client-h12' },
    });
    expect(run.report!.client!.runs[0]).toMatchObject({ exit_code: 0, requests: 1 });
    expect(run.report!.client!.runs[0]!.exchanges[0]).toMatchObject({ path: '/tokens/health_check', status: 200 });
    expect(run.statuses['client.tls13']).toBe('pass');
  });

  it("Node's fetch trusts the emulator through NODE_EXTRA_CA_CERTS", async () => {
    const run = await runClientCli(['--scenario', 'steady'], [process.execPath, fixture('node-fetch-health.mjs')]);
    expect(run.report!.client!.runs[0]).toMatchObject({ exit_code: 0, requests: 1 });
  });
});
