// The order the counter fit replays a trace in (counter-candidates.ts traceFrom): a refusal is the
// limiter's own answer, an admission carries the service's time behind it, so of two requests in
// flight together the admission went first. Real HAProxy 50 per 10 s under load: the drain's last
// admission (sent 266 ms, answered 283) was replayed after the refusal sent at 270 (answered 273),
// and no counter explained the trace.

import { describe, expect, it } from 'vitest';
import { traceFrom } from '../../src/ratelimit/probe/counter-candidates.js';
import type { Sample } from '../../src/ratelimit/types.js';

const sample = (sentMs: number, doneMs: number, answer: 'accepted' | 'limited'): Sample => ({
  sentMs,
  doneMs,
  status: answer === 'accepted' ? 200 : 429,
  answer,
  phase: 'drain',
  client: 'primary',
});

describe('traceFrom', () => {
  it('replays an admission in flight beside a refusal before it, no earlier than it was sent', () => {
    const trace = traceFrom(
      [sample(260, 261, 'accepted'), sample(266, 283, 'accepted'), sample(270, 273, 'limited')],
      0,
    );
    expect(trace.map((r) => [r.sentMs, r.admitted])).toEqual([
      [260, true],
      [266, true],
      [270, false],
    ]);
    expect(trace[1]!.atMs).toBeGreaterThanOrEqual(266);
    expect(trace[1]!.atMs).toBeLessThan(trace[2]!.atMs);
  });

  it('leaves an admission sent after the refusal was seen where it was seen', () => {
    const trace = traceFrom([sample(270, 273, 'limited'), sample(275, 290, 'accepted')], 0);
    expect(trace.map((r) => [r.sentMs, r.atMs])).toEqual([
      [270, 271.5],
      [275, 282.5],
    ]);
  });
});
