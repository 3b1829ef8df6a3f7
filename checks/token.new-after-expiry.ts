import { fail, pass, skip, type Check } from '../src/runner/check.js';
import { cameBack } from '../src/runner/expect.js';
import { epochSeconds } from '../src/spec/expires-at.js';
import {
  describeAllowance,
  describeSpan,
  lifetimeSpan,
  lifetimeTolerance,
  pinsLifetime,
  rolloverSpan,
  verdictOf,
} from '../src/time/expiry-edges.js';

export const check: Check = {
  id: 'token.new-after-expiry',
  title: 'After expiry POST /tokens returns a new token with a full lifetime',
  spec: '3, 5.4',
  level: 'must',
  needsAcceptedCredentials: true,
  description:
    'When the token expires within `--expiry-wait`: once the token has expired, POST /tokens returns a different token whose `expires_at` is the promised lifetime away (§3: expired → valid, a new token).',
  async run({ http, session, expect, target }) {
    const obs = await session.expiry();
    if (obs.kind !== 'observed') return skip(obs.reason);
    const ex = obs.reissue;
    if (!ex.issued)
      return fail(`${cameBack(http, ex)} after the old token expired; §3 wants a new token`, [http.evidence(ex)]);
    const evidence = [http.evidence(ex, `old ${obs.token.fingerprint}, new ${ex.issued.fingerprint}`)];
    if (ex.issued.token === obs.token.token) {
      return fail(
        `POST /tokens returned the expired token ${obs.token.fingerprint} again; §3 wants a new token after expiry`,
        evidence,
      );
    }
    const expiresAt = epochSeconds(ex.issued.expiresAt);
    const lifetime = expect.tokenLifetimeS;
    if (expiresAt === undefined) {
      return fail(
        `the new token ${ex.issued.fingerprint} has expires_at ${http.quoteField('expires_at', ex.issued.expiresAt)}, not an epoch time; a fresh token should live ${lifetime} s (§5.4)`,
        evidence,
      );
    }
    const allowance = session.allowance();
    // Another client of shared credentials may have fetched the new token first, any time after
    // the old one expired: only on the built-in emulator is this run's request its issue.
    const span = target.emulated
      ? lifetimeSpan(ex, expiresAt, allowance)
      : rolloverSpan(ex, expiresAt, obs.expiresAtS, allowance);
    if (verdictOf(span, lifetime) !== 'consistent') {
      return fail(
        `the new token ${ex.issued.fingerprint} lives ${describeSpan(span)}; a fresh token should live ${lifetime} s (§5.4), and ${describeAllowance(allowance)} cannot explain the difference`,
        evidence,
      );
    }
    // The new token is what this check proves; a span too wide to pin its lifetime says so rather
    // than read as a full lifetime (token.lifetime holds that measurement "not tested").
    const pinned = pinsLifetime(span, lifetime, allowance)
      ? ''
      : `, too loose a measurement to pin the promised ${lifetime} s within ± ${lifetimeTolerance(lifetime, allowance).toFixed(1)} s (token.lifetime judges it)`;
    return pass(`new token ${ex.issued.fingerprint}, lifetime ${describeSpan(span)}${pinned}`, evidence);
  },
};
