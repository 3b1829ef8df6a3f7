import { fail, pass, skip, type Check } from '../src/runner/check.js';
import { epochSeconds } from '../src/runner/token-session.js';

export const check: Check = {
  id: 'token.lifetime',
  title: 'expires_at matches the promised token lifetime',
  spec: '5.4, 8',
  level: 'must',
  description: 'A newly issued token expires `--token-lifetime` seconds (24 h by §5.4) after it is issued, within `--clock-tolerance`; a token first captured by an earlier run (token ledger) may have less left, never more.',
  async run({ http, session, expect, ledger, target }) {
    const ex = await session.firstIssue();
    if (!ex.issued) return skip(`no token was issued (POST /tokens answered ${ex.status}); see token.issue`);
    const expiresAt = epochSeconds(ex.issued.expiresAt);
    if (expiresAt === undefined) return skip(`expires_at ${JSON.stringify(ex.issued.expiresAt)} is not an epoch time; see token.expires-at-epoch-seconds`);
    // Measured from when the token arrived, not from when this check got to look at it.
    const remaining = expiresAt - ex.receivedAt / 1000;
    const lifetime = expect.tokenLifetimeS;
    const tolerance = expect.clockToleranceS;
    const evidence = [http.evidence(ex, `token ${ex.issued.fingerprint}: expires_at ${remaining.toFixed(1)} s after it arrived`)];
    if (remaining > lifetime + tolerance) {
      return fail(`token ${ex.issued.fingerprint} expires ${remaining.toFixed(0)} s after issue, more than the promised lifetime of ${lifetime} s (§5.4)`, evidence);
    }
    if (remaining >= lifetime - tolerance) return pass(`expires ${remaining.toFixed(1)} s after issue; promised ${lifetime} s ± ${tolerance} s`, evidence);
    const known = ledger.find(target, ex.issued.token);
    if (known) {
      return pass(`token ${ex.issued.fingerprint} was first captured at ${known.first_seen} by an earlier run; ${remaining.toFixed(0)} s of its ${lifetime} s are left`, evidence);
    }
    return fail(
      `a token never seen before expires ${remaining.toFixed(0)} s after issue; §5.4 promises ${lifetime} s (± ${tolerance} s). ` +
        'If another client of these credentials fetched it earlier, run again once it has expired',
      evidence,
    );
  },
};
