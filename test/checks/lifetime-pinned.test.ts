// token.lifetime passes only on a measurement that pins the lifetime near the promise. A rollover
// seen late bounds the next token's issue loosely: in CI 53f, under the heavy phase's load, the
// table's wrong-lifetime row measured 3.6–12.0 s against a 12 s promise and passed "consistent",
// though the fault's 6 s lay inside that span too. Such a span is no evidence either way: the run
// says "not tested", with why. And a token with no rollover known was a pass that had tested only
// "not more than the promise": it is a skip now, saying its lifetime was not measured.

import { describe, expect, it } from 'vitest';
import { check } from '../../checks/token.lifetime.js';
import { check as newAfterExpiry } from '../../checks/token.new-after-expiry.js';
import type { CheckContext } from '../../src/runner/check.js';
import type { ExpiryObservation } from '../../src/runner/token-session.js';

const PROMISED_S = 12;
/** The first token expires at 1000 (epoch seconds), seen 10.9 s before: a remaining life short of the promise. */
const first = {
  status: 200,
  sentAt: 989_050,
  receivedAt: 989_100,
  issued: { token: 'never-shown-1', fingerprint: 'tk_0001', expiresAt: 1_000, tokenType: 'Bearer' },
};

/**
 * A first token with 6 s left: the wrong-lifetime fault's own, or another client's fetched 6 s
 * earlier. Its remaining life pins nothing, so the rollover decides.
 */
const stale = { ...first, sentAt: 994_000, receivedAt: 994_050 };

/** The token after it: asked for at `sentS`, answered at `receivedS`, expiring at `expiresAtS`. */
const next = (sentS: number, receivedS: number, expiresAtS: number) => ({
  status: 200,
  sentAt: sentS * 1000,
  receivedAt: receivedS * 1000,
  issued: { token: 'never-shown-2', fingerprint: 'tk_0002', expiresAt: expiresAtS, tokenType: 'Bearer' },
});

function context(opts: { emulated?: boolean; firstIssue?: typeof first; reissue?: ReturnType<typeof next> }) {
  const firstIssue = opts.firstIssue ?? first;
  const observation = opts.reissue
    ? { kind: 'observed', token: firstIssue.issued, expiresAtS: firstIssue.issued.expiresAt, reissue: opts.reissue }
    : { kind: 'not-waited', reason: 'beyond the wait' };
  return {
    target: { name: 'sandbox', emulated: opts.emulated ?? false },
    expect: { tokenLifetimeS: PROMISED_S },
    http: { evidence: (_ex: unknown, said: string) => said, quoteField: (_f: string, v: unknown) => String(v) },
    ledger: { enabled: true, previousOf: () => undefined, find: () => undefined },
    session: {
      firstIssue: async () => firstIssue,
      // The skew as measured: none, so the tolerance is its floor, 2 × 1 s rounding and 2 s.
      allowance: () => ({ clockSkewS: 2, measured: { minS: 0, maxS: 0 } }),
      expiry: async () => observation as unknown as ExpiryObservation,
    },
  } as unknown as CheckContext;
}

describe('token.lifetime judged at a rollover this run saw', () => {
  it('a rollover seen 6.4 s late, wrong lifetime inside the span (CI 53f): not tested, saying why', async () => {
    const outcome = await check.run(context({ firstIssue: stale, reissue: next(1_005.0, 1_006.4, 1_011) }));
    expect(outcome.status).toBe('skip');
    expect(outcome.untested).toBe(true);
    expect(outcome.message).toBe(
      'not tested: token tk_0002 lives 3.6–12.0 s, too loose a measurement to tell the promised 12 s within ± 4.0 s: ' +
        'this run first saw it 6.4 s after the token before it expired (a busy machine, a slow answer, or another client of these credentials fetched it first), ' +
        'so it may have been issued any time in between; a rollover seen sooner pins it: run it again',
    );
    expect(outcome.facts).toBeUndefined();
  });

  it('the same fault seen promptly fails, as before', async () => {
    const outcome = await check.run(context({ firstIssue: stale, reissue: next(1_001.3, 1_001.35, 1_007) }));
    expect(outcome.status).toBe('fail');
    expect(outcome.message).toMatch(
      /^token tk_0002 lives 4\.6–8\.0 s \(issued after 1000, .*less than the promised 12 s/,
    );
  });

  it('a conformant token seen promptly passes, with its span as facts', async () => {
    const outcome = await check.run(context({ reissue: next(1_001.3, 1_001.35, 1_013) }));
    expect(outcome.status).toBe('pass');
    expect(outcome.message).toMatch(/^token tk_0002: lifetime 10\.6–14\.0 s measured at a rollover/);
    expect(outcome.facts).toEqual({ lifetime_s: 12, lifetime_min_s: 10, lifetime_max_s: 14 });
  });

  it('a conformant token seen late is not tested either: a longer lifetime fits its span too', async () => {
    const outcome = await check.run(context({ firstIssue: stale, reissue: next(1_005.0, 1_006.4, 1_018) }));
    expect(outcome.untested).toBe(true);
    expect(outcome.message).toMatch(/^not tested: token tk_0002 lives 10\.6–19\.0 s, too loose/);
  });

  it("a late rollover after a fresh first token passes on that token's remaining life: a busy machine is no reason to say less", async () => {
    const firstIssue = { ...first, sentAt: 988_000, receivedAt: 988_050 };
    const outcome = await check.run(context({ firstIssue, reissue: next(1_005.0, 1_006.4, 1_018) }));
    expect(outcome.status).toBe('pass');
    expect(outcome.message).toMatch(/^lifetime 1\d\.\d–13\.0 s, consistent with the promised 12 s/);
  });

  it('a next token that lives more than the promise fails', async () => {
    const outcome = await check.run(context({ reissue: next(1_001.3, 1_001.35, 1_020) }));
    expect(outcome.status).toBe('fail');
    expect(outcome.message).toMatch(/lives 17\.6–21\.0 s .*more than the promised 12 s/);
  });
});

describe('token.lifetime with no rollover known', () => {
  it('a remaining life within the tolerance of the promise passes: whoever fetched first, it lives at least that', async () => {
    const outcome = await check.run(context({}));
    expect(outcome.status).toBe('pass');
    expect(outcome.message).toMatch(
      /^lifetime at least 9\.9 s, within ± 4\.0 s of the promised 12 s: token tk_0001 \(first seen by this run\) had 9\.9–12\.0 s left/,
    );
    // Its upper end is no bound on a lifetime another client's earlier fetch may hide: no facts.
    expect(outcome.facts).toBeUndefined();
  });

  it('a shorter one is a skip, not a pass: only "not more than the promise" was tested', async () => {
    const outcome = await check.run(context({ firstIssue: stale }));
    expect(outcome.status).toBe('skip');
    expect(outcome.untested).toBeUndefined();
    expect(outcome.message).toMatch(
      /^lifetime not measured: token tk_0001 \(first seen by this run\) has \d\.\d–7\.0 s left, not more than the promised 12 s \(tested\), .*cannot be told from it\. The token ledger measures it at the next rollover/,
    );
  });
});

describe('token.lifetime on the emulator the run started', () => {
  it('passes on a prompt answer', async () => {
    const firstIssue = { ...first, sentAt: 988_000, receivedAt: 988_050 };
    const outcome = await check.run(context({ emulated: true, firstIssue }));
    expect(outcome.status).toBe('pass');
  });

  it('an answer that took 6 s is too loose to pass: not tested', async () => {
    const firstIssue = { ...first, sentAt: 984_000, receivedAt: 990_000 };
    const outcome = await check.run(context({ emulated: true, firstIssue }));
    expect(outcome.untested).toBe(true);
    expect(outcome.message).toMatch(
      /^not tested: token tk_0001 lives 9\.0–17\.0 s, too loose .*the answer that brought it took 6\.0 s/,
    );
  });
});

describe('token.new-after-expiry at a rollover seen late', () => {
  it('passes on the new token, saying its lifetime was too loose a measurement to pin', async () => {
    const outcome = await newAfterExpiry.run(context({ firstIssue: stale, reissue: next(1_005.0, 1_006.4, 1_011) }));
    expect(outcome.status).toBe('pass');
    expect(outcome.message).toBe(
      'new token tk_0002, lifetime 3.6–12.0 s, too loose a measurement to pin the promised 12 s within ± 4.0 s (token.lifetime judges it)',
    );
  });

  it('says nothing more when seen promptly', async () => {
    const outcome = await newAfterExpiry.run(context({ reissue: next(1_001.3, 1_001.35, 1_013) }));
    expect(outcome.message).toBe('new token tk_0002, lifetime 10.6–14.0 s');
  });
});
