import { fail, pass, skip, type Check, type CheckContext } from '../src/runner/check.js';
import type { TokenExchange } from '../src/http/exchange.js';
import { fingerprint } from '../src/http/redact.js';
import { epochSeconds } from '../src/spec/expires-at.js';
import {
  certainlyExpiredFromMs,
  describeAllowance,
  describeSpan,
  lifetimeSpan,
  rolloverSpan,
  verdictOf,
  type LifetimeSpan,
} from '../src/time/expiry-edges.js';

// Why a token's remaining life is not its lifetime: credentials are shared (the integrator's app,
// other jobs, an earlier curl) and POST /tokens hands every one of them the same token until it
// expires (§3, §4.1), so the first token this run sees may have been issued hours ago. "Too short"
// is held against the service only where the run bounded the issue time itself: it started the
// service (the built-in emulator), or it knows the expiry of the token before this one (seen in
// this run, or kept in the token ledger), before which §3 forbids a new token. "Too long" needs no
// such bound: no token fetched earlier can have more left than a fresh one.

/** A token whose issue the run bounded by the expiry of the one before it, and where it learnt that. */
interface Rollover {
  ex: TokenExchange;
  expiresAtS: number;
  previousExpiresAtS: number;
  from: string;
}

/** The first token after one whose expiry the run knows (token ledger, or seen in this run); undefined when there is none. */
async function rollover(ctx: CheckContext, ex: TokenExchange, expiresAtS: number): Promise<Rollover | undefined> {
  const { session, ledger, target } = ctx;
  const allowance = session.allowance();
  const kept = ledger.previousOf(target, ex.issued!.token, (s) => certainlyExpiredFromMs(s, allowance) <= ex.sentAt);
  if (kept)
    return {
      ex,
      expiresAtS,
      previousExpiresAtS: kept.expires_at,
      from: `the token ledger: ${fingerprint(kept.token)}, first seen ${kept.first_seen}`,
    };
  // A remaining life short enough to wait for (the session decides): this run sees its token
  // expire and the next one appear.
  const obs = await session.expiry();
  if (obs.kind !== 'observed' || !obs.reissue.issued || obs.reissue.issued.token === obs.token.token) return undefined;
  const next = epochSeconds(obs.reissue.issued.expiresAt);
  if (next === undefined || next <= obs.expiresAtS) return undefined;
  return {
    ex: obs.reissue,
    expiresAtS: next,
    previousExpiresAtS: obs.expiresAtS,
    from: `this run: ${obs.token.fingerprint} expired`,
  };
}

export const check: Check = {
  id: 'token.lifetime',
  title: 'expires_at matches the promised token lifetime',
  spec: '5.4, 8',
  level: 'must',
  needsAcceptedCredentials: true,
  description:
    "A token's expires_at is at most `--token-lifetime` seconds (24 h by §5.4) after the request that first saw it, judged across the request's whole window, expires_at's whole-second rounding and the measured clock skew. Less is held against the service only where the run bounded the issue time: the built-in emulator, or a rollover (the previous token's expiry, seen in this run or kept in the token ledger), since other clients of shared credentials get the same token (§4.1).",
  async run(ctx) {
    const { http, session, expect, ledger, target } = ctx;
    const ex = await session.firstIssue();
    if (!ex.issued) return skip(`no token was issued (POST /tokens answered ${ex.status}); see token.issue`);
    const expiresAt = epochSeconds(ex.issued.expiresAt);
    if (expiresAt === undefined)
      return skip(
        `expires_at ${http.quoteField('expires_at', ex.issued.expiresAt)} is not an epoch time; see token.expires-at-epoch-seconds`,
      );
    const lifetime = expect.tokenLifetimeS;
    const allowance = session.allowance();
    const within = `(${describeAllowance(allowance)})`;
    // Judged from the request's window, not from when this check got to look at the token.
    const seen = lifetimeSpan(ex, expiresAt, allowance);
    const fp = ex.issued.fingerprint;
    const evidence = [
      http.evidence(ex, `token ${fp}: expires_at ${expiresAt}, ${describeSpan(seen)} left when first seen`),
    ];
    // For the run history: a lifetime, only where the span is one (the middle, whole seconds).
    // Its bounds too: cutover compares two lifetimes only outside both measurements' uncertainty.
    const factsOf = (span: LifetimeSpan) => ({
      lifetime_s: Math.round((span.minS + span.maxS) / 2),
      lifetime_min_s: Math.floor(span.minS),
      lifetime_max_s: Math.ceil(span.maxS),
    });
    if (verdictOf(seen, lifetime) === 'longer') {
      return {
        ...fail(
          `token ${fp} has ${describeSpan(seen)} left, more than the promised ${lifetime} s can explain ${within} (§5.4)`,
          evidence,
        ),
        facts: factsOf(seen),
      };
    }
    if (target.emulated) {
      // The harness started this service: nobody fetched a token before this run's first request.
      if (verdictOf(seen, lifetime) === 'shorter')
        return {
          ...fail(
            `token ${fp} lives ${describeSpan(seen)}, less than the promised ${lifetime} s can explain ${within} (§5.4)`,
            evidence,
          ),
          facts: factsOf(seen),
        };
      return {
        ...pass(`lifetime ${describeSpan(seen)}, consistent with the promised ${lifetime} s`, evidence),
        facts: factsOf(seen),
      };
    }
    const turned = await rollover(ctx, ex, expiresAt);
    if (turned) {
      const measured = rolloverSpan(turned.ex, turned.expiresAtS, turned.previousExpiresAtS, allowance);
      const tfp = turned.ex.issued!.fingerprint;
      const how = `issued after ${turned.previousExpiresAtS}, when the token before it expired (${turned.from}), and before the answer that first brought it`;
      const turnedEvidence =
        turned.ex === ex
          ? evidence
          : [...evidence, http.evidence(turned.ex, `token ${tfp}: expires_at ${turned.expiresAtS}, after a rollover`)];
      if (verdictOf(measured, lifetime) === 'shorter') {
        return {
          ...fail(
            `token ${tfp} lives ${describeSpan(measured)} (${how}), less than the promised ${lifetime} s (§5.4)`,
            turnedEvidence,
          ),
          facts: factsOf(measured),
        };
      }
      return {
        ...pass(
          `token ${tfp}: lifetime ${describeSpan(measured)} measured at a rollover (${how}), consistent with the promised ${lifetime} s`,
          turnedEvidence,
        ),
        facts: factsOf(measured),
      };
    }
    if (verdictOf(seen, lifetime) === 'consistent')
      return {
        ...pass(`lifetime ${describeSpan(seen)}, consistent with the promised ${lifetime} s`, evidence),
        facts: factsOf(seen),
      };
    const known = ledger.find(target, ex.issued.token);
    const firstSeen = known ? `first captured at ${known.first_seen} by an earlier run` : 'first seen by this run';
    return pass(
      `token ${fp} (${firstSeen}) has ${describeSpan(seen)} left, not more than the promised ${lifetime} s: ` +
        `other clients of these credentials get the same token (§4.1), so it may have been issued up to ${Math.ceil(lifetime - seen.minS)} s ago and its lifetime cannot be told from it. ` +
        `The token ledger measures it at the next rollover, once this token has expired${ledger.enabled ? '' : ' (the ledger is off: pass --ledger FILE)'}`,
      evidence,
    );
  },
};
