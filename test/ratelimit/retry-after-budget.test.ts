// The `ratelimit` probe's Retry-After phase under rate_limit.max_retry_after_s, the same rule as
// check's recovery (src/http/retry-after.ts beyondWaitBudget): a Retry-After of 61 s (a per-minute
// window) is waited out and judged when the bound allows it, and is "not tested" past it, never
// judged untruthful. The probe is a stand-in whose clock records the wait instead of sleeping it.

import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/http/exchange.js';
import type { Probe } from '../../src/ratelimit/probe/probe.js';
import { retryAfterPhase } from '../../src/ratelimit/probe/retry-after.js';
import type { Sample } from '../../src/ratelimit/types.js';

/** The probe's clock when the phase runs: the refusal arrived a second earlier, on the same clock. */
const NOW_MS = Date.UTC(2026, 10, 26, 12, 0, 0);

function standIn(maxRetryAfterS: number) {
  const slept: number[] = [];
  const sent: string[] = [];
  const refusal = { status: 429, headers: { 'retry-after': '61' }, receivedAt: NOW_MS - 1_000 } as unknown as Exchange;
  const probe = {
    refusals: {
      lastRetryAfter: { exchange: refusal, seconds: 61 },
      retryAfterMax: 61,
      last: refusal,
      statuses: new Map([[429, 1]]),
      withoutRetryAfter: 0,
    },
    maxRetryAfterS,
    maxDurationMs: 300_000,
    signal: undefined,
    outOfBudget: () => false,
    elapsed: () => 1_000,
    progress: () => {},
    clock: { now: () => NOW_MS, sleep: async (ms: number) => void slept.push(ms) },
    send: async (phase: string): Promise<Sample> => (
      sent.push(phase),
      { sentMs: 62_000, doneMs: 62_005, status: 200, answer: 'accepted', phase: 'retry-after', client: 'primary' }
    ),
  } as unknown as Probe;
  return { probe, slept, sent };
}

describe('the ratelimit probe and a Retry-After of 61 s', () => {
  it.each([
    { bound: 120, verdict: 'truthful', retried: ['retry-after'], note: undefined },
    {
      bound: 60,
      verdict: 'unknown',
      retried: [],
      note: /^not tested: Retry-After 61 s exceeds the wait budget \(60 s\); raise rate_limit\.max_retry_after_s/,
    },
  ])('bound $bound s → $verdict', async ({ bound, verdict, retried, note }) => {
    const { probe, slept, sent } = standIn(bound);
    const found = await retryAfterPhase(probe, null);
    expect(found.verdict).toBe(verdict);
    expect(sent).toEqual(retried);
    if (note) expect(found.notes[0]).toMatch(note);
    // Waited what the header said, less the second since the refusal, or not at all.
    if (retried.length) expect(slept).toEqual([60_000]);
    else expect(slept).toEqual([]);
  });
});
