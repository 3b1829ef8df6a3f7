// A refusal of bad credentials is judged by what it carries, never by what its fields are called:
// a token issued to the run, in any encoding under any name, is found by value; one the run never
// saw is found by trying it; words that only name credentials are no leak. Real emulators on
// 127.0.0.1 port 0.

import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator, type FaultName } from '../../src/emulator/index.js';
import { Redactor } from '../../src/http/redact.js';
import { ServiceClient } from '../../src/http/service-client.js';
import { badCredentialsOutcome } from '../../src/runner/bad-credentials.js';
import { leakProblem } from '../../src/runner/expect.js';

let emulator: Emulator | undefined;
let http: ServiceClient | undefined;
afterEach(async () => {
  await http?.close();
  await emulator?.close();
  emulator = http = undefined;
});

async function clientOf(faults: FaultName[], profiles: Array<'oauth-error-fields'> = []): Promise<ServiceClient> {
  emulator = await createEmulator({ port: 0, faults, profiles, rateLimit: { rps: 100, burst: 100 } });
  http = new ServiceClient(
    { environment: 'sandbox', baseUrl: emulator.url, credentials: emulator.credentials, caPem: emulator.caPem },
    { redactor: new Redactor(), connections: 2 },
  );
  return http;
}

const wrongSecret = (client: ServiceClient) =>
  client.issueToken({ ...client.target.credentials, clientSecret: 'wrong-secret-0123456789' });

describe('a refusal of bad credentials', () => {
  it.each([
    {
      faults: ['refusal-token-renamed'],
      tokenFirst: true,
      leak: /carries a token issued to this run/,
      verdict: 'fail',
    },
    { faults: ['refusal-token-renamed'], tokenFirst: false, leak: undefined, verdict: 'fail' },
    {
      faults: ['refusal-carries-token'],
      tokenFirst: true,
      leak: /carries a token issued to this run/,
      verdict: 'fail',
    },
    { faults: ['secret-hex-in-error'], tokenFirst: false, leak: /echoes the client secret/, verdict: 'fail' },
    // Pieces of one value in one answer are that value: both halves quoted, the token is carried.
    {
      faults: ['refusal-token-split'],
      tokenFirst: true,
      leak: /carries a token issued to this run/,
      verdict: 'fail',
    },
    // Never seen before: the halves are refused one by one, joined they work.
    { faults: ['refusal-token-split'], tokenFirst: false, leak: undefined, verdict: 'fail' },
    { faults: ['secret-upper-in-error'], tokenFirst: false, leak: /echoes the client secret/, verdict: 'fail' },
    { faults: [], tokenFirst: true, leak: undefined, verdict: 'pass' },
  ] as const)(
    '$faults, a token issued first: $tokenFirst → $verdict',
    async ({ faults, tokenFirst, leak, verdict }) => {
      const client = await clientOf([...faults]);
      if (tokenFirst) expect((await client.issueToken()).status).toBe(200);
      const refusal = await wrongSecret(client);
      expect(refusal.status).toBe(401);
      if (leak) expect(leakProblem(refusal)).toMatch(leak);
      else expect(leakProblem(refusal)).toBeUndefined();
      // A token the run never saw is found by trying it: the verdict is the same either way.
      const outcome = await badCredentialsOutcome(client, refusal, 'a wrong secret');
      expect(`${outcome.status}: ${outcome.message}`).toMatch(new RegExp(`^${verdict}: `));
      if (verdict === 'fail' && !leak) expect(outcome.message).toMatch(/carries a working token/);
    },
  );

  it('naming credentials in error_uri and error_description is no leak', async () => {
    const client = await clientOf([], ['oauth-error-fields']);
    await client.issueToken();
    const refusal = await wrongSecret(client);
    expect(refusal.text).toMatch(/token=none/);
    expect(leakProblem(refusal)).toBeUndefined();
    expect((await badCredentialsOutcome(client, refusal, 'a wrong secret')).status).toBe('pass');
  });
});
