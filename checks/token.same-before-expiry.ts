import { fail, pass, skip, type Check } from '../src/runner/check.js';
import type { IssuedToken, TokenExchange } from '../src/http/exchange.js';
import { cameBack } from '../src/runner/expect.js';
import { epochSeconds } from '../src/spec/expires-at.js';
import { positionOf } from '../src/time/expiry-edges.js';

const CALLS = 3;
// expires_at has whole-second resolution, so an expiry that slides forward with every call only
// shows between calls on either side of the instant its rounding turns to the next second. Where
// in the second that is, the service alone knows: a change of its Date header's second is not it
// (rounding to the nearest second turns at the half, as test/checks/same-before-expiry.test.ts
// shows; an expiry counted on another host than the one stamping Date turns wherever that clock
// does). Only calls more than a second apart are across it whatever its phase; a tenth more,
// because a service's "now" may be a cached value its timer renews a moment late (Node's Date is).
export const SLIDE_VISIBLE_AFTER_MS = 1_100;

export const check: Check = {
  id: 'token.same-before-expiry',
  title: 'Repeated POST /tokens before expiry returns the same token',
  spec: '4.1, 3',
  level: 'must',
  needsAcceptedCredentials: true,
  // After every other check: the run's first token and these calls are then as far apart as the
  // run is long, which is what shows an expiry that slides, without a wait of its own.
  phase: 'closing',
  description: `Compares the run's first token with ${CALLS} calls to POST /tokens made in a row after every other check, and wants the same token value and the same expires_at each time (§4.1 rule 1, §3: the expiry does not slide, which shows when the run spans over a second); a change that only follows an expiry is not held against the service.`,
  async run({ http, session, now, sleep }) {
    const first = await session.firstIssue();
    if (!first.issued) return skip(`no token was issued (POST /tokens answered ${first.status}); see token.issue`);
    let previous: IssuedToken = first.issued;
    const evidence = [http.evidence(first, `token ${previous.fingerprint}, expires_at ${String(previous.expiresAt)}`)];
    let late: TokenExchange | undefined;
    for (let i = 0; i < CALLS; i++) {
      const ex = await http.issueToken();
      if (!ex.issued)
        return fail(`call ${i + 2}: ${cameBack(http, ex)}; the same credentials got a token earlier in this run`, [
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
      // Against the run's earlier answers (a second or more before) after the loop, with their span.
      if (i > 0 && ex.issued.token === previous.token && ex.issued.expiresAt !== previous.expiresAt) {
        return fail(
          `the same token came back with expires_at ${String(ex.issued.expiresAt)} instead of ${String(previous.expiresAt)}: its expiry moves with every call, so it never expires while in use (§3)`,
          evidence,
        );
      }
      late ??= ex;
      previous = ex.issued;
    }
    // Every token the run was handed, from the first answer that carried it to the last; the one
    // these calls got ends at them. It may be the run's first or a successor after an expiry waited
    // in-process: each is judged over its own span, and the longest span says what was ruled out.
    const pairs = session
      .tokenSightings()
      .map((s) => (late?.issued && s.first.issued.token === late.issued.token ? { ...s, last: late } : s));
    const span = (p: { first: TokenExchange; last: TokenExchange }) => p.last.sentAt - p.first.receivedAt;
    const slid = pairs.find((p) => p.first.issued.expiresAt !== p.last.issued?.expiresAt);
    if (slid?.last.issued) {
      evidence.push(
        http.evidence(
          slid.first,
          `token ${slid.first.issued.fingerprint}, expires_at ${String(slid.first.issued.expiresAt)}`,
        ),
      );
      return fail(
        `the same token came back ${seconds(span(slid))} later with expires_at ${String(slid.last.issued.expiresAt)} instead of ${String(slid.first.issued.expiresAt)}: its expiry slides with every call, so it never expires while in use (§3)`,
        evidence,
      );
    }
    const closing = pairs.find((p) => p.last === late);
    const longest = [...pairs].sort((a, b) => span(b) - span(a))[0];
    const calls = closing
      ? `${CALLS + 1} calls over ${seconds(span(closing))}, one token and one expires_at`
      : `${CALLS + 1} calls: a new token only after the first had expired, then one token and one expires_at`;
    if (longest && span(longest) >= SLIDE_VISIBLE_AFTER_MS)
      return pass(
        longest === closing
          ? calls
          : `${calls}; ${longest.first.issued.fingerprint} kept its expires_at over ${seconds(span(longest))} of the run`,
        evidence,
      );
    // No token was seen over more than expires_at's resolution (a short run: `check --skip
    // 'ratelimit.*'`): wait what is missing of that span, then ask once more, so a sliding expiry is
    // caught by every run, not only the long ones. A full run pays nothing here.
    const from = closing ?? longest;
    if (!from) return pass(calls, evidence);
    // Until the span's end counted from the first answer, not from the calls above: the time they
    // took is part of the span already.
    await sleep(Math.max(0, from.first.receivedAt + SLIDE_VISIBLE_AFTER_MS - now()));
    const again = await http.issueToken();
    evidence.push(
      http.evidence(
        again,
        again.issued ? `token ${again.issued.fingerprint}, expires_at ${String(again.issued.expiresAt)}` : undefined,
      ),
    );
    if (
      again.issued &&
      again.issued.token === from.first.issued.token &&
      again.issued.expiresAt !== from.first.issued.expiresAt
    )
      return fail(
        `the same token came back ${seconds(again.sentAt - from.first.receivedAt)} later with expires_at ${String(again.issued.expiresAt)} instead of ${String(from.first.issued.expiresAt)}: its expiry slides with every call, so it never expires while in use (§3)`,
        evidence,
      );
    return pass(
      `${calls}; one more ${seconds(again.sentAt - from.first.receivedAt)} after the first kept them`,
      evidence,
    );
  },
};

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
