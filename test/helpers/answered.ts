// One probe sample as the tests build them from a limiter's verdict: 200 when it let the request
// through, 429 when it refused it, from the primary client.

import type { PhaseName, Sample } from '../../src/ratelimit/types.js';

/** A request sent at `sentMs` and answered at `doneMs`, let through (`ok`) or refused. */
export const answered = (sentMs: number, doneMs: number, ok: boolean, phase: PhaseName = 'drain'): Sample => ({
  sentMs,
  doneMs,
  status: ok ? 200 : 429,
  answer: ok ? 'accepted' : 'limited',
  phase,
  client: 'primary',
});
