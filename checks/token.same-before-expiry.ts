import { fail, pass, skip, type Check } from '../src/runner/check.js';
import type { IssuedToken } from '../src/http/exchange.js';
import { cameBack } from '../src/runner/expect.js';
import { epochSeconds } from '../src/spec/expires-at.js';
import { positionOf } from '../src/time/expiry-edges.js';

const CALLS = 3;
const SLIDE_VISIBLE_AFTER_MS = 1_100;

export const check: Check = {
  id: 'token.same-before-expiry',
  title: 'Repeated POST /tokens before expiry returns the same token',
  spec: '4.1, 3',
  level: 'must',
  needsAcceptedCredentials: true,
  description: `Calls POST /tokens ${CALLS} times in a row, and once more over a second after the first, and wants the same token value and the same expires_at each time (§4.1 rule 1, §3: the expiry does not slide); a change that only follows an expiry is not held against the service.`,
  async run({ http, session, now, sleep }) {
    const first = await session.firstIssue();
    if (!first.issued) return skip(`no token was issued (POST /tokens answered ${first.status}); see token.issue`);
    let previous: IssuedToken = first.issued;
    const evidence = [http.evidence(first, `token ${previous.fingerprint}, expires_at ${String(previous.expiresAt)}`)];
    for (let i = 0; i < CALLS; i++) {
      const ex = await http.issueToken();
      if (!ex.issued)
        return fail(`call ${i + 2}: ${cameBack(http, ex)}; the same credentials got a token a moment before`, [
          ...evidence,
          http.evidence(ex),
        ]);
      evidence.push(http.evidence(ex, `token ${ex.issued.fingerprint}, expires_at ${String(ex.issued.expiresAt)}`));
      // A new token is held against the service only if this call was certainly before the old one's expiry.
      const previousExpiry = epochSeconds(previous.expiresAt);
      const expired =
        previousExpiry !== undefined && positionOf(ex, previousExpiry, session.allowance()) !== 'certainly-before';
      if (ex.issued.token !== previous.token && !expired) {
        return fail(
          `call ${i + 2} returned token ${ex.issued.fingerprint}, call ${i + 1} had ${previous.fingerprint}, which has not expired; §4.1 wants the same token until it expires`,
          evidence,
        );
      }
      if (ex.issued.token === previous.token && ex.issued.expiresAt !== previous.expiresAt) {
        return fail(
          `the same token came back with expires_at ${String(ex.issued.expiresAt)} instead of ${String(previous.expiresAt)}: its expiry moves with every call, so it never expires while in use (§3)`,
          evidence,
        );
      }
      previous = ex.issued;
    }
    // expires_at has whole-second resolution, so an expiry that slides forward with every call only
    // shows between calls more than a second apart: make the last call at least that late.
    const spacing = SLIDE_VISIBLE_AFTER_MS - (now() - first.receivedAt);
    if (spacing > 0) await sleep(spacing);
    const late = await http.issueToken();
    if (late.issued && late.issued.token === first.issued.token && late.issued.expiresAt !== first.issued.expiresAt) {
      evidence.push(
        http.evidence(late, `token ${late.issued.fingerprint}, expires_at ${String(late.issued.expiresAt)}`),
      );
      return fail(
        `the same token came back ${((late.receivedAt - first.receivedAt) / 1000).toFixed(1)} s later with expires_at ${String(late.issued.expiresAt)} instead of ${String(first.issued.expiresAt)}: its expiry slides with every call, so it never expires while in use (§3)`,
        evidence,
      );
    }
    return pass(
      `${CALLS + 2} calls over ${((late.receivedAt - first.receivedAt) / 1000).toFixed(1)} s, one token and one expires_at`,
      evidence,
    );
  },
};
