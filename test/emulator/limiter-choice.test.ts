// The emulator as test ground for limiter identification: `--limiter fixed|sliding` (and the
// "refused requests count" switch) through EmulatorOptions and the serve flags, and several
// clients per environment, each accepted and limited on its own (a second client for scope).

import { afterEach, describe, expect, it } from 'vitest';
import { limiterModelOf } from '../../src/emulator/limiter-choice.js';
import { HarnessError } from '../../src/errors.js';
import { start, T0, type Running } from './support/client.js';

const open: Running[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
});

const validate = (r: Running, bearer: string) => r.call('GET', '/tokens/validate', { bearer });
const tokenIn = (json: unknown) => (json as { token?: string }).token ?? '';

describe('limiterModelOf (the serve flags)', () => {
  it('keeps one sustained rate for every kind: the window limit is rate × window', () => {
    const base = { rps: 50, burst: 10, windowS: 2, countsRefused: true };
    expect(limiterModelOf({ ...base, kind: 'bucket' })).toEqual({ kind: 'bucket', rate_rps: 50, burst: 10 });
    expect(limiterModelOf({ ...base, kind: 'fixed' })).toEqual({
      kind: 'fixed-window',
      limit: 100,
      window_s: 2,
      phase_s: 0,
      counts_refused: true,
    });
    expect(limiterModelOf({ ...base, kind: 'sliding' })).toEqual({
      kind: 'sliding-window',
      limit: 100,
      period_s: 2,
      counts_refused: true,
    });
    expect(limiterModelOf({ ...base, kind: 'counter' })).toEqual({
      kind: 'sliding-counter',
      limit: 100,
      window_s: 2,
      phase_s: 0,
      counts_refused: true,
    });
    expect(limiterModelOf({ ...base, kind: 'bucket', fillIntervalS: 0.5 })).toEqual({
      kind: 'bucket',
      rate_rps: 50,
      burst: 10,
      fill_interval_s: 0.5,
    });
    expect(limiterModelOf({ ...base, kind: 'sliding', rps: 0 })).toBeNull();
  });

  it('refuses a window that admits less than one request, as a usage error', () => {
    expect(() => limiterModelOf({ kind: 'fixed', rps: 1, burst: 0, windowS: 0.2, countsRefused: false })).toThrow(
      HarnessError,
    );
  });
});

describe('emulator limiter kinds and clients', () => {
  it('a fixed window resets at its edge on the emulator clock, whatever was refused', async () => {
    const r = await start({
      limiter: { kind: 'fixed-window', limit: 3, window_s: 1, phase_s: 0, counts_refused: true },
    });
    open.push(r);
    // T0 is a quarter past a whole second: the window ends 750 ms later.
    const token = tokenIn((await r.issue()).json);
    const statuses = async (n: number) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await validate(r, token)).status);
      return out;
    };
    // The POST /tokens took one of the three.
    expect(await statuses(3)).toEqual([200, 200, 429]);
    r.clock.set(T0 + 749);
    expect(await statuses(1)).toEqual([429]);
    r.clock.set(T0 + 750);
    expect(await statuses(4)).toEqual([200, 200, 200, 429]);
  });

  it('a sliding window that counts refusals stays shut while a client keeps knocking', async () => {
    const r = await start({ limiter: { kind: 'sliding-window', limit: 2, period_s: 1, counts_refused: true } });
    open.push(r);
    const token = tokenIn((await r.issue()).json); // one of the two, at T0
    expect((await validate(r, token)).status).toBe(200);
    r.clock.set(T0 + 900);
    expect((await validate(r, token)).status).toBe(429); // logged too
    r.clock.set(T0 + 950);
    expect((await validate(r, token)).status).toBe(429);
    r.clock.set(T0 + 1_001);
    // Both slots of T0 are free now, but the two refusals are two requests in the last second.
    expect((await validate(r, token)).status).toBe(429);
    r.clock.set(T0 + 2_002);
    expect((await validate(r, token)).status).toBe(200);
  });

  it('a sliding-window counter (--limiter counter) weighs the last window by what is left of this one', async () => {
    const r = await start({
      limiter: { kind: 'sliding-counter', limit: 4, window_s: 1, phase_s: 0, counts_refused: false },
    });
    open.push(r);
    // T0 is a quarter past a whole second: the token and three validations fill the window.
    const token = tokenIn((await r.issue()).json);
    for (let i = 0; i < 3; i++) expect((await validate(r, token)).status).toBe(200);
    expect((await validate(r, token)).status).toBe(429);
    // 1.5 s past T0 = a quarter into the next window: 4 × 0.75 = 3 counted, room for one.
    r.clock.set(T0 + 1_000);
    expect((await validate(r, token)).status).toBe(200);
    expect((await validate(r, token)).status).toBe(429);
  });

  it('a bucket refilled in batches (--fill-interval) gives nothing back between ticks', async () => {
    const r = await start({ limiter: { kind: 'bucket', rate_rps: 4, burst: 2, fill_interval_s: 0.5 } });
    open.push(r);
    const token = tokenIn((await r.issue()).json);
    expect((await validate(r, token)).status).toBe(200);
    expect((await validate(r, token)).status).toBe(429);
    // T0 + 240 ms is still before the tick at a whole half second: a lazy bucket at 4/s would have a token back.
    r.clock.set(T0 + 240);
    expect((await validate(r, token)).status).toBe(429);
    r.clock.set(T0 + 250);
    expect((await validate(r, token)).status).toBe(200);
    expect((await validate(r, token)).status).toBe(200);
    expect((await validate(r, token)).status).toBe(429);
  });

  it('gives each environment several clients, each with its own credentials and its own limit', async () => {
    const r = await start({ clients: 2, rateLimit: { rps: 1, burst: 2 } });
    open.push(r);
    const [first, second] = r.emu.environments[0]!.clients;
    expect(first).toEqual(r.emu.credentials);
    expect(second!.clientId).not.toBe(first!.clientId);
    const one = tokenIn((await r.issue(0, first)).json);
    const two = tokenIn((await r.issue(0, second)).json);
    expect(two).not.toBe(one);
    expect((await validate(r, one)).status).toBe(200);
    expect((await validate(r, one)).status).toBe(429);
    // The first client is drained; the second still has its own bucket.
    expect((await validate(r, two)).status).toBe(200);
  });
});
