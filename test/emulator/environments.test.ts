// §1, §5.6: each environment its own listener, credentials, tokens and limiter.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, tokenOf, type Running } from './support/client.js';

let s: Running;
beforeAll(async () => {
  s = await start({ environments: ['sandbox', 'production'], rateLimit: { rps: 1, burst: 2 } });
});
afterAll(() => s.close());

describe('two environments', () => {
  it('lists both, first first, with distinct URLs and credentials', () => {
    const [sandbox, production] = s.emu.environments;
    expect(sandbox?.name).toBe('sandbox');
    expect(production?.name).toBe('production');
    expect(s.emu.url).toBe(sandbox?.url);
    expect(s.emu.credentials).toEqual(sandbox?.credentials);
    expect(production?.url).not.toBe(sandbox?.url);
    expect(production?.credentials.clientId).not.toBe(sandbox?.credentials.clientId);
    expect(production?.credentials.clientSecret).not.toBe(sandbox?.credentials.clientSecret);
  });

  it("rejects each environment's credentials in the other with 401", async () => {
    const [sandbox, production] = s.emu.environments;
    expect((await s.issue(1, sandbox?.credentials)).status).toBe(401);
    expect((await s.issue(0, production?.credentials)).status).toBe(401);
  });

  it('keeps tokens apart: a sandbox token is unknown in production', async () => {
    const { token } = tokenOf(await s.issue(0));
    expect((await s.call('GET', '/tokens/validate', { bearer: token }, 0)).status).toBe(200);
    expect((await s.call('GET', '/tokens/validate', { bearer: token }, 1)).status).toBe(401);
  });

  it('keeps limiters apart: exhausting one environment leaves the other alone', async () => {
    s.clock.advance(60_000);
    for (let i = 0; i < 2; i++) expect((await s.call('POST', '/tokens/health_check', {}, 0)).status).toBe(200);
    expect((await s.call('POST', '/tokens/health_check', {}, 0)).status).toBe(429);
    expect((await s.call('POST', '/tokens/health_check', {}, 1)).status).toBe(200);
  });
});

describe('ports', () => {
  it('puts environment i on port + i when a port is given', async () => {
    // Ask the OS for a free port, then hand it to an emulator with two environments.
    const probe = await start();
    const base = Number(new URL(probe.emu.url).port);
    await probe.close();
    const fixed = await start({ port: base, environments: ['a', 'b'] }).catch(() => undefined);
    // The port (or port + 1) may have been taken meanwhile; that is the OS's race, not ours.
    if (fixed === undefined) return;
    expect(fixed.emu.environments.map((e) => Number(new URL(e.url).port))).toEqual([base, base + 1]);
    await fixed.close();
  });

  it('fails to start, leaving nothing listening, when a port is taken', async () => {
    const taken = Number(new URL(s.emu.url).port);
    await expect(start({ port: taken })).rejects.toThrow(/EADDRINUSE/);
  });
});
