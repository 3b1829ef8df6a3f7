import { fail, pass, skip, type Check } from '../src/runner/check.js';
import type { Evidence } from '../src/report/model.js';
import { fingerprint } from '../src/http/redact.js';
import { cameBack, unauthorizedProblem, WANTS_401 } from '../src/runner/expect.js';
import { epochSeconds } from '../src/spec/expires-at.js';
import {
  acceptanceIsLate,
  certainlyExpiredFromMs,
  certainlyValidUntilMs,
  positionOf,
  refusalIsEarly,
} from '../src/time/expiry-edges.js';
import { isJsonObject } from '../src/spec/json-object.js';

// Bounded so a ledger that grew over months never turns a run into a flood of requests.
const MAX_PER_KIND = 5;
// A token asked about as "still valid" has at least this long left before its certain edge.
const LIVE_MARGIN_MS = 1_000;

export const check: Check = {
  id: 'token.ledger',
  title: 'Tokens captured by earlier runs expire exactly at their expires_at',
  spec: '3, 5.4',
  level: 'must',
  needsAcceptedCredentials: true,
  description:
    'Uses the token ledger (tokens captured by earlier runs, kept in a 0600 file): each token past its `expires_at` must get 401 from /tokens/validate; each token still before it must be valid and be what POST /tokens returns now. This proves the 24-hour expiry on a real service across scheduled runs.',
  async run({ http, session, ledger, target, now }) {
    if (!ledger.enabled)
      return skip(
        'the token ledger is off for this target (the built-in emulator starts anew each run, so earlier tokens cannot exist)',
      );
    const entries = ledger.entriesFor(target);
    const nowMs = now();
    const nowS = nowMs / 1000;
    const allowance = session.allowance();
    // Only tokens on the certain side of their edge (src/time/expiry-edges.ts) are asked about,
    // and each answer is judged again against its own request's window.
    const expired = entries
      .filter((e) => certainlyExpiredFromMs(e.expires_at, allowance) <= nowMs && !e.proven_expired)
      .slice(-MAX_PER_KIND);
    const live = entries
      .filter((e) => certainlyValidUntilMs(e.expires_at, allowance) > nowMs + LIVE_MARGIN_MS)
      .slice(-MAX_PER_KIND);
    if (expired.length === 0 && live.length === 0) {
      const next = entries.find((e) => certainlyExpiredFromMs(e.expires_at, allowance) > nowMs);
      return skip(
        `no token captured by an earlier run is due yet (ledger ${ledger.path} holds ${entries.length} for this target${next ? `; the next expires at ${new Date(next.expires_at * 1000).toISOString()}` : ''}); this run's token is recorded for the next run`,
      );
    }
    const evidence: Evidence[] = [];
    const problems: string[] = [];
    for (const entry of expired) {
      const ex = await session.validate(entry.token);
      const fp = fingerprint(entry.token);
      evidence.push(http.evidence(ex, `${fp} expired at ${new Date(entry.expires_at * 1000).toISOString()}`));
      if (unauthorizedProblem(ex) && acceptanceIsLate(ex, entry.expires_at, allowance))
        problems.push(
          `${fp}, expired ${Math.round(nowS - entry.expires_at)} s ago: ${cameBack(http, ex)}; ${WANTS_401}`,
        );
      else ledger.markProvenExpired(entry);
    }
    if (live.length > 0) {
      const current = await http.issueToken();
      for (const entry of live) {
        const ex = await session.validate(entry.token);
        const fp = fingerprint(entry.token);
        evidence.push(http.evidence(ex, `${fp} expires at ${new Date(entry.expires_at * 1000).toISOString()}`));
        const body = ex.json;
        const refused = ex.status !== 200 || !isJsonObject(body) || body['valid'] !== true;
        if (refused && (ex.status !== 401 || refusalIsEarly(ex, entry.expires_at, allowance))) {
          problems.push(
            `${fp}, ${Math.round(entry.expires_at - nowS)} s before its expires_at: ${cameBack(http, ex)}; §3 wants it valid until then`,
          );
        }
      }
      const newest = live[live.length - 1]!;
      if (
        current.issued &&
        current.issued.token !== newest.token &&
        positionOf(current, newest.expires_at, allowance) === 'certainly-before'
      ) {
        problems.push(
          `POST /tokens now returns ${current.issued.fingerprint}, while ${fingerprint(newest.token)} from an earlier run has not expired; §4.1 wants the same token until it expires`,
        );
      } else if (current.issued && epochSeconds(current.issued.expiresAt) !== newest.expires_at) {
        problems.push(
          `POST /tokens returns ${current.issued.fingerprint} again, but with expires_at ${String(current.issued.expiresAt)} instead of ${newest.expires_at} (first seen ${newest.first_seen}): its expiry slides, so it never expires while in use (§3)`,
        );
      }
    }
    if (problems.length) return fail(problems.join('; '), evidence);
    return pass(
      `${expired.length} earlier token(s) refused after expiry, ${live.length} still valid before it`,
      evidence,
    );
  },
};
