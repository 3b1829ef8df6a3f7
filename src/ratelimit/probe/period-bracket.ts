// Where a sliding window's period lies while the trials of sliding-period.ts bisect it, as plain
// data: the bracket, which of its ends a trial has seen, where the next trial's single request
// goes, and what its answer does to the bracket. Pure, so every rule is tested on numbers.
//
// An end nobody saw is suspect: the upper one comes from a drain whose window the set-up requests
// may have opened earlier (it can lie short of the period, by up to a quarter), the lower one from
// pings refused while they themselves counted (it can lie past the period, by a few per cent).
// Once a request below an unseen upper end was refused, the next one asks at that end itself, and
// each refusal there moves it a quarter up. When the bracket has narrowed to an unseen lower end,
// the period probably lies just below it: the next request goes just below, at the distance where
// the answer that confirms the end also finishes the bisection, one trial instead of widening the
// bracket by a third and bisecting it again.

import { midpoint } from '../identify.js';

export interface PeriodBracket {
  /** ms: a request this long after a clump from idle was refused (or so the drain suggests). */
  lo: number;
  /** ms: a request this long after a clump from idle passed (or so the drain suggests). */
  hi: number;
  loSeen: boolean;
  hiSeen: boolean;
}

/** Half-width of the period's bracket, relative, at which the bisection stops: ±1.5 %, inside the 2 % goal with a trial fewer than ±1 %. */
export const PERIOD_PRECISION = 0.015;
/** How far short of the period an upper end no trial saw may be (a quarter). */
export const UNSEEN_SHORT = 0.8;
/** How far past the period a lower end no trial saw usually lies at most: refused pings that counted pushed it (HAProxy's usual recipe: up to 6 % seen). */
const UNSEEN_PAST = 0.9;
/** How far past the period a lower end no trial saw may be (a third), when a trial contradicts it. */
const UNSEEN_LONG = 0.75;
// A request placed so that the confirming answer leaves the bracket at this half-width: a tenth
// inside the precision, so rounding never leaves it a hair outside.
const CONFIRM_AT = 0.9 * PERIOD_PRECISION;

/**
 * The bracket before the trials, from a lower and an upper end nobody saw (or an upper end seen: a
 * window's edges). The lower end starts a tenth lower: it may lie a little past the period (refused
 * pings that counted pushed it), and a bisection that starts above the period creeps down towards it
 * a halving at a time, each request let through (each trial a period longer than a refused one).
 */
export function initialBracket(lo: number, hi: number, hiSeen: boolean): PeriodBracket {
  return { lo: UNSEEN_PAST * lo, hi, loSeen: false, hiSeen };
}

/** What a reported period may be off by at most, relative: the bracket's half-width and the arrivals' noise together. */
export const PERIOD_GOAL = 0.02;

/**
 * Both ends seen and the bracket within the precision: the period is known. `noiseMs`: how far each
 * answer's gap may be off the gap the limiter saw (arrival.ts gapNoiseMs: a jittery network moves
 * each request by its own one-way delay); the bracket must then be narrower by as much, so that the
 * two together stay within PERIOD_GOAL.
 */
export function pinned(b: PeriodBracket, noiseMs = 0): boolean {
  if (!b.loSeen || !b.hiSeen) return false;
  const { value, precision } = midpoint(b);
  return precision <= Math.min(PERIOD_PRECISION, PERIOD_GOAL - noiseMs / value);
}

/** How long after the clump's first request the trial's single request goes, ms. */
export function nextPingAfter(b: PeriodBracket): number {
  // Refused in the upper part with that end unseen: the period lies near that end or past it (the
  // drain's end short of it), and bisecting towards it would take a trial per halving. Ask at the
  // end itself (a hair past, for the answers' jitter): let through, it is seen; refused, it was
  // short, and the next request looks a quarter further (withAnswer).
  if (b.loSeen && !b.hiSeen) return b.hi * (1 + PERIOD_PRECISION / 2);
  const narrow = b.hi - b.lo <= 2 * PERIOD_PRECISION * b.hi;
  if (narrow && !b.hiSeen) return (b.lo + b.hi / UNSEEN_SHORT) / 2;
  if (narrow && !b.loSeen) return (b.hi * (1 - CONFIRM_AT)) / (1 + CONFIRM_AT);
  return (b.lo + b.hi) / 2;
}

/** The bracket once a request `afterMs` after a clump from idle was let through (accepted) or refused. */
export function withAnswer(b: PeriodBracket, afterMs: number, accepted: boolean): PeriodBracket {
  if (accepted) {
    // A seen bound replaces a guessed one even when it is wider. Let through at or below the lower
    // end: that end was wrong (pings that counted pushed it past the period); look a third lower.
    const hi = b.hiSeen ? Math.min(b.hi, afterMs) : afterMs;
    return afterMs <= b.lo
      ? { lo: UNSEEN_LONG * afterMs, hi, loSeen: false, hiSeen: true }
      : { ...b, hi, hiSeen: true };
  }
  // Refused past an upper end seen before: that end was wrong (its trial was not from idle).
  if (afterMs >= b.hi) return { lo: afterMs, hi: afterMs / UNSEEN_SHORT, loSeen: true, hiSeen: false };
  return { ...b, lo: b.loSeen ? Math.max(b.lo, afterMs) : afterMs, loSeen: true };
}
