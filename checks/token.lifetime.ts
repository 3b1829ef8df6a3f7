import { fail, notTested, pass, skip, type Check, type CheckContext } from '../src/runner/check.js';
import type { TokenExchange } from '../src/http/exchange.js';
import { fingerprint } from '../src/http/redact.js';
import { epochSeconds } from '../src/spec/expires-at.js';
import {
  certainlyExpiredFromMs,
  describeAllowance,
  describeSpan,
  lifetimeSpan,
  lifetimeTolerance,
  pinsLifetime,
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
    "A token's expires_at is at most `--token-lifetime` seconds (24 h by §5.4) after the request that first saw it, judged across the request's whole window, expires_at's whole-second rounding and the measured clock skew. Less is held against the service only where the run bounded the issue time: the built-in emulator, or a rollover (the previous token's expiry, seen in this run or kept in the token ledger), since other clients of shared credentials get the same token (§4.1). A pass pins the lifetime within 1 % of the promise (never tighter than the measurement's own rounding, skew and 2 s); a looser measurement is not tested. With no rollover known, a remaining life within that tolerance passes (the lifetime is at least that), and a shorter one is skipped: its lifetime is not measured.",
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
    // A pass states the lifetime within ± tolerance; a measurement looser than that is no evidence
    // either way, and says what would tighten it.
    const tolerance = lifetimeTolerance(lifetime, allowance);
    // A remaining life is the least the lifetime can be, whoever fetched first: within the tolerance
    // of the promise, the first token alone pins the lifetime's short side.
    const firstPinsShortSide = seen.minS >= lifetime - tolerance;
    const loose = (token: string, span: LifetimeSpan, why: string) =>
      `token ${token} lives ${describeSpan(span)}, too loose a measurement to tell the promised ${lifetime} s within ± ${tolerance.toFixed(1)} s: ${why}`;
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
      if (!pinsLifetime(seen, lifetime, allowance))
        return notTested(
          loose(
            fp,
            seen,
            `the answer that brought it took ${((ex.receivedAt - ex.sentAt) / 1000).toFixed(1)} s ${within}; run it again on a less busy machine`,
          ),
          evidence,
        );
      return {
        ...pass(`lifetime ${describeSpan(seen)}, consistent with the promised ${lifetime} s`, evidence),
        facts: factsOf(seen),
      };
    }
    const turned = await rollover(ctx, ex, expiresAt);
    let ledgerTooLoose: string | undefined;
    if (turned) {
      const measured = rolloverSpan(turned.ex, turned.expiresAtS, turned.previousExpiresAtS, allowance);
      const tfp = turned.ex.issued!.fingerprint;
      const how = `issued after ${turned.previousExpiresAtS}, when the token before it expired (${turned.from}), and before the answer that first brought it`;
      const turnedEvidence =
        turned.ex === ex
          ? evidence
          : [...evidence, http.evidence(turned.ex, `token ${tfp}: expires_at ${turned.expiresAtS}, after a rollover`)];
      const judged = verdictOf(measured, lifetime);
      if (judged !== 'consistent') {
        return {
          ...fail(
            `token ${tfp} lives ${describeSpan(measured)} (${how}), ${judged === 'shorter' ? 'less' : 'more'} than the promised ${lifetime} s (§5.4)`,
            turnedEvidence,
          ),
          facts: factsOf(measured),
        };
      }
      if (pinsLifetime(measured, lifetime, allowance))
        return {
          ...pass(
            `token ${tfp}: lifetime ${describeSpan(measured)} measured at a rollover (${how}), consistent with the promised ${lifetime} s`,
            turnedEvidence,
          ),
          facts: factsOf(measured),
        };
      // Seen late in this run's own wait: the attempt to measure fell short, so the run says so,
      // unless the first token's remaining life already pinned the lifetime's short side (a fresh
      // token: judged below, as without a rollover). A ledger's token that expired long before this
      // one was fetched is no attempt: as no rollover.
      const lateS = turned.ex.receivedAt / 1000 - turned.previousExpiresAtS;
      if (turned.ex === ex)
        ledgerTooLoose = `The token ledger's rollover pins it no better: the token before it expired at ${turned.previousExpiresAtS}, ${lateS.toFixed(0)} s before this run first saw this one, so it lives ${describeSpan(measured)}; a run soon after the next rollover measures it`;
      else if (!firstPinsShortSide)
        return notTested(
          loose(
            tfp,
            measured,
            `this run first saw it ${lateS.toFixed(1)} s after the token before it expired (a busy machine, a slow answer, or another client of these credentials fetched it first), so it may have been issued any time in between; a rollover seen sooner pins it: run it again`,
          ),
          turnedEvidence,
        );
    }
    if (verdictOf(seen, lifetime) === 'consistent' && pinsLifetime(seen, lifetime, allowance))
      return {
        ...pass(`lifetime ${describeSpan(seen)}, consistent with the promised ${lifetime} s`, evidence),
        facts: factsOf(seen),
      };
    const known = ledger.find(target, ex.issued.token);
    const firstSeen = known ? `first captured at ${known.first_seen} by an earlier run` : 'first seen by this run';
    // No facts: the remaining life's upper end is no bound on the lifetime, and cutover would
    // compare it as one.
    if (firstPinsShortSide)
      return pass(
        `lifetime at least ${seen.minS.toFixed(1)} s, within ± ${tolerance.toFixed(1)} s of the promised ${lifetime} s: token ${fp} (${firstSeen}) had ${describeSpan(seen)} left, and a fetch by another client of these credentials before this run's only makes its lifetime longer than that`,
        evidence,
      );
    // Not a pass: only "not more than the promise" was tested, and a lifetime of half the promise
    // looks the same from here. The run still exits 0: nothing it could do in this run would tell.
    return skip(
      `lifetime not measured: token ${fp} (${firstSeen}) has ${describeSpan(seen)} left, not more than the promised ${lifetime} s (tested), ` +
        `but other clients of these credentials get the same token (§4.1), so it may have been issued up to ${Math.ceil(lifetime - seen.minS)} s ago and its lifetime cannot be told from it. ` +
        (ledgerTooLoose ??
          `The token ledger measures it at the next rollover, once this token has expired${ledger.enabled ? '' : ' (the ledger is off: pass --ledger FILE)'}`),
      evidence,
    );
  },
};
