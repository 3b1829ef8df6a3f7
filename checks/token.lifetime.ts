import { fail, pass, skip, type Check } from '../src/runner/check.js';
import { edgeAllowance } from '../src/runner/expect.js';
import { epochSeconds } from '../src/spec/expires-at.js';
import { describeAllowance, describeSpan, judgeLifetime } from '../src/time/expiry-edges.js';

export const check: Check = {
  id: 'token.lifetime',
  title: 'expires_at matches the promised token lifetime',
  spec: '5.4, 8',
  level: 'must',
  needsAcceptedCredentials: true,
  description:
    "A newly issued token expires `--token-lifetime` seconds (24 h by §5.4) after it is issued, judged across the request's whole window, expires_at's whole-second rounding and `--clock-tolerance`; a token first captured by an earlier run (token ledger) may have less left, never more.",
  async run({ http, session, expect, ledger, target }) {
    const ex = await session.firstIssue();
    if (!ex.issued) return skip(`no token was issued (POST /tokens answered ${ex.status}); see token.issue`);
    const expiresAt = epochSeconds(ex.issued.expiresAt);
    if (expiresAt === undefined) return skip(`expires_at ${JSON.stringify(ex.issued.expiresAt)} is not an epoch time; see token.expires-at-epoch-seconds`);
    const lifetime = expect.tokenLifetimeS;
    const allowance = edgeAllowance(expect);
    // Judged from the request's window, not from when this check got to look at the token.
    const { verdict, span } = judgeLifetime(ex, expiresAt, lifetime, allowance);
    const fp = ex.issued.fingerprint;
    const evidence = [http.evidence(ex, `token ${fp}: expires_at ${expiresAt}, a lifetime of ${describeSpan(span)}`)];
    const within = `(${describeAllowance(allowance)})`;
    // For the run history: the lifetime this token showed (the middle of its window, whole seconds).
    const facts = { lifetime_s: Math.round((span.minS + span.maxS) / 2) };
    if (verdict === 'longer') {
      return { ...fail(`token ${fp} lives ${describeSpan(span)}, more than the promised ${lifetime} s can explain ${within} (§5.4)`, evidence), facts };
    }
    if (verdict === 'consistent') return { ...pass(`lifetime ${describeSpan(span)}, consistent with the promised ${lifetime} s`, evidence), facts };
    const known = ledger.find(target, ex.issued.token);
    if (known) {
      return pass(`token ${fp} was first captured at ${known.first_seen} by an earlier run; ${span.maxS.toFixed(0)} s or less of its ${lifetime} s are left`, evidence);
    }
    const why =
      `a token never seen before lives ${describeSpan(span)}, less than the promised ${lifetime} s can explain ${within} (§5.4). ` +
      'If another client of these credentials fetched it earlier, run again once it has expired';
    return { ...fail(why, evidence), facts };
  },
};
