// Adaptive throttling (the SRE book): the rejection probability max(0, (requests − K·accepts) /
// (requests + 1)) is computed from the requests and accepts before the attempt. A client with no
// history therefore always sends; counting the attempt first made it refuse itself half the time,
// and with no accept to offset that it went on refusing itself: a lone instance behind a window
// limiter sent nothing in a whole k6 run, and the proof counted 0 against 0 as agreement.

import { describe, expect, it } from 'vitest';
import { ClientInstance } from '../../../src/ratelimit/fleet/instance.js';

const adaptive = () =>
  new ClientInstance(
    {
      policy: { name: 'adaptive', base_ms: 50, cap_ms: 2_000, max_retries: 6, honour_retry_after: false },
      rate_rps: 10,
      backlog: 0,
      phase_ms: 0,
      arrivals_until_ms: 10_000,
    },
    // The draw that rejects whenever the probability is above zero.
    () => 0,
  );

describe('adaptive throttling', () => {
  it('sends the first request of a client with no history, whatever the draw', () => {
    const instance = adaptive();
    expect(instance.startAttempt(0)).toBe(true);
    expect(instance.tally).toMatchObject({ sent: 1, throttled: 0 });
  });

  it('throttles only once requests outrun K × accepts', () => {
    const instance = adaptive();
    // Accepted calls keep the probability at zero.
    for (let t = 0; t < 5; t++) {
      expect(instance.startAttempt(t * 100)).toBe(true);
      instance.answer(t * 100 + 1, { ok: true });
    }
    expect(instance.tally.throttled).toBe(0);
  });
});
