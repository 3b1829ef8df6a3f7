// The emulator's queueing limiter (`serve --limiter queue`, nginx's limit_req without nodelay): the
// serve flags make its model, and a request beyond the rate is answered once its turn came, not
// refused, until the queue is full.

import { afterEach, describe, expect, it } from 'vitest';
import { limiterModelOf } from '../../src/emulator/limiter-choice.js';
import { HarnessError } from '../../src/errors.js';
import { start, type Running } from './support/client.js';

const open: Running[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
});

describe('serve --limiter queue', () => {
  it('is nginx limit_req with burst and delay=', () => {
    const base = { rps: 10, burst: 5, windowS: 1, countsRefused: false };
    expect(limiterModelOf({ ...base, kind: 'queue' })).toEqual({ kind: 'queue', rate_rps: 10, burst: 5, delay: 0 });
    expect(limiterModelOf({ ...base, kind: 'queue', queueDelay: 2 })).toEqual({
      kind: 'queue',
      rate_rps: 10,
      burst: 5,
      delay: 2,
    });
    expect(() => limiterModelOf({ ...base, kind: 'queue', queueDelay: 6 })).toThrow(HarnessError);
  });

  it('answers the excess once its turn came and refuses beyond the queue at once', async () => {
    // The emulator's clock stands still: nothing drains, so the queue's places are exactly these.
    const order: number[] = [];
    const r = await start({
      limiter: { kind: 'queue', rate_rps: 2, burst: 3, delay: 0 },
      observe: ({ req, reply }) => void (req.path === '/tokens/validate' && order.push(reply.status)),
    });
    open.push(r);
    const token = ((await r.issue()).json as { token: string }).token;
    const validate = () => r.call('GET', '/tokens/validate', { bearer: token });
    // The token took the first place (no wait); these three wait 0.5, 1 and 1.5 s; the fourth finds it full.
    const answers = await Promise.all([validate(), validate(), validate(), validate()]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 429]);
    // Refused at once, while the three admitted before it still wait their turn (without the wait,
    // each is answered as it is decided, the refusal last).
    expect(order).toEqual([429, 200, 200, 200]);
  });
});
