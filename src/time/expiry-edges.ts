// Every judgement about a token's time edge goes through here, in Node (the checks) and in k6
// (bundled into the scenarios), so both sides draw the line in the same place.
//
// Why an edge is never a single instant: the service decides somewhere between when we sent the
// request and when its answer arrived, by its own clock (which may differ from ours by the allowed
// skew), and it tells us expires_at in whole seconds (so the instant it means may be up to a second
// either side of the number). Only what lies outside all three uncertainties is held against it;
// inside them a conformant service and a faulty one look the same, and a verdict there would be
// a coin toss — exactly the false alarm a busy machine produces.
//
// Pure: no clock, no I/O, no Node or k6 imports.

/** The request's whole window on our clock, epoch milliseconds. */
export interface ExchangeWindow {
  sentAt: number;
  receivedAt: number;
}

export interface EdgeAllowance {
  /** Allowed difference between our clock and the service's, seconds (--clock-tolerance). */
  clockSkewS: number;
  /**
   * The service's clock minus ours as this run measured it (clock-skew.ts), seconds. When present
   * it replaces the configured worst case: the edge is drawn where the run saw the service's clock.
   */
  measured?: { minS: number; maxS: number };
}

/** The service's clock minus ours, seconds: measured, or ± the configured tolerance. */
export const skewRange = (a: EdgeAllowance): { minS: number; maxS: number } =>
  a.measured ?? { minS: -a.clockSkewS, maxS: a.clockSkewS };

/** expires_at is whole seconds: the instant it stands for may be up to this far either side. */
export const ROUNDING_S = 1;

export type EdgePosition = 'certainly-before' | 'within-uncertainty' | 'certainly-after';

/** Our clock's last instant (ms) at which the service certainly still held the token valid. */
export const certainlyValidUntilMs = (expiresAtS: number, a: EdgeAllowance): number =>
  (expiresAtS - ROUNDING_S - skewRange(a).maxS) * 1000;

/** Our clock's first instant (ms) from which the service certainly held the token expired. */
export const certainlyExpiredFromMs = (expiresAtS: number, a: EdgeAllowance): number =>
  (expiresAtS + ROUNDING_S - skewRange(a).minS) * 1000;

/**
 * Where the instant the service judged this request lies relative to expires_at: certainly
 * before it (the whole window ended before the token could have expired), certainly after it
 * (the window began after the token had certainly expired), or within the uncertainty.
 */
export function positionOf(w: ExchangeWindow, expiresAtS: number, a: EdgeAllowance): EdgePosition {
  if (w.receivedAt < certainlyValidUntilMs(expiresAtS, a)) return 'certainly-before';
  if (w.sentAt >= certainlyExpiredFromMs(expiresAtS, a)) return 'certainly-after';
  return 'within-uncertainty';
}

/** A refusal (401) of a token is a finding only when the service certainly judged before expires_at. */
export const refusalIsEarly = (w: ExchangeWindow, expiresAtS: number, a: EdgeAllowance): boolean =>
  positionOf(w, expiresAtS, a) === 'certainly-before';

/**
 * A 401 to a token that cannot be judged: only a 401 can be an honest expiry, and this one may be,
 * for the service may have judged it after expires_at. (Any other refusal is judged as it is.)
 */
export const refusalUnjudged = (
  w: ExchangeWindow & { status: number },
  expiresAtS: number,
  a: EdgeAllowance,
): boolean => w.status === 401 && !refusalIsEarly(w, expiresAtS, a);

/** An acceptance of a token is a finding only when the service certainly judged after expires_at. */
export const acceptanceIsLate = (w: ExchangeWindow, expiresAtS: number, a: EdgeAllowance): boolean =>
  positionOf(w, expiresAtS, a) === 'certainly-after';

/** The lifetimes (seconds) consistent with a token issued within `w` that says `expiresAtS`. */
export interface LifetimeSpan {
  minS: number;
  maxS: number;
}

export function lifetimeSpan(w: ExchangeWindow, expiresAtS: number, a: EdgeAllowance): LifetimeSpan {
  // Issued on the service's clock somewhere in [sent + min skew, received + max skew].
  const skew = skewRange(a);
  return {
    minS: expiresAtS - w.receivedAt / 1000 - skew.maxS - ROUNDING_S,
    maxS: expiresAtS - w.sentAt / 1000 - skew.minS + ROUNDING_S,
  };
}

export type LifetimeVerdict = 'shorter' | 'consistent' | 'longer';

/** Against a promised lifetime: certainly shorter, certainly longer, or consistent with it. */
export function judgeLifetime(
  w: ExchangeWindow,
  expiresAtS: number,
  promisedS: number,
  a: EdgeAllowance,
): { verdict: LifetimeVerdict; span: LifetimeSpan } {
  const span = lifetimeSpan(w, expiresAtS, a);
  return { verdict: verdictOf(span, promisedS), span };
}

/** "7.0–9.1 s": how a span reads in a message. */
export const describeSpan = (s: LifetimeSpan): string => `${s.minS.toFixed(1)}–${s.maxS.toFixed(1)} s`;

/** The uncertainty stated once, for messages: "± 1 s rounding, ± 2 s clock skew, and the request's window". */
export function describeAllowance(a: EdgeAllowance): string {
  const skew = a.measured
    ? `the measured clock skew ${a.measured.minS.toFixed(2)}…${a.measured.maxS.toFixed(2)} s`
    : `± ${a.clockSkewS} s clock skew`;
  return `± ${ROUNDING_S} s for expires_at's whole seconds, ${skew}, and the request's own window`;
}

/**
 * The lifetimes consistent with a token first seen in `w` that followed one expiring at
 * `previousExpiresAtS`. Its issue is bounded on both sides without assuming we were its only
 * client: §3 hands out the previous token until its expiry, so this one was issued no earlier
 * than that, whoever asked first; and no later than the answer that brought it to us.
 * Both expiries are the service's own numbers on its own clock, rounded by the same rule, so the
 * upper bound needs no skew and only the one rounding the promise is judged with anyway.
 */
export function rolloverSpan(
  w: ExchangeWindow,
  expiresAtS: number,
  previousExpiresAtS: number,
  a: EdgeAllowance,
): LifetimeSpan {
  return { minS: lifetimeSpan(w, expiresAtS, a).minS, maxS: expiresAtS - previousExpiresAtS + ROUNDING_S };
}

/** Against a promised lifetime, a span from lifetimeSpan or rolloverSpan. */
export const verdictOf = (span: LifetimeSpan, promisedS: number): LifetimeVerdict =>
  span.maxS < promisedS ? 'shorter' : span.minS > promisedS ? 'longer' : 'consistent';

/**
 * How near the promise a measured lifetime must be pinned for a pass, seconds: 1 % of the promise
 * (14 min of 24 h), and never less than what an observation at its best carries (expires_at's whole
 * seconds at either end, the clock skew's range, and 2 s for the answer that brought the token and
 * a rollover's wait past the edge). A span wider than that holds the promise and a materially
 * different lifetime alike: "consistent" there is no evidence (CI 53f: 3.6–12.0 s held a 12 s
 * promise and the wrong-lifetime fault's 6 s).
 */
export function lifetimeTolerance(promisedS: number, a: EdgeAllowance): number {
  const skew = skewRange(a);
  return Math.max(promisedS * 0.01, 2 * ROUNDING_S + (skew.maxS - skew.minS) + 2);
}

/** The span lies within the promise ± lifetimeTolerance: it tells the promise from a different lifetime. */
export const pinsLifetime = (span: LifetimeSpan, promisedS: number, a: EdgeAllowance): boolean => {
  const tolerance = lifetimeTolerance(promisedS, a);
  return span.minS >= promisedS - tolerance && span.maxS <= promisedS + tolerance;
};
