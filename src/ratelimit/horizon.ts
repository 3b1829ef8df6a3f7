// The proof's horizon: how long a client's life the k6 proof covers. A limit on a window longer
// than half the proof may never have filled while the proof ran (a proof that starts just after a
// window's edge meets a whole window only if it spans two), and so may a bucket whose refill time
// is (spanOf), so such a limit is "not tested", said in every format, never silently fine. The default horizon covers a one-minute window, the most
// common published one; `run` keeps its proof short and says so.

import type { AdvertisedLimit, ProofHorizon } from '../report/model.js';
import type { LimiterModel } from './limiters/index.js';
import type { Estimate, RateBracket } from './types.js';

/** `ratelimit`'s horizon: two one-minute windows. */
export const DEFAULT_HORIZON_S = 120;
/** `run`'s horizon: the main job stays quick, and says what that leaves untested. */
export const RUN_HORIZON_S = 5;
/** `run`'s probe cap, seconds: a conformant limit must be sized within it (the profile groups prove it). */
export const RUN_PROBE_CAP_S = 30;
/** The probe's default budget: the 120 s it always had, or 2.5 of the longest window the horizon covers. */
const PROBE_WINDOWS = 2.5;
const PROBE_MIN_BUDGET_S = 120;

/**
 * The probe's time cap when none is configured: enough to identify a window as long as the
 * horizon covers (half of it) with the 2.5 windows a window limiter takes to size, so the default
 * horizon's one-minute window (express-rate-limit's 120 per 60 s needs about 123 s) fits.
 */
export function probeBudgetS(horizonS: number): number {
  return Math.max(PROBE_MIN_BUDGET_S, Math.ceil((PROBE_WINDOWS * horizonS) / 2));
}

/** The longest horizon `--horizon` takes (config/ranges.ts horizonS): its probe sizes windows of up to half of it. */
export const HORIZON_MAX_S = 3600;

/** The `--horizon` whose probe has `needS` seconds and covers two of the window; null past its range. */
export function horizonFor(windowS: number, needS: number): number | null {
  const horizonS = Math.max(Math.ceil(2 * windowS), Math.ceil((2 * needS) / PROBE_WINDOWS));
  return horizonS <= HORIZON_MAX_S ? horizonS : null;
}

/**
 * How to give the probe `needS` seconds to verify a window of `windowS` (two of its windows are a
 * proof's horizon too): the `--horizon` whose default budget does, or, past the longest probe
 * `ratelimit` runs, that no setting does, so a client is sized by the announcement (`announced`: there is one).
 */
export function probingHowTo(windowS: number, needS: number, announced = true): string {
  const horizonS = horizonFor(windowS, needS);
  if (horizonS !== null) return `--horizon ${horizonS} (rate_limit.horizon_s) gives it ${probeBudgetS(horizonS)} s`;
  return `no setting reaches it: --horizon ${HORIZON_MAX_S}, the most, gives the probe ${probeBudgetS(HORIZON_MAX_S)} s, which sizes windows up to about ${HORIZON_MAX_S / 2} s${announced ? '; a client is sized by the announcement' : ''}`;
}

/** The words probingHowTo gives a horizon and its probe in, as a note carries them (underRunHowTo reads them). */
const HORIZON_GIVES = /--horizon (\d+) \(rate_limit\.horizon_s\) gives it (\d+) s/g;

/** The `--horizon` that covers two of a window, or, past its range, that none does (never a value the CLI refuses). */
const horizonTestsIt = (windowS: number): string =>
  2 * windowS <= HORIZON_MAX_S
    ? `--horizon ${Math.ceil(2 * windowS)} (rate_limit.horizon_s) tests it`
    : `no --horizon tests it (at most ${HORIZON_MAX_S}, which covers windows up to ${HORIZON_MAX_S / 2} s)`;

/** The window a limiter counts over, seconds; a bucket or a queue has none (its refill is not a window). */
export function windowOf(limiter: LimiterModel): number | null {
  switch (limiter.kind) {
    case 'bucket':
    case 'queue':
      return null;
    case 'sliding-window':
      return limiter.period_s;
    default:
      return limiter.window_s;
  }
}

/**
 * The time a bucket or a queue takes to refill its burst (burst / rate; in whole fills for a bucket
 * refilled by a timer), seconds; null for a limit on a window.
 */
export function refillOf(limiter: LimiterModel): number | null {
  if (limiter.kind !== 'bucket' && limiter.kind !== 'queue') return null;
  const fillS = limiter.kind === 'bucket' ? limiter.fill_interval_s : undefined;
  return fillS ? Math.ceil(limiter.burst / (limiter.rate_rps * fillS)) * fillS : limiter.burst / limiter.rate_rps;
}

/**
 * The span a proof must cover twice for a limit: its window, or a bucket's or a queue's refill time.
 * A bucket forgets a burst in its refill time as a window forgets its count at its edge, so a round
 * shorter than two of it may hold on the burst alone (a client above a per-minute bucket's rate of
 * 10 r/s is refused only once its 600 are spent): nginx's `600r/m burst=600` is a bucket of 601,
 * 60.1 s, which a 120 s proof does not cover.
 */
export const spanOf = (limiter: LimiterModel): number | null => windowOf(limiter) ?? refillOf(limiter);

/** What a proof horizon is measured against: the longest span known, and whether it was measured or announced. */
export interface LongestKnown {
  /** The longest window, or a bucket's or a queue's refill time when that is longer (spanOf), seconds. */
  window_s: number;
  source: 'measured' | 'announced';
  /** The span is a bucket's or a queue's refill time, not a window. */
  refill?: true;
  /**
   * A refill's one request at its rate, seconds: a burst read one request short reads the refill
   * that much short (nginx's 601 per 60.1 s read as 600: 60.0 s), so a round covers it as margin.
   */
  request_s?: number;
  /**
   * The span is how long a limit the probe did not identify stayed shut (RateBracket.restS): its
   * window, whatever its kind, is at least that long, and may be much longer.
   */
  lower_bound?: true;
}

/** The longest of `limits`' spans (spanOf), or null when none has one. */
export function longestSpan(limits: readonly LimiterModel[]): LongestKnown | null {
  return limits.reduce<LongestKnown | null>((longest, m) => {
    const span = spanOf(m);
    if (span === null || span <= (longest?.window_s ?? 0)) return longest;
    if (m.kind !== 'bucket' && m.kind !== 'queue') return { window_s: span, source: 'measured' };
    return { window_s: span, source: 'measured', refill: true, request_s: Math.round(1e6 / m.rate_rps) / 1e6 };
  }, null);
}

/**
 * How long a round runs to cover two of `longest`, its refill's margin (request_s) included, whole
 * seconds: 0 when none is known. A minute's window gives 120 s; nginx's 600r/m burst=600 (60.1 s),
 * read as 600 or 601, 121 s: a tenth of a second at the cost of one second.
 */
export function coveringS(longest: LongestKnown | null): number {
  if (longest === null) return 0;
  // Rounded to a millisecond first: 2 × 60.1 is 120.19999… in floating point, 2 × 0.3 above 0.6.
  return Math.ceil(Math.round(2000 * (longest.window_s + (longest.request_s ?? 0))) / 1000);
}

/**
 * The longest window known, measured (every limit the probe identified, a bucket's refill time
 * included: spanOf) or announced (RateLimit-Policy `w=`…), seconds.
 */
export function longestKnownWindow(
  estimate: Pick<Estimate, 'limiter' | 'advertised'> & Partial<Pick<Estimate, 'limiters'>>,
): LongestKnown | null {
  const limits = estimate.limiters?.length ? estimate.limiters : estimate.limiter ? [estimate.limiter] : [];
  const measured = longestSpan(limits);
  const announced = estimate.advertised?.window_s ?? null;
  if (announced !== null && announced > (measured?.window_s ?? 0)) return { window_s: announced, source: 'announced' };
  return measured;
}

/**
 * What the probe saw of a limit it refused but did not identify: it stayed shut `restS` seconds
 * after refusing, so whatever its window, it is at least that long (a silent 600 per 60 s met 45 s
 * into its minute stays shut about 15 s). A lower bound, said as one; null without a bracket.
 */
export function shutSpan(bracket: Pick<RateBracket, 'restS'> | undefined): LongestKnown | null {
  return bracket !== undefined && bracket.restS > 0
    ? { window_s: bracket.restS, source: 'measured', lower_bound: true }
    : null;
}

/** The longer of `longest` and what the probe saw an unidentified limit stay shut (shutSpan). */
export function withShutSpan(longest: LongestKnown | null, bracket: Pick<RateBracket, 'restS'> | undefined) {
  const shut = shutSpan(bracket);
  return shut !== null && shut.window_s > (longest?.window_s ?? 0) ? shut : longest;
}

/** How shutPastProof's words begin: the terminal's "recommend: nothing" line quotes them from the notes. */
export const SHUT_PAST_PROOF = 'not proven over the window the probe saw';

/**
 * Why a proof of `proofS` seconds a round proves nothing over what the probe saw of an unidentified
 * limit (it stayed shut longer than the proof covers), said as `run` says it; null when it covers
 * it. A silent 600 per 60 s met late in its minute kept the probe out 10-25 s, then a 5 s round
 * after the minute's edge held about 40 req/s against a true 10, reported as proven (30 Nov).
 */
export function shutPastProof(bracket: Pick<RateBracket, 'restS'> | undefined, proofS: number): string | null {
  const shut = shutSpan(bracket);
  if (shut === null || shut.window_s <= proofS / 2) return null;
  return `${SHUT_PAST_PROOF} (shut ${fmt(shut.window_s)} s): \`ces-harness ratelimit\` sizes it`;
}

/**
 * What the proof covered: it ran `proofS` seconds a round, so windows up to half that are tested.
 * `shortened` says why the horizon is short when the command chose it so (`run`).
 */
export function proofHorizon(
  proofS: number,
  longest: LongestKnown | null,
  shortened?: string,
  announced: readonly AdvertisedLimit[] = [],
): ProofHorizon {
  const coversS = proofS / 2;
  const beyond =
    longest !== null && longest.window_s > coversS && longest.lower_bound
      ? `the limit stayed shut ${fmt(longest.window_s)} s in the probe: its window is at least that long, longer than the proof covers; ${horizonTestsIt(longest.window_s).replace(/tests it$/, 'covers that much of it')}`
      : longest !== null && longest.window_s > coversS
        ? `the ${longest.source} limit on a ${fmt(longest.window_s)} s ${longest.refill ? 'refill' : 'window'} is longer than the proof covers; ${horizonTestsIt(longest.window_s)}`
        : null;
  // Every announced limit not proven on a window past the horizon, not only the longest known
  // (an IETF list's hour beside the minute the probe verified): each is "not tested", and says how.
  const announcedBeyond = announced
    .filter((a) => a.agrees !== true && a.window_s !== null && a.window_s > coversS)
    .filter((a) => !(longest?.source === 'announced' && longest.window_s === a.window_s))
    .map(
      (a) =>
        `the announced ${a.limit} per ${fmt(a.window_s!)} s (${a.source_header}, ${a.agrees === false ? 'disagreeing' : 'not proven'}) is on a window longer than the proof covers; ${horizonTestsIt(a.window_s!)}`,
    );
  const why = [beyond, ...announcedBeyond, shortened ?? null].filter((w): w is string => w !== null);
  return {
    proven_s: proofS,
    covers_window_s: coversS,
    longest_window_s: longest?.window_s ?? null,
    ...(why.length > 0 ? { not_tested: why.join('; ') } : {}),
  };
}

const fmt = (s: number) => String(Math.round(s * 10) / 10);

/**
 * Why a probe stopped by a Retry-After past its cap sized nothing, and how to size it: the wait
 * says the limit lifts, and a window that long takes about 2.5 of it to size (a silent 600 per
 * 60 s under run's 30 s probe, Retry-After 57 s, stopped after 3 s: 30 Nov). `run` names
 * `ratelimit`, whose default probe covers a one-minute window; `ratelimit` names its --horizon.
 */
export function retryAfterPastProbe(
  retryAfterS: number,
  capS: number,
  command: 'run' | 'ratelimit',
): { why: string; how: string } {
  const usualS = PROBE_WINDOWS * retryAfterS;
  const waitS = Math.round(retryAfterS);
  const probe = command === 'run' ? `run's ${capS} s probe` : `the probe's ${capS} s`;
  // A probe that had the usual time and still sized nothing (a log of 100 per 60 s counting its
  // refused pings, kept shut by them: 6 Dec) is no probe the same setting gives again: one window more.
  const hadIt = usualS <= capS;
  const needS = hadIt ? capS + retryAfterS : usualS;
  const lifts = `its Retry-After of ${waitS} s says it lifts within ${waitS} s`;
  const usual = `sizing a window that long takes about ${Math.ceil(usualS)} s of probing`;
  const why = hadIt
    ? `${lifts}; ${usual}, and ${probe} did not size this one`
    : `${lifts}, and ${usual}, past ${probe}`;
  const may = hadIt ? 'may size it' : 'sizes it';
  if (command === 'ratelimit')
    return { why, how: `${hadIt ? 'a longer probe may size it: ' : ''}${probingHowTo(retryAfterS, needS, false)}` };
  const horizonS = horizonFor(retryAfterS, needS);
  const how =
    probeBudgetS(DEFAULT_HORIZON_S) >= needS
      ? `\`ces-harness ratelimit\` ${may}`
      : horizonS !== null
        ? `\`ces-harness ratelimit --horizon ${horizonS}\` ${may}`
        : `no probe of \`ces-harness ratelimit\` reaches it (its longest sizes windows up to about ${HORIZON_MAX_S / 2} s)`;
  return { why, how };
}

/** How a note of a window past the probe's budget begins (advertised.ts, silent-window.ts). */
export const PAST_PROBE = "the window is longer than the probe's budget";

/**
 * A window past `run`'s probe, as `run` says it: `run` keeps its probe at its cap whatever the
 * horizon, so the how is `ratelimit`'s longer probe (a silent minute under run was "not identified:
 * … about 91 s of probing to confirm", with no way named to get it, 30 Nov).
 */
export function underRunHowTo(note: string, capS: number): string {
  // `run --horizon` lengthens run's rounds, never its probe: the setting a note names is ratelimit's
  // (a minute's quota shut under run: "--horizon 100 (rate_limit.horizon_s) gives it 125 s", 6 Dec).
  const how = note.replace(
    HORIZON_GIVES,
    (_, horizonS: string, probeS: string) =>
      `\`ces-harness ratelimit --horizon ${horizonS}\` gives its probe ${probeS} s (run's stays at ${capS} s whatever its --horizon)`,
  );
  if (!how.includes(PAST_PROBE)) return how;
  return `${how}; run's probe stops at ${capS} s: ${RATELIMIT_PROBES} (--horizon S for a longer window)`;
}

/** What `ratelimit`'s probe has that `run`'s lacks: its time, by default. */
export const RATELIMIT_PROBES = `\`ces-harness ratelimit\` probes for up to ${probeBudgetS(DEFAULT_HORIZON_S)} s`;
