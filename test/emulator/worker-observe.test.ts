// The emulator in a worker thread tells its starter what it answered (startEmulatorWorker's observe
// hook), as the in-process emulator's observe option does: the request (its body a Buffer again) and
// the answer, with per-environment differences that cross threads. Test helpers count what reached a
// worker-backed pair by it (test/helpers/cutover-pair.ts).

import { afterAll, describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import type { Emulator, Observed } from '../../src/emulator/index.js';
import { startEmulatorWorker } from '../../src/emulator/worker/host.js';

const started: Emulator[] = [];
afterAll(async () => Promise.all(started.map((e) => e.close())));

describe('an emulator in a worker thread, observed', () => {
  it('tells each answered request, per environment, by the time close() resolves', async () => {
    const observed: Observed[] = [];
    const emulator = await startEmulatorWorker(
      { port: 0, environments: ['sandbox', 'production'], perEnvironment: { production: { tokenTtlS: 60 } } },
      undefined,
      { observe: (o) => observed.push(o) },
    );
    started.push(emulator);
    const production = emulator.environments[1]!;
    const dispatcher = new Agent({ connect: { ca: production.caPem }, headersTimeout: 5_000, bodyTimeout: 5_000 });
    const body = JSON.stringify({
      token: { client_id: production.credentials.clientId, client_secret: production.credentials.clientSecret },
    });
    const res = await request(`${production.url}/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      dispatcher,
    });
    const answer = (await res.body.json()) as { expires_at: number };
    await dispatcher.close();
    await emulator.close();

    expect(observed).toHaveLength(1);
    const [{ req, reply, arrivedMs, answeredMs }] = observed as [Observed];
    expect([req.method, req.path, req.headers.host]).toEqual(['POST', '/tokens', new URL(production.url).host]);
    expect(Buffer.isBuffer(req.body) && req.body.toString('utf8')).toBe(body);
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toEqual(answer);
    // Production's own lifetime crossed the thread: 60 s, not the pair's day.
    const at = answer.expires_at > 1e11 ? answer.expires_at : answer.expires_at * 1000;
    expect(at - answeredMs).toBeGreaterThan(50_000);
    expect(at - answeredMs).toBeLessThanOrEqual(61_000);
    expect(answeredMs).toBeGreaterThanOrEqual(arrivedMs);
  });
});
