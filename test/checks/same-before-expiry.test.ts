// token.same-before-expiry waits for nothing: it takes the span a slide needs (expires_at counts
// whole seconds) from the run, between the run's first token and its own calls after every other
// check. On one virtual clock with the emulator, the run's length is whatever the test says.

import { afterEach, describe, expect, it } from 'vitest';
import { check } from '../../checks/token.same-before-expiry.js';
import { createEmulator, type Emulator, type FaultName, type ProfileName } from '../../src/emulator/index.js';
import { virtualClock } from '../../src/time/clock.js';
import { emulatorContext, ONE_CHECK_RATE_LIMIT as RATE_LIMIT } from '../helpers/conformance.js';

// Every emulator a test started, closed after it: a test runs the check at ten phases, each against
// an emulator of its own, and one left open keeps its server and its certificate folder to the end.
const started: Emulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((e) => e.close()));
});

/**
 * The check's outcome after a run that lasted `runMs` since its first token; with `expiredFirst`,
 * the run first outlived that token (4 s) and the session took its successor.
 */
async function afterRunOf(
  runMs: number,
  faults: FaultName[] = [],
  expiredFirst?: 'unseen' | 'seen-again',
  {
    intoSecondMs = 100,
    profiles = [],
    callMs = 0,
  }: { intoSecondMs?: number; profiles?: ProfileName[]; callMs?: number } = {},
) {
  // 100 ms into a second of the service's clock: a 0.3 s run stays within that second (expires_at
  // counts whole seconds), a 2 s one crosses two edges, the same every time.
  const clock = virtualClock(Math.floor(Date.now() / 1000) * 1000 + intoSecondMs);
  const emulator = await createEmulator({
    port: 0,
    tokenTtlS: expiredFirst ? 4 : 3_600,
    faults,
    profiles,
    now: clock.now,
  });
  started.push(emulator);
  const { ctx, close } = emulatorContext(emulator, RATE_LIMIT, clock);
  try {
    await ctx.session.firstIssue();
    if (expiredFirst) {
      // 'seen-again': the session asks once more just before the first token's end (it gets the
      // same token back), then waits it out; 'unseen': it asks only once the token has expired.
      clock.advance(expiredFirst === 'seen-again' ? 3_800 : 6_000);
      await ctx.session.current();
    }
    clock.advance(runMs);
    // Each of the check's own calls takes callMs of the run's time (on the virtual clock, none).
    const issueToken = ctx.http.issueToken.bind(ctx.http);
    ctx.http.issueToken = async (...args) => {
      const ex = await issueToken(...args);
      clock.advance(callMs);
      return ex;
    };
    return await check.run(ctx);
  } finally {
    await close();
  }
}

describe('token.same-before-expiry', () => {
  it('fails a sliding expires_at once the run spans over a second, without waiting itself', async () => {
    const outcome = await afterRunOf(2_000, ['sliding-expiry']);
    expect(`${outcome.status}: ${outcome.message}`).toMatch(/^fail: the same token came back 2\.0 s later/);
  });

  it('fails a token that changes with every call, however short the run', async () => {
    const outcome = await afterRunOf(0, ['token-rotates']);
    expect(`${outcome.status}: ${outcome.message}`).toMatch(/^fail: call 2 returned token/);
  });

  // An expiry waited in-process (run's default against the built-in emulator) hands out a second
  // token: its own first answer starts the span, not the expired one's.
  it.each([
    [[], /^pass: 4 calls over 2\.0 s, one token and one expires_at$/],
    [['sliding-expiry'], /^fail: the same token came back 2\.0 s later/],
  ] as const)(
    'after the first token expired (faults %j), judges its successor from its first answer',
    async (faults, want) => {
      const outcome = await afterRunOf(2_000, [...faults], 'unseen');
      expect(`${outcome.status}: ${outcome.message}`).toMatch(want);
    },
  );

  // A short end of the run on the successor, but the first token was asked for twice 3.8 s apart.
  it.each([
    [
      [],
      /^pass: 4 calls over 0\.3 s, one token and one expires_at; tk_[0-9a-f]{8} kept its expires_at over 3\.8 s of the run$/,
    ],
    // The slid token stays usable, so the calls at the end get it again: 4.1 s after its first answer.
    [['sliding-expiry'], /^fail: the same token came back 4\.1 s later/],
  ] as const)('judges every token the run was handed over its own span (faults %j)', async (faults, want) => {
    const outcome = await afterRunOf(300, [...faults], 'seen-again');
    expect(`${outcome.status}: ${outcome.message}`).toMatch(want);
  });

  it('passes a conformant service over a run longer than a second', async () => {
    const outcome = await afterRunOf(2_000);
    expect(`${outcome.status}: ${outcome.message}`).toBe('pass: 4 calls over 2.0 s, one token and one expires_at');
  });

  // A sliding expiry and a fixed one look alike within a second: the check waits out the rest of the span.
  it('over a run shorter than a second waits out the rest of the span and asks once more: a sliding expiry fails, a steady one passes', async () => {
    const steady = await afterRunOf(300, []);
    expect(steady.status).toBe('pass');
    expect(steady.message).toMatch(
      /^4 calls over 0\.3 s, one token and one expires_at; one more [\d.]+ s after the first kept them$/,
    );
    const sliding = await afterRunOf(300, ['sliding-expiry']);
    expect(sliding.status).toBe('fail');
    expect(sliding.message).toMatch(/its expiry slides with every call/);
  });

  // The calls it makes after the other checks take time of their own, which counts towards the span.
  it('asks once more as soon as the span from the first answer is over, the time of its own calls included', async () => {
    const steady = await afterRunOf(300, [], undefined, { callMs: 100 });
    expect(`${steady.status}: ${steady.message}`).toBe(
      'pass: 4 calls over 0.3 s, one token and one expires_at; one more 1.1 s after the first kept them',
    );
  });

  // The floor under a short `check` (issue 37's 0.8 s goal is below it): whatever the phase of the
  // second at which the service's rounding turns, a run that ends long before a second waits until
  // the span from its first answer is over a second, so a sliding expiry never passes. A span cut
  // under a second misses it at some phase (seen: with 700 ms, a slide rounded down passed at .0 to
  // .2 into the second and one rounded to the nearest at .5 to .7; with 999 ms, at .0 and at .5,
  // which no other case here caught).
  it.each([
    ['rounded down', []],
    ['rounded to the nearest second', ['expires-at-rounded']],
  ] as const)(
    'a sliding expiry %s is caught by a run of 0.1 s whatever the phase of the first token in the second',
    async (_, profiles) => {
      const missed: number[] = [];
      for (let intoSecondMs = 0; intoSecondMs < 1_000; intoSecondMs += 100) {
        const sliding = await afterRunOf(100, ['sliding-expiry'], undefined, { intoSecondMs, profiles: [...profiles] });
        if (sliding.status !== 'fail') missed.push(intoSecondMs);
      }
      expect(missed, 'phases (ms into the second) at which a sliding expiry passed').toEqual([]);
    },
  );

  // Why the span is taken on our clock and not from a change of the service's second (its Date
  // header): expires_at's whole-second edge need not be the Date header's. Here the expiry is
  // rounded to the nearest second, so it turns at the half second: the first token at .6 (Date
  // names second N, expires_at N+1+ttl) and the calls 0.6 s later at 1.2 (Date N+1, expires_at
  // still N+1+ttl) lie across a change of the Date header's second and show no slide. Only the
  // span over a second finds it, which the check waits out.
  it.each([
    ['rounded down, as the Date header', [], 100],
    ['rounded down, as the Date header, the run across a change of second', [], 600],
    ['rounded to the nearest second, the run across a change of the Date header second', ['expires-at-rounded'], 600],
  ] as const)('a sliding expiry %s is caught by a run of 0.6 s', async (_, profiles, intoSecondMs) => {
    const sliding = await afterRunOf(600, ['sliding-expiry'], undefined, { intoSecondMs, profiles: [...profiles] });
    expect(`${sliding.status}: ${sliding.message}`).toMatch(/^fail: .*its expiry slides with every call/);
    const steady = await afterRunOf(600, [], undefined, { intoSecondMs, profiles: [...profiles] });
    expect(steady.status).toBe('pass');
  });
});
