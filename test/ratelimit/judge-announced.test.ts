// Issue 35 items 2 and 8: every announced limit is a candidate of the judge, replayed over the
// probe's whole trace beside the set it measured. One the trace contradicts disagrees, with the
// count; one that explains refusals the set cannot is verified; one the trace never reached stays
// "announced, not proven". Traces here are made by the limiters the emulator enforces, so what the
// service answered is known exactly.

import { describe, expect, it } from 'vitest';
import { judgeAnnounced } from '../../src/ratelimit/judge-announced.js';
import type { TraceRequest } from '../../src/ratelimit/judge.js';
import { createLimiter, type FixedWindowModel, type Limits } from '../../src/ratelimit/limiters/index.js';

const window = (limit: number, window_s: number, phase_s = 0): FixedWindowModel => ({
  kind: 'fixed-window',
  limit,
  window_s,
  phase_s,
  counts_refused: false,
});

/** A client paced at `rps` for `seconds`, each answer 5 ms after its request, through `truth`. */
function paced(truth: Limits, rps: number, seconds: number): TraceRequest[] {
  const limiter = createLimiter(truth);
  return Array.from({ length: Math.floor(rps * seconds) }, (_, i) => {
    const sentMs = (i * 1000) / rps;
    return { sentMs, doneMs: sentMs + 5, admitted: limiter.take(sentMs).ok };
  });
}

const second = window(30, 1);
const minute = { limit: 600, window_s: 60, source_header: 'RateLimit-Policy' };

describe('judgeAnnounced: an announced limit replayed beside the set measured', () => {
  it('contradicted when the service let more through in one of its windows than announced, with the count', () => {
    // Only the second is enforced: 20 req/s pass for 70 s, at least 700 in one minute wherever its edges fall.
    const v = judgeAnnounced([second], minute, paced([second], 20, 70));
    expect(v.outcome).toBe('contradicted');
    expect(v.most).toBe(700);
    expect(v.evidence).toMatch(/let 700 through within one 60 s window, more than the 600 announced$/);
  });

  it('verified when, beside the set, it explains the refusals the set alone cannot, at the phase enforced', () => {
    const truth: Limits = [second, window(600, 60, 13)];
    const v = judgeAnnounced([second], minute, paced(truth, 24, 70));
    expect(v.outcome).toBe('verified');
    expect(v.most).toBe(600);
    // Its edges placed where they are, within the phases tried (a second apart).
    expect(Math.abs(v.model.phase_s - 13)).toBeLessThanOrEqual(1);
  });

  it('untested when the trace never reached its quota: nothing contradicts it, nothing proves it', () => {
    const truth: Limits = [second, window(600, 60, 13)];
    const v = judgeAnnounced([second], minute, paced(truth, 24, 10));
    expect(v.outcome).toBe('untested');
    expect(v.most).toBe(240);
    expect(v.evidence).toMatch(/at most 240 through within one of its windows, short of its quota/);
  });

  it('an hour announced beside a verified minute, with a quota the probe could not reach: untested', () => {
    const truth: Limits = [second, window(600, 60, 13), window(20000, 3600, 100)];
    const hour = { limit: 20000, window_s: 3600, source_header: 'RateLimit-Policy' };
    const v = judgeAnnounced([second, window(600, 60, 13)], hour, paced(truth, 24, 130));
    expect(v.outcome).toBe('untested');
  });
  it('never contradicted when the service counts the quota as a bucket refilled over the window', () => {
    // 600 per 60 s as a bucket: 600 at once, then 10 a second; more than 600 pass within a minute.
    const truth: Limits = [second, { kind: 'bucket', rate_rps: 10, burst: 600 }];
    const v = judgeAnnounced([second], minute, paced(truth, 24, 70));
    expect(v.most).toBeGreaterThan(600);
    expect(v.outcome).not.toBe('contradicted');
  });
});
