// The production gate at the one place every in-process request goes out (ServiceClient): a
// valid-token business call to a production target is never sent unless the endpoint is allowed,
// the budget is never exceeded, and the audit holds one entry per request sent, no token in it.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import type { Target } from '../../src/config/target.js';
import { ProductionBudgetReached, ProductionCallNotAllowed, ProductionGate } from '../../src/http/production-gate.js';
import { Redactor } from '../../src/http/redact.js';
import { ServiceClient } from '../../src/http/service-client.js';

const CALL = { method: 'POST', body: { amount: 1 } };

describe('the production gate in ServiceClient', () => {
  let emulator: Emulator;
  const arrived: string[] = [];
  const targetOf = (environment: string, production?: boolean): Target => {
    const e = emulator.environments.find((x) => x.name === environment)!;
    return {
      environment,
      baseUrl: e.url,
      credentials: e.credentials,
      caPem: emulator.caPem,
      ...(production ? { production } : {}),
    };
  };
  beforeAll(async () => {
    emulator = await createEmulator({
      port: 0,
      environments: ['production', 'live'],
      tokenTtlS: 86_400,
      observe: ({ req }) => void arrived.push(`${req.method} ${req.path}`),
    });
  });
  afterAll(async () => emulator.close());
  beforeEach(() => void arrived.splice(0));

  async function withClient<T>(target: Target, gate: ProductionGate, fn: (c: ServiceClient) => Promise<T>): Promise<T> {
    const client = new ServiceClient(target, { redactor: new Redactor(), production: gate });
    try {
      return await fn(client);
    } finally {
      await client.close();
    }
  }

  it.each([
    { what: 'named production', target: () => targetOf('production') },
    { what: 'marked production: true', target: () => targetOf('live', true) },
  ])('$what: a valid-token business call is not sent; refused ones are, and each is audited', async ({ target }) => {
    const gate = new ProductionGate(100, new Set());
    await withClient(target(), gate, async (http) => {
      const issued = (await http.issueToken()).issued!;
      await expect(http.business('evaluation', CALL, issued.token)).rejects.toBeInstanceOf(ProductionCallNotAllowed);
      await expect(http.business('ach_transactions', CALL, issued.token)).rejects.toThrow(
        /^not tested on production \(business\.ach_transactions\.production is not allowed/,
      );
      expect((await http.business('evaluation', CALL, undefined)).status).toBe(401);
      expect((await http.business('evaluation', CALL, `${issued.token}x`)).status).toBe(401);
      expect((await http.business('evaluation', CALL, issued.token, { bearerExpired: true })).status).toBe(200);
      expect(arrived).toEqual(['POST /tokens', 'POST /v1/evaluation', 'POST /v1/evaluation', 'POST /v1/evaluation']);
      expect(gate.requests.map((r) => `${r.method} ${r.path} ${r.status} ${r.auth}`)).toEqual([
        'POST /tokens 200 none',
        'POST /v1/evaluation 401 none',
        'POST /v1/evaluation 401 forged',
        'POST /v1/evaluation 200 expired',
      ]);
      expect(JSON.stringify(gate.requests)).not.toContain(issued.token);
    });
  });

  it('an allowed endpoint gets its valid-token call; the others still do not', async () => {
    const gate = new ProductionGate(100, new Set(['evaluation']));
    await withClient(targetOf('production'), gate, async (http) => {
      const { token } = (await http.issueToken()).issued!;
      expect((await http.business('evaluation', CALL, token)).status).toBe(200);
      await expect(http.business('ach_transactions', CALL, token)).rejects.toBeInstanceOf(ProductionCallNotAllowed);
      expect(arrived).toEqual(['POST /tokens', 'POST /v1/evaluation']);
    });
  });

  it('the budget is never exceeded: the request past it is not sent', async () => {
    const gate = new ProductionGate(3, new Set());
    await withClient(targetOf('production'), gate, async (http) => {
      for (let i = 0; i < 3; i++) await http.healthCheck();
      await expect(http.healthCheck()).rejects.toBeInstanceOf(ProductionBudgetReached);
      expect(arrived).toHaveLength(3);
      expect(gate.requests).toHaveLength(3);
      expect(gate.budgetReached).toBe(true);
    });
  });

  it('a target that is not production is left alone: no budget, no audit', async () => {
    const gate = new ProductionGate(1, new Set());
    await withClient(targetOf('live'), gate, async (http) => {
      const { token } = (await http.issueToken()).issued!;
      expect((await http.business('evaluation', CALL, token)).status).toBe(200);
      expect(gate.requests).toEqual([]);
    });
  });
});
