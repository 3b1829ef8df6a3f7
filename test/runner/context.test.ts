// The check context makes the target's HTTP client on first use: building one costs a trust store
// (~20 ms of CPU), which a run of only tls.* checks never needs. Counted here by construction.
// And it runs on the clock it is given: the checks, the token session and the clients read and
// wait on that one, and every wait ends when the run is stopped.

import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Target } from '../../src/config/target.js';
import { Redactor } from '../../src/http/redact.js';
import { Ledger } from '../../src/runner/ledger.js';
import { virtualClock, type Clock } from '../../src/time/clock.js';

const made = vi.hoisted(() => ({ clients: 0 }));
vi.mock('../../src/http/service-client.js', async (original) => {
  const real = await original<typeof import('../../src/http/service-client.js')>();
  class CountedClient extends real.ServiceClient {
    constructor(...args: ConstructorParameters<typeof real.ServiceClient>) {
      super(...args);
      made.clients++;
    }
  }
  return { ...real, ServiceClient: CountedClient };
});
// The fast tier shares a worker between files (isolate: false): context.js may already be loaded
// with the real client, so it is loaded afresh under the mock, and the mock goes with this file.
vi.resetModules();
const { createContext } = await import('../../src/runner/context.js');
afterAll(() => {
  vi.doUnmock('../../src/http/service-client.js');
  vi.resetModules();
});

const target: Target = {
  environment: 'sandbox',
  baseUrl: 'https://127.0.0.1:9',
  credentials: { clientId: 'ces-id', clientSecret: 'ces-secret-value' },
};

function open(clock?: Clock, signal?: AbortSignal) {
  return createContext({
    ...(clock ? { clock } : {}),
    ...(signal ? { signal } : {}),
    target,
    others: [],
    expect: { tokenLifetimeS: 8, expiryWaitS: 0, clockToleranceS: 2 },
    business: { evaluation: { method: 'POST', body: {} }, ach_transactions: { method: 'POST', body: {} } },
    rateLimit: {
      endpoint: 'tokens.validate',
      maxRps: 1,
      maxRequests: 1,
      recoveryWaitS: 0,
      maxRetryAfterS: 120,
      probingAllowed: false,
    },
    ledger: Ledger.disabled(),
    redactor: new Redactor(),
  });
}

describe('check context', () => {
  it('makes no HTTP client until a check uses one, then one for the target, reused', async () => {
    made.clients = 0;
    const { ctx, close } = open();
    // What a tls.* check and the runner read: the target, the redactor.
    expect(ctx.target.baseUrl).toBe(target.baseUrl);
    expect(ctx.redactor.text('ces-secret-value')).not.toContain('ces-secret-value');
    expect(made.clients).toBe(0);
    expect(ctx.http).toBe(ctx.http);
    expect(made.clients).toBe(1);
    await close();
  });

  it('closes without ever having made a client', async () => {
    made.clients = 0;
    const { close } = open();
    await close();
    expect(made.clients).toBe(0);
  });

  it('reads and waits on the clock it is given, in the checks and the clients alike', async () => {
    const clock = virtualClock(Date.UTC(2026, 10, 26, 12, 0, 0));
    const { ctx, close } = open(clock);
    await ctx.sleep(8_000);
    expect(ctx.now()).toBe(Date.UTC(2026, 10, 26, 12, 0, 8));
    expect(ctx.http.clock.now()).toBe(ctx.now());
    await close();
  });

  it("ends a wait when the run is stopped, with the stop's reason", async () => {
    const stop = new AbortController();
    const { ctx, close } = open(virtualClock(), stop.signal);
    const waiting = ctx.sleep(60_000);
    stop.abort(new Error('stopped by the user'));
    await expect(waiting).rejects.toThrow('stopped by the user');
    await expect(ctx.http.clock.sleep(1)).rejects.toThrow('stopped by the user');
    await close();
  });
});
