// The words of the Rate limit section, shared by report.md, report.html and junit.xml (and the
// terminal's summary of `ratelimit`): what to configure, what the proof run measured, and the
// probe's findings, so every format says the same thing the same way.

import {
  formatDuration,
  formatMs,
  formatNumber,
  formatPercent,
  formatRate,
  formatSeconds,
} from '../../common/format.js';
import type {
  AdvertisedLimit,
  BackoffPolicy,
  NoLimitReach,
  ProofHorizon,
  ProofRound,
  ProofUnproven,
  RateLimitResult,
  SustainedHeld,
} from '../../model.js';

export function backoffText(b: BackoffPolicy): string {
  const jitter = b.jitter === 'none' ? 'no jitter' : `${b.jitter} jitter`;
  return `exponential backoff from ${formatMs(b.base_ms)} capped at ${formatMs(b.cap_ms)}, ${jitter}, at most ${formatNumber(b.max_retries)} retries`;
}

const orUnknown = (n: number | null, show: (n: number) => string, absent: string): string =>
  n === null ? absent : show(n);

/**
 * The sustained rate as a client may rely on it: "10 req/s", or, when an announced limit the probe
 * did not verify binds below what it measured, that limit's rate said as such, the measured one beside.
 */
export function sustainedText(
  r: Pick<RateLimitResult, 'sustained_rps' | 'sustained_announced' | 'sustained_held' | 'sustained_precision'>,
  rate: (rps: number) => string = formatRate,
): string {
  const a = r.sustained_announced;
  if (r.sustained_rps === null) return 'unknown';
  if (r.sustained_held) return `${rate(r.sustained_rps)} (${heldText(r.sustained_held, rate)})`;
  // The probe's own reading, with how far it may be off (a bound: rounded up, never to nothing).
  if (!a)
    return r.sustained_precision === undefined
      ? rate(r.sustained_rps)
      : `${rate(r.sustained_rps)} (±${formatNumber(Math.ceil(1000 * r.sustained_precision) / 10, 1)} %)`;
  const said = a.agrees === false ? 'announced, disagreeing with what the probe saw' : 'announced, not proven';
  return `${rate(r.sustained_rps)} (${said}: ${formatNumber(a.limit)} per ${formatNumber(a.window_s)} s, ${a.source_header}; the probe measured ${rate(a.measured_rps)} for the limit it reached, one of several)`;
}

/**
 * Where a search's rate comes from (RateLimitResult.sustained_held), within what it showed: "held
 * for 120 s by paced k6 rounds, the limiter not identified; a round paced at 5.1 req/s was refused".
 * Never the kind or a figure of it, nor where "the limit" lies: none was identified, and a clock
 * window meets a paced client's jitter below its own rate (CI 48e: 50 per 1 s refused a round at 49).
 */
export function heldText(h: SustainedHeld, rate: (rps: number) => string = formatRate): string {
  const above =
    h.met_429_rps !== undefined
      ? `a round paced at ${rate(h.met_429_rps)} met 429s and failed`
      : h.refused_rps === null
        ? 'no round above it was refused'
        : `a round paced at ${rate(h.refused_rps)} was refused`;
  const heldFor = `${formatNumber(h.held_s, Number.isInteger(h.held_s) ? 0 : 1)} s`;
  const line = h.quota_line;
  // Rounds above were refused after a quota (the line's points), whatever share of 429s they saw.
  if (line)
    return `the refill the refused rounds' quotas lie on (${formatNumber(line.stored, 0)} stored + ${rate(line.refill_rps)}, read to ± ${rate(line.refill_error_rps)}): ${rate(line.held_rps)} held for ${heldFor} by paced k6 rounds on what the limit stored, refused after about ${formatNumber(line.stored / (line.held_rps - line.refill_rps), 0)} s by a client running longer; the limiter not identified`;
  const p = h.past_store;
  const probeHeld = p?.probe_hold
    ? ` (the probe's own ${formatNumber(p.probe_hold.requests, 0)} requests let through over ${formatNumber(p.probe_hold.s, 1)} s, none refused, less that store)`
    : '';
  const past = p
    ? `; it offered less than ten times the ${formatNumber(p.stored, 0)} requests the probe's drain found stored, so it may have lived on them: a client running longer is sure of ${rate(p.sure_rps)} only${probeHeld}, and the policy is given no higher`
    : '';
  return `held for ${heldFor} by paced k6 rounds, the limiter not identified; ${above}${past}`;
}

/**
 * What a probe that met no limit may say, within its evidence: "no limit up to 187/s over 9.1 s",
 * with what max_rps asked beyond it; when it reached under half of that (NoLimitReach.tested), not
 * tested, never a clean "none".
 */
export function noLimitText(n: NoLimitReach, rate: (rps: number) => string = formatRate, servedRps?: number): string {
  const reach = `${rate(n.rps)} over ${formatSeconds(n.over_s)}`;
  // Answered at a steady pace in a line that grew (probe/queued-pace.ts): the service set the pace, not this machine.
  if (servedRps !== undefined)
    return (
      `no 429 met, but the service answered no faster than ${rate(servedRps)}, each answer later than the one before (a limit that delays instead of refusing, or the service's own pace): ` +
      `a client above that pace waits in a line that only grows, and a 429 limit above it is not tested`
    );
  if (!n.tested)
    return (
      `not tested: no limit met, but the probe's requests went out, or were taken in, at only ${reach}, under half the ${formatNumber(n.max_rps)} req/s max_rps asked ` +
      '(a loaded machine, slow answers or a service that takes no more held it back), so a limit above that rate would look like none; run it again on a quieter machine, or against a service that takes more'
    );
  // Within a twentieth of max_rps, the pacing's own shortfall: what was asked was reached.
  const short =
    n.rps < 0.95 * n.max_rps ? ` (max_rps ${formatNumber(n.max_rps)}: a limit between the two is not tested)` : '';
  return `no limit up to ${reach}${short}`;
}

/** The probe's findings as label/value pairs, in the order a reader asks about them. */
export function rateLimitFacts(r: RateLimitResult): Array<[string, string]> {
  const limitedShare = r.requests_sent > 0 ? ` (${formatPercent(r.requests_limited / r.requests_sent)})` : '';
  return [
    ['Endpoint', r.endpoint],
    ['429 observed', r.observed_429 ? 'yes' : 'no'],
    [
      'Sustained rate',
      orUnknown(
        r.sustained_rps,
        () => sustainedText(r),
        r.no_limit_up_to
          ? noLimitText(r.no_limit_up_to, undefined, r.served_rps)
          : r.observed_429
            ? 'unknown'
            : 'not reached',
      ),
    ],
    ['Burst', orUnknown(r.burst, (n) => `${formatNumber(n)} requests`, 'not measured')],
    ['Scope', r.scope],
    ['Retry-After header', r.retry_after_header],
    ['Recovery', orUnknown(r.recovery_s, formatDuration, 'unknown')],
    ['Requests sent', formatNumber(r.requests_sent)],
    ['Requests limited (429)', `${formatNumber(r.requests_limited)}${limitedShare}`],
    // The optional figures of the `ratelimit` probe, shown only when it reported them.
    ...optionalFacts(r),
  ];
}

function optionalFacts(r: RateLimitResult): Array<[string, string]> {
  const facts: Array<[string, string]> = [];
  if (r.limiting_status !== undefined && r.limiting_status !== null && r.limiting_status !== 429) {
    facts.push(['Limiting answer', `${r.limiting_status} (non-conformant: §7 wants 429)`]);
  }
  if (r.refill_s !== undefined && r.refill_s !== null) facts.push(['Refill of the burst', formatDuration(r.refill_s)]);
  // A limit faster than the service behind it: the pace a client can keep without a growing line.
  if (r.served_rps !== undefined)
    facts.push([
      'Served rate',
      r.limiting_status === null
        ? `${formatRate(r.served_rps)}: nothing was refused, but the service answered no faster, each answer later than the one before, so the search stayed below it`
        : `${formatRate(r.served_rps)}: the service answered what the limit admitted no faster, so the recommendation is sized by it`,
    ]);
  if (r.advertised) facts.push(['Advertised limit', advertisedText(r.advertised)]);
  if (r.proof_horizon) facts.push(['Proof horizon', horizonText(r.proof_horizon, r.proof_unproven)]);
  // Every limit of several announced, each a hypothesis: the ones not verified say so.
  if (r.announced) facts.push(['Announced limits', r.announced.map(advertisedText).join('; ')]);
  if (r.ratelimit_headers && r.ratelimit_headers.length > 0)
    facts.push(['RateLimit headers', r.ratelimit_headers.join(', ')]);
  if (r.duration_s !== undefined)
    facts.push(['Probe duration', `${formatSeconds(r.duration_s)}${r.partial ? ' (partial)' : ''}`]);
  return facts;
}

/**
 * One line: "proven for 120 s; a limit on a window longer than 60 s is not tested (…)"; "rounds of
 * 5 s, which proved nothing (…)" when the recommendation is not proven within the horizon.
 */
export function horizonText(h: ProofHorizon, unproven?: ProofUnproven): string {
  // In seconds, as the flag takes them ("120 s", not "2 min 00 s").
  const proven = formatNumber(h.proven_s, Number.isInteger(h.proven_s) ? 0 : 1);
  return (
    (unproven
      ? `rounds of ${proven} s, within the burst: nothing proven (see the recommendation); `
      : `proven for ${proven} s; `) + outsideHorizon(h)
  );
}

/** What the horizon leaves out: "a limit on a window longer than 60 s is not tested (why, how to test it)". */
function outsideHorizon(h: ProofHorizon): string {
  return (
    `a limit on a window longer than ${formatNumber(h.covers_window_s, Number.isInteger(h.covers_window_s) ? 0 : 1)} s is not tested` +
    (h.not_tested ? ` (${h.not_tested})` : '')
  );
}

/**
 * The sustained rate for the terminal's closing line, with how long the probe that measured it ran
 * ("~50 req/s sustained, measured over 15 s of probing"): a rate seen for seconds is no promise for
 * an hour. None identified is said in words, never a placeholder. When an announced limit set it,
 * the probing span goes with the rate the probe measured, not with the announced one.
 */
export function closingSustainedText(
  r: Pick<
    RateLimitResult,
    | 'sustained_rps'
    | 'duration_s'
    | 'sustained_announced'
    | 'sustained_held'
    | 'identified_with_rounds'
    | 'served_rps'
    | 'limiting_status'
  >,
): string {
  if (r.sustained_rps === null) return 'sustained rate not identified';
  // A limit faster than the service behind it: the pace that sized the recommendation goes beside it.
  // With nothing refused (a limit that delays), that pace is all that was met: a 429 above it was not.
  const served =
    r.served_rps === undefined
      ? ''
      : r.limiting_status === null
        ? `; no 429 was met: the service answered no faster than ${r.served_rps} req/s, and a 429 limit above that is not tested`
        : `; the service answered at only ${r.served_rps} req/s`;
  return limitSustainedText({ ...r, sustained_rps: r.sustained_rps }) + served;
}

/** The closing line's rate of the limit itself: held, identified with the rounds, measured or announced. */
function limitSustainedText(
  r: Pick<
    RateLimitResult,
    'sustained_rps' | 'duration_s' | 'sustained_announced' | 'sustained_held' | 'identified_with_rounds'
  > & { sustained_rps: number },
): string {
  // Held by k6 rounds, not measured by the probe: no "~", and the rounds' span, not the probe's.
  if (r.sustained_held) return `${r.sustained_rps} req/s sustained, ${heldText(r.sustained_held, (n) => `${n} req/s`)}`;
  const over = r.duration_s === undefined ? '' : ` over ${formatSeconds(r.duration_s)} of probing`;
  const a = r.sustained_announced;
  // A limit of a set the proof rounds met (a per-minute window behind a per-second bucket): the
  // probe's seconds alone did not measure it.
  const rounds = r.identified_with_rounds;
  if (!a && rounds !== undefined) {
    const probing = r.duration_s === undefined ? 'the probe' : `${formatSeconds(r.duration_s)} of probing`;
    return `~${r.sustained_rps} req/s sustained, identified from ${probing} and ${rounds} k6 proof round${rounds === 1 ? '' : 's'}`;
  }
  if (!a) return `~${r.sustained_rps} req/s sustained${over === '' ? '' : `, measured${over}`}`;
  const said = a.agrees === false ? 'disagreeing with what the probe saw' : 'not proven';
  return `~${r.sustained_rps} req/s sustained (announced ${a.limit} per ${a.window_s} s, ${said}; measured ${a.measured_rps} req/s${over} for one limit of several)`;
}

/** "; <recommendationScope>", or nothing when there is none to add. */
export function scopeClause(r: RateLimitResult): string {
  const scope = recommendationScope(r);
  return scope === null ? '' : `; ${scope}`;
}

/** A recommendation no k6 round ran for: it holds over no stated time. */
export const NO_PROOF_SCOPE =
  "not proven: no k6 proof ran, so it holds over no stated horizon (the report's notes say why, and how to get one)";

/**
 * The scope of the recommendation, said beside it wherever it leads (the Recommendation of every
 * format, the terminal's closing line): how long the proof held it and what a longer window leaves
 * untested, or that no proof ran. When it is not proven within the horizon the recommendation says
 * why itself (unprovenText); only what the horizon leaves out is added. Null with no recommendation.
 */
export function recommendationScope(r: RateLimitResult): string | null {
  if (!r.recommendation) return null;
  if (r.proof_horizon) return r.proof_unproven ? outsideHorizon(r.proof_horizon) : horizonText(r.proof_horizon);
  if (r.proof_unproven) return null;
  return noProofRan(r) ? NO_PROOF_SCOPE : HORIZON_UNRECORDED;
}

/**
 * A recommendation no k6 round ran for: no proof, or one not run. A proof that ran yet records no
 * horizon (a report written before horizons were) is never "no proof".
 */
export const noProofRan = (r: RateLimitResult): boolean =>
  r.recommendation !== null &&
  r.proof_horizon === undefined &&
  !r.proof_unproven &&
  !(r.proof && r.proof_verdict !== 'not run');

/** A proof whose length the report does not record: a limit on any window longer than that is not tested. */
export const HORIZON_UNRECORDED =
  'proven over a horizon this report does not record: a limit on a window longer than its proof is not tested';

/** One line: what the service announced, and whether the probe's measurement agreed. */
export function advertisedText(a: AdvertisedLimit): string {
  const verdict =
    a.agrees === true
      ? 'agrees with the measurement'
      : a.agrees === false
        ? 'DISAGREES with the measurement'
        : 'not verified';
  return `${a.limit} per ${a.window_s === null ? 'window' : `${a.window_s} s`} (${a.source_header}): ${verdict} (${a.note})`;
}

/**
 * Why a recommendation is not proven within the horizon, and how to prove it, in one clause: the
 * burst outlasts the round, or the round ends within the fifth more a round must offer past it.
 */
export function unprovenText(u: ProofUnproven): string {
  const sent = Math.round(u.target_rps * u.round_s);
  const round = `a ${formatNumber(u.round_s)} s round at ${formatRate(u.target_rps)} (${formatNumber(sent)} requests)`;
  const burst = `the burst of ${formatNumber(u.burst)} requests`;
  const why =
    u.burst_from_idle === false
      ? `the burst was not measured from idle (the probe read ${formatNumber(u.burst)} requests, a lower bound) and ${round} cannot be shown to outlast it`
      : sent <= u.burst
        ? `${burst} outlasts ${round}`
        : `${round} ends within a fifth of ${burst}`;
  const more = u.burst_from_idle === false ? ' or more' : '';
  return (
    `not proven within this horizon: ${why}, so its hold proves nothing about the rate; ` +
    `\`ratelimit --horizon ${u.needed_horizon_s}\`${more} runs a round that outlasts it`
  );
}

/**
 * The rate limit in the report's summary, beside the check counts: the rate a client may send and
 * the scope it was proven over, or that nothing was recommended (the Rate limit section says why).
 */
export function rateLimitSummary(r: RateLimitResult): string {
  const rec = r.recommendation;
  if (rec === null) return r.proof_verdict === 'not proven' ? 'nothing recommended: not proven' : 'nothing recommended';
  return `send at most ${formatRate(rec.target_rps)}${scopeClause(r)}`;
}

export function recommendationText(r: RateLimitResult): string {
  const rec = r.recommendation;
  if (rec === null && r.proof_verdict === 'not proven')
    return `none: not proven, no policy tried kept its promise in ${formatNumber(r.proof_rounds?.length ?? 0)} k6 proof rounds`;
  if (rec === null) return 'none: the probe found nothing to size a client by';
  return (
    (r.proof_unproven ? `${unprovenText(r.proof_unproven)}; unproven, ` : '') +
    `send at most ${formatRate(rec.target_rps)} with at most ${formatNumber(rec.max_concurrency)} request${rec.max_concurrency === 1 ? '' : 's'} in flight; ` +
    `on 429 honour Retry-After, else retry with ${backoffText(rec.backoff)}` +
    // Its scope beside it: over what horizon it held, what that leaves untested.
    scopeClause(r)
  );
}

export function proofText(r: RateLimitResult): string | null {
  const rounds = r.proof_rounds ?? [];
  // Several rounds, or one that failed: each with its rate and verdict, so the lowering shows.
  if (rounds.length > 1 || (rounds.length === 1 && r.proof_verdict !== 'proven'))
    return rounds.map((round, i) => `round ${i + 1} ${proofRoundText(round)}`).join('; ');
  const p = r.proof;
  if (!p) return null;
  const unproven = r.proof_verdict === 'not run' ? ' (no proof ran)' : '';
  return `${formatPercent(p.rate_429)} of requests got 429, goodput ${formatRate(p.goodput_rps)}, ${formatNumber(p.lost_requests)} requests lost${unproven}`;
}

/** One proof round in a line: "at 40 req/s: 25.1 % 429, goodput 29.9 req/s, 0 lost: fails (…)". */
export function proofRoundText(round: ProofRound): string {
  const began =
    round.refusals_began_s === undefined ? '' : `, refusals from ${formatNumber(round.refusals_began_s, 1)} s`;
  // A round cut short once it had failed: its figures are over what it ran.
  const cut = round.cut_at_s === undefined ? '' : `, cut short after ${formatNumber(round.cut_at_s, 1)} s`;
  const figures = `${formatPercent(round.rate_429)} 429, goodput ${formatRate(round.goodput_rps)}, ${formatNumber(round.lost_requests)} lost${began}${cut}`;
  // A search's scout (search-loop.ts) ran shorter than the horizon: its hold is said as no proof.
  const scout =
    round.scout_s === undefined
      ? ''
      : ` a ${formatNumber(round.scout_s)} s scout${round.verdict === 'holds' ? ', not the horizon' : ''}`;
  return `at ${formatRate(round.target_rps)}:${scout ? `${scout}:` : ''} ${figures}: ${round.verdict}${round.verdict === 'holds' ? '' : ` (${round.why})`}`;
}
