import { fail, pass, skip, type Check } from '../src/runner/check.js';
import { positionOf } from '../src/time/expiry-edges.js';

// A window that any correct epoch-seconds expiry falls in: after now (minus the tolerance) and
// within ten years. Milliseconds are a thousand times larger and land far outside it.
const TEN_YEARS_S = 10 * 365 * 86_400;

export const check: Check = {
  id: 'token.expires-at-epoch-seconds',
  title: 'expires_at is an integer epoch time in seconds',
  spec: '2, 5.4',
  level: 'must',
  needsAcceptedCredentials: true,
  description:
    '`expires_at` is a JSON integer counting seconds since the epoch (not milliseconds, not a string), and lies in the future.',
  async run({ http, session, now }) {
    const ex = await session.firstIssue();
    if (!ex.issued) return skip(`no token was issued (POST /tokens answered ${ex.status}); see token.issue`);
    const value = ex.issued.expiresAt;
    const evidence = [http.evidence(ex, `expires_at ${http.quoteField('expires_at', value)}`)];
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      return fail(
        `expires_at is ${http.quoteField('expires_at', value)} (${typeof value}); §2 wants an integer epoch time in seconds`,
        evidence,
      );
    }
    const nowS = now() / 1000;
    if (value > nowS + TEN_YEARS_S) {
      const looksMs = value / 1000 > nowS - 86_400 && value / 1000 < nowS + TEN_YEARS_S;
      return fail(
        `expires_at ${value} is ${looksMs ? 'in milliseconds' : 'more than ten years away'}; §2 and §5.4 want epoch seconds (about ${Math.round(nowS)} + lifetime)`,
        evidence,
      );
    }
    // Already past when it was handed out, beyond what rounding, skew and the request's window explain.
    if (positionOf(ex, value, session.allowance()) === 'certainly-after') {
      return fail(
        `expires_at ${value} is ${Math.round(nowS - value)} s in the past for a token just issued; §3 wants a token that is valid until expires_at`,
        evidence,
      );
    }
    return pass(`expires_at ${value} = ${new Date(value * 1000).toISOString()}`, evidence);
  },
};
