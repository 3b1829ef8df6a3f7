// The ratelimit-headers profile announces the client's quota on every answer, read off the
// limiter's real state (remaining counts down, the reset is the window's end, a refusal says 0);
// the overstated variant announces more than is enforced, as a misconfigured gateway does.

import { afterEach, describe, expect, it } from 'vitest';
import { overstatedRateLimitHeaders } from '../../src/emulator/index.js';
import { readAdvertisement } from '../../src/spec/ratelimit-fields.js';
import { start, T0, type Running } from './support/client.js';

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

// T0 is 250 ms past a whole minute: the window ends 59.75 s on.
const limiter = { kind: 'fixed-window', limit: 3, window_s: 60, phase_s: 0, counts_refused: false } as const;

async function announced(s: Running) {
  const a = await s.call('POST', '/tokens/health_check');
  return { status: a.status, ad: readAdvertisement(a.headers, s.clock.now()) };
}

describe('profile ratelimit-headers', () => {
  it('announces the quota as the limiter holds it: remaining counts down, a refusal says 0, the reset is the window edge', async () => {
    const s = (running = await start({ profiles: ['ratelimit-headers'], limiter }));
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push(await announced(s));
    expect(seen.map((x) => [x.status, x.ad?.remaining])).toEqual([
      [200, 2],
      [200, 1],
      [200, 0],
      [429, 0],
    ]);
    expect(seen[0]!.ad).toMatchObject({ limit: 3, windowS: 60, resetS: 60, source: 'RateLimit-Policy' });
    s.clock.set(T0 + 59_750);
    expect(await announced(s)).toMatchObject({ status: 200, ad: { remaining: 2, resetS: 60 } });
  });

  it('announces nothing without the profile', async () => {
    const s = (running = await start({ limiter }));
    expect((await announced(s)).ad).toBeUndefined();
  });

  it('overstated: announces 100 per minute in front of 3, the requests used and the reset real', async () => {
    const s = (running = await start({ limiter, overrides: [overstatedRateLimitHeaders(100, 60)] }));
    expect((await announced(s)).ad).toMatchObject({ limit: 100, windowS: 60, remaining: 99 });
  });
});
