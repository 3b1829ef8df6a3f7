import { fail, pass, skip, type Check } from '../src/runner/check.js';
import { cameBack } from '../src/runner/expect.js';

export const check: Check = {
  id: 'token.new-after-expiry',
  title: 'After expiry POST /tokens returns a new token with a full lifetime',
  spec: '3, 5.4',
  level: 'must',
  description: 'When the lifetime fits `--expiry-wait`: once the token has expired, POST /tokens returns a different token whose `expires_at` is the promised lifetime away (§3: expired → valid, a new token).',
  async run({ http, session, expect }) {
    const obs = await session.expiry();
    if (obs.kind !== 'observed') return skip(obs.reason);
    const ex = obs.reissue;
    if (!ex.issued) return fail(`${cameBack(http, ex)} after the old token expired; §3 wants a new token`, [http.evidence(ex)]);
    const evidence = [http.evidence(ex, `old ${obs.token.fingerprint}, new ${ex.issued.fingerprint}`)];
    if (ex.issued.token === obs.token.token) {
      return fail(`POST /tokens returned the expired token ${obs.token.fingerprint} again; §3 wants a new token after expiry`, evidence);
    }
    const remaining = obs.reissueRemainingS;
    const { tokenLifetimeS: lifetime, clockToleranceS: tolerance } = expect;
    if (remaining === undefined || Math.abs(remaining - lifetime) > tolerance) {
      return fail(
        `the new token ${ex.issued.fingerprint} expires in ${remaining === undefined ? 'an unreadable time' : `${remaining.toFixed(1)} s`}; a fresh token should live ${lifetime} s ± ${tolerance} s (§5.4)`,
        evidence,
      );
    }
    return pass(`new token ${ex.issued.fingerprint}, lifetime ${remaining.toFixed(1)} s`, evidence);
  },
};
