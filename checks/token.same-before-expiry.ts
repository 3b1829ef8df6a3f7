import { fail, pass, skip, type Check } from '../src/runner/check.js';
import type { IssuedToken, TokenExchange } from '../src/http/exchange.js';
import { cameBack } from '../src/runner/expect.js';
import { epochSeconds } from '../src/spec/expires-at.js';
import { positionOf } from '../src/time/expiry-edges.js';

const CALLS = 3;
// expires_at has whole-second resolution, so an expiry that slides forward with every call only
// shows between calls more than a second apart.
const SLIDE_VISIBLE_AFTER_MS = 1_100;

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
  async run({ http, session }) {
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
    // The token these calls got may be the run's first or one handed out after it expired (an
    // expiry waited in-process): either way, the run's earliest answer that carried it is the start.
    const since = late?.issued ? session.firstSighting(late.issued.token) : undefined;
    const spanMs = since && late ? late.sentAt - since.receivedAt : 0;
    if (since?.issued && late?.issued && since.issued.expiresAt !== late.issued.expiresAt) {
      evidence.push(
        http.evidence(since, `token ${since.issued.fingerprint}, expires_at ${String(since.issued.expiresAt)}`),
      );
      return fail(
        `the same token came back ${seconds(spanMs)} later with expires_at ${String(late.issued.expiresAt)} instead of ${String(since.issued.expiresAt)}: its expiry slides with every call, so it never expires while in use (§3)`,
        evidence,
      );
    }
    if (!since)
      return pass(
        `${CALLS + 1} calls: a new token only after the first had expired, then one token and one expires_at`,
        evidence,
      );
    const over = `${CALLS + 1} calls over ${seconds(spanMs)}, one token and one expires_at`;
    if (spanMs >= SLIDE_VISIBLE_AFTER_MS) return pass(over, evidence);
    // The run was shorter than expires_at's resolution: the same token is proven, a slide is not
    // ruled out. Said so instead of waiting for it: the longer runs and the ledger see it.
    return pass(
      `${over}; an expires_at that slides by whole seconds needs calls over a second apart, so it is not ruled out by this run (a run with the rate-limit checks spans that, and against a real target token.ledger compares across runs)`,
      evidence,
    );
  },
};

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
