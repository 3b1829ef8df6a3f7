// Never report what was refuted. The probe's reading of the limiter (its kind, rate and refill) is
// a claim; a k6 proof round at a rate below it that saw the limit refuse more than the promise
// allows refutes it: a limiter that admits that rate would not have refused. The reading then goes
// from every output, and what the proofs showed takes its place: the highest rate that held (a
// floor a client can rely on) and what each round saw. Pure: the estimate in, the estimate the
// report may carry out.

import type { AdvertisedLimit, ProofHorizon, ProofRound, SustainedHeld } from '../report/model.js';
import { describeLimiter, sustainedRate, type LimiterModel, type LimiterSet } from './limiters/index.js';
import { NOT_IDENTIFIED } from './evidence.js';
import { burstNoteWithoutRefill } from './probe/idle-burst.js';
import { QUOTA_AFTER_S, refutes, refutingRounds } from './proof-loop.js';
import { announcedCeiling } from './recommend.js';
import { heldOnStoreText, lineBelow, type QuotaLine } from './quota-line.js';
import { announcedSlack, type StackVerdict } from './stacked-inference.js';
import type { Estimate, Recommendation } from './types.js';

export { refutingRounds } from './proof-loop.js';

/**
 * The lowest rate a failed round's limit let through once a quota was spent: a hold above it held
 * on the quota for the proof's length, not on the rate, so it proves nothing for a longer client.
 */
export const quotaCeilingRps = (rounds: readonly ProofRound[]): number | null => {
  const after = rounds.flatMap((r) =>
    r.verdict === 'fails' && r.after_quota_rps !== undefined ? [r.after_quota_rps] : [],
  );
  return after.length > 0 ? Math.min(...after) : null;
};

/**
 * The highest rate a round held at that no quota seen refutes, or null when none did. `identifiedRps`:
 * what the inference bounds the limit by from all the evidence (inferredCeiling: a set identified,
 * or the highest of the sets that all explain every round), which explains the quota (a window's
 * edges read what passed after it low) and so takes its place as the ceiling, as in the proof loop.
 */
export const heldRps = (rounds: readonly ProofRound[], identifiedRps?: number): number | null => {
  const ceiling = identifiedRps ?? quotaCeilingRps(rounds) ?? Infinity;
  // A search's scout held for less than the horizon (search-loop.ts): no rate a client relies on.
  const held = rounds
    .filter((r) => r.verdict === 'holds' && r.scout_s === undefined && heldAtRps(r) <= ceiling)
    .map(heldAtRps);
  return held.length > 0 ? Math.max(...held) : null;
};

/**
 * The rate a round that held proves: its target, or as much of it as k6 sent when it dropped
 * arrivals for want of a free VU (the policy's calls at once all busy at the latency met; a hold
 * drops at most the promise's share only once refusals began), floored to 0.01 req/s. A hold
 * proves only what reached the limit: across 50 ± 10 ms a round paced at 51 req/s with 6 calls at
 * once dropped 16 of its 255 arrivals and held, 47.8 req/s sent, and "51 req/s held" headed the
 * report of a window of 50 per second (CI 53b).
 */
export const heldAtRps = (r: Pick<ProofRound, 'target_rps' | 'dropped_arrivals' | 'arrivals'>): number =>
  r.dropped_arrivals && r.arrivals
    ? Math.floor(((r.target_rps * sentArrivals(r)) / r.arrivals) * 100) / 100
    : r.target_rps;

/** The arrivals a round sent: those it was to send less those k6 dropped (0 when it did not say). */
export const sentArrivals = (r: Pick<ProofRound, 'dropped_arrivals' | 'arrivals'>): number =>
  (r.arrivals ?? 0) - (r.dropped_arrivals ?? 0);

/**
 * The ceiling the inference puts on a hold in place of a quota's after-rate: the sustained rate of
 * the set it identified, or the highest of the sets that all explain every round (the quota's round
 * among them: what a window let through after it reads low), as the proof loop judges its holds
 * (proof-loop.ts givenFromHold). Undefined when it explained nothing.
 */
const inferredCeiling = (stack: StackVerdict): number | undefined =>
  stack === null ? undefined : 'set' in stack ? stack.sustained_rps : stack.spanRps?.high;

/**
 * A rate that held is the headline only when the lowest rate that failed is within this factor of
 * it: then the rounds bracketed the sustained rate. Further apart, it is a floor the rounds never
 * brought up to the limit (HAProxy's http_req_rate(500ms) 40, true 80 req/s: 61 failed, 0.54 held
 * under a quota ceiling that a client shut out by its own retries read, and 0.54 was reported as
 * the sustained rate, 99.3 % off). Bisection halves the bracket each round, so a loop that had
 * its rounds reaches it.
 */
export const HELD_BRACKET_RATIO = 2;

/**
 * The slowest round above `aboveRps` that met 429s and failed, whether it refuted (more 429s than
 * the promise allows) or fell behind its rate or lost calls waiting fewer out: a client paced there
 * is not served either way, and "no round above it was refused" would deny what it saw (the bench's bucket of
 * 100/s before a window of 200 per 10 s: 20 req/s held, 25, 22 and 21 met 0.56-0.85 % 429 and
 * dropped arrivals). A round that failed with no 429 bounds no limit. Null when none did.
 */
export function lowestFailedOn429<R extends Pick<ProofRound, 'target_rps' | 'verdict' | 'rate_429'>>(
  rounds: readonly R[],
  aboveRps = 0,
): R | null {
  const met = rounds.filter((r) => r.verdict === 'fails' && r.rate_429 > 0 && r.target_rps > aboveRps);
  return met.length > 0 ? met.reduce((a, b) => (b.target_rps < a.target_rps ? b : a)) : null;
}

/** The lowest rate a refuting round failed at, or null when none refuted. */
export const lowestRefutingRps = (rounds: readonly ProofRound[]): number | null => {
  const failed = refutingRounds(rounds).map((r) => r.target_rps);
  return failed.length > 0 ? Math.min(...failed) : null;
};

/**
 * What k6 rounds showed of a rate `rps` that held over `heldS` seconds, for the report to say it as
 * held (RateLimitResult.sustained_held): the lowest rate refused, and a slower one that met 429s and
 * failed without refuting, if any.
 */
export function heldFigures(rounds: readonly ProofRound[], rps: number, heldS: number): SustainedHeld {
  const above = lowestFailedOn429(rounds, rps);
  const met = above !== null && !refutes(above) ? above.target_rps : undefined;
  return { held_s: heldS, refused_rps: lowestRefutingRps(rounds), ...(met !== undefined && { met_429_rps: met }) };
}

/**
 * The rate that heads the report once proof rounds refuted the probe's reading and no set of limits
 * took its place (withoutRefuted): the highest that held over the horizon, said as held by k6
 * rounds in every format, as a search's is (rate-bracket.ts searchHeld). Before, the terminal said
 * "~4.9 req/s sustained, measured over 17 s of probing" for a rate no probe measured: a queue of
 * 10/s before a log of 300 per 60 s, the queue refuted at 7.9 req/s, 4.9 held for 120 s. Null when
 * nothing was refuted, the probe named no kind (a search: searchHeld), a set was identified,
 * nothing held, or an announced limit binds below the hold (then that limit heads the report).
 */
export function refutedHeld(
  probed: Pick<Estimate, 'limiter'>,
  standing: Pick<Estimate, 'limiter' | 'sustained_rps' | 'advertised' | 'announced'>,
  proving: { verdict: string; rounds: readonly ProofRound[]; horizon?: ProofHorizon },
): { rps: number; held: SustainedHeld } | null {
  const rps = standing.sustained_rps;
  if (probed.limiter === null || standing.limiter !== null || rps === null) return null;
  if (proving.verdict !== 'proven' || proving.horizon === undefined || refutingRounds(proving.rounds).length === 0)
    return null;
  if (rps !== heldRps(proving.rounds, Infinity)) return null;
  const ceiling = announcedCeiling(standing);
  if (ceiling !== null && ceiling.rps < rps) return null;
  return { rps, held: heldFigures(proving.rounds, rps, proving.horizon.proven_s) };
}

/**
 * The rate that held when it may head the report (the rounds bracketed the limit, or the rounds and
 * `ceiling`, the inference's bound on it: inferredCeiling), else null.
 */
export const headlineHeldRps = (
  rounds: readonly ProofRound[],
  held: number | null,
  ceiling: number = Infinity,
): number | null => {
  const refused = lowestRefutingRps(rounds);
  const failed = refused === null ? null : Math.min(refused, ceiling);
  return held !== null && failed !== null && held * HELD_BRACKET_RATIO < failed ? null : held;
};

/**
 * The estimate with a refuted reading removed: no limiter, no sustained rate but the one that held,
 * no refill of the refuted model, no burst reckoned at its rate, an announcement that agreed with it no longer "agrees", and no
 * note that repeats the refuted figures. Unchanged when no round refuted it. `stack`: what the
 * stacked-limit inference made of all the evidence (stacked-inference.ts): a set it identified
 * takes the refuted reading's place (every limit, the sustained rate the lowest's), since it
 * explains every round, those that held included; a set it could not claim is said with why.
 */
export function withoutRefuted(
  estimate: Estimate,
  rounds: readonly ProofRound[],
  stack: StackVerdict = null,
): Estimate {
  const refuting = refutingRounds(rounds);
  if (refuting.length === 0) return estimate;
  const repeats = refutedTexts(estimate);
  const quotes = (n: string) => repeats.some((t) => t.test(n));
  // A search for the rate of a limiter not identified (rate-bracket.ts): no reading was refuted.
  const searched = estimate.rate_bracket !== undefined && estimate.limiter === null;
  // Judged as the loop judged its holds: a refused round's after-rate bounds none (proof-loop.ts).
  const ceiling = searched ? Infinity : inferredCeiling(stack);
  const held = heldRps(rounds, ceiling);
  const refutedBy = refuting
    .map((r) => `${r.target_rps} req/s (${(r.rate_429 * 100).toFixed(1)} % got 429)`)
    .join(', ');
  const saw = rounds
    .map(
      (r, i) =>
        `round ${i + 1} at ${r.target_rps} req/s: ${(r.rate_429 * 100).toFixed(1)} % 429, ${r.verdict}${r.scout_s !== undefined ? ` (a ${r.scout_s} s scout)` : ''}`,
    )
    .join('; ');
  const bracketed = headlineHeldRps(rounds, held, ceiling);
  // A search's hold on what the limit stored gives way to the refill its refused rounds lie on (quota-line.ts).
  const onLine = searched ? lineBelow(rounds, bracketed) : null;
  const headline = onLine ? onLine.refill_rps : bracketed;
  const verdict = searched
    ? searchVerdict(refutedBy, held, headline, saw, onLine)
    : held === null
      ? `${NOT_IDENTIFIED}the probe's reading of the limiter was refuted by k6 proofs at ${refutedBy}, and no rate held (${saw}); it is not reported`
      : headline === null
        ? `${NOT_IDENTIFIED}the probe's reading of the limiter was refuted by k6 proofs at ${refutedBy} and is not reported; ` +
          `${held} req/s held over the proof's horizon, a floor more than ${HELD_BRACKET_RATIO} times below the lowest rate that failed, ` +
          `so the sustained rate lies between them, not measured (${saw})`
        : `the probe's reading of the limiter was refuted by k6 proofs at ${refutedBy} and is not reported; ` +
          `the sustained rate is the highest that held over the proof's horizon, ${held} req/s, a floor (${saw})`;
  const quotas = quotaEvidence(rounds, ceiling !== undefined, searched);
  const overHeld = stack && 'set' in stack ? refusedAtOrBelow(stack.sustained_rps, refuting) : null;
  const identified = stack && 'set' in stack && overHeld === null ? stack : null;
  const unclaimed =
    stack && 'why' in stack
      ? [`${NOT_IDENTIFIED}as a set of limits: ${stack.why}`]
      : stack && overHeld
        ? [
            `${NOT_IDENTIFIED}as a set of limits: ${describeLimiter(stack.set)} explains every round, but its ${stack.sustained_rps} req/s is not what holds: a client paced at ${overHeld.target_rps} req/s was refused (${(overHeld.rate_429 * 100).toFixed(1)} % got 429)`,
          ]
        : [];
  const said = identified
    ? [
        `the probe's reading of the limiter alone was refuted by k6 proofs at ${refutedBy}; it is one of a set of limits, ` +
          `sustained ${identified.sustained_rps} req/s (the lowest limit's); the highest rate that held over the proof's horizon is ${held ?? 'none'} req/s`,
        identified.evidence,
      ]
    : [verdict, ...unclaimed];
  // A set the probe read goes with its reading: only one identified from all the evidence stands.
  const { limiters: _read, ...kept } = estimate;
  return {
    ...kept,
    sustained_rps: identified ? identified.sustained_rps : headline,
    sustained_precision: null,
    refill_s: null,
    // The burst took away what the refuted rate refilled while it passed (burstOf): not identified.
    burst: null,
    limiter: identified ? bindingLimit(identified.set) : null,
    ...(identified ? { limiters: [...identified.set] } : {}),
    limiter_evidence: [...said, ...quotas],
    ...(identified && estimate.announced
      ? { announced: estimate.announced.map((a) => byRounds(a, identified.set)) }
      : {}),
    ...(estimate.advertised && (estimate.advertised.agrees === true || quotes(estimate.advertised.note))
      ? {
          advertised: {
            ...estimate.advertised,
            agrees: null,
            note: 'it matched the probe\u2019s reading, which a k6 proof refuted: another limit, or the announcement is wrong',
          },
        }
      : {}),
    notes: [...estimate.notes.filter((n) => !quotes(n)).map((n) => burstNoteWithoutRefill(n) ?? n), ...said, ...quotas],
  };
}

/**
 * The round that refutes a set's sustained rate: it was paced at or below that rate and refused
 * beyond the promise. The sustained rate is the highest paced rate never refused over the horizon
 * (issue 35), which a set's lowest limit overstates where its windows weigh what came before (HAProxy's
 * interpolated 306 per 60 s, 5.1 req/s, explained a round at 5.1 refused 1.96 %; 4.5 held): the
 * set is then the explanation, not the headline. Null when none did.
 */
const refusedAtOrBelow = (rps: number, refuting: readonly ProofRound[]): ProofRound | null =>
  refuting.filter((r) => r.target_rps <= rps).sort((a, b) => a.target_rps - b.target_rps)[0] ?? null;

/**
 * What paced rounds that searched for the rate of a limiter not identified showed (rate-bracket.ts):
 * no reading to refute, only the rates refused and the highest that held.
 */
function searchVerdict(
  refutedBy: string,
  held: number | null,
  headline: number | null,
  saw: string,
  line: QuotaLine | null,
): string {
  const found =
    held === null
      ? 'no rate held'
      : headline === null
        ? `${held} req/s held over the proof's horizon, a floor more than ${HELD_BRACKET_RATIO} times below the lowest rate refused, so the sustained rate lies between them, not measured`
        : line
          ? `${held} req/s held over the proof's horizon, ${heldOnStoreText(line, held)}; the sustained rate is that refill, ${line.refill_rps} req/s`
          : `the sustained rate is the highest that held over the proof's horizon, ${held} req/s, a floor over that horizon`;
  return `${NOT_IDENTIFIED}no kind explains what the probe saw; paced k6 rounds were refused at ${refutedBy}, and ${found} (${saw})`;
}

/**
 * An announced limit the probe left unproven, set beside the set identified from every round: a
 * window of its length in the set verifies it at its quota (within a count's slack), or disagrees
 * with it, with the count; unchanged when the set has no window of its length.
 */
function byRounds(a: AdvertisedLimit, set: LimiterSet): AdvertisedLimit {
  if (a.agrees !== null || a.window_s === null) return a;
  const same = set.find((m) => m.kind === 'fixed-window' && m.window_s === a.window_s);
  if (same?.kind !== 'fixed-window') return a;
  const from = `identified from the probe and every proof round replayed on one clock: ${describeLimiter(set)}`;
  return Math.abs(same.limit - a.limit) <= announcedSlack(a.limit)
    ? { ...a, agrees: true, note: `verified: ${from}` }
    : {
        ...a,
        agrees: false,
        note: `the proof rounds disagree: ${from}, ${same.limit} per ${a.window_s} s, not the ${a.limit} announced: the announcement ${same.limit < a.limit ? 'overstates' : 'understates'} the limit`,
      };
}

/** The limit of a set that paces a steady client: the lowest rate. */
const bindingLimit = (set: LimiterSet): LimiterModel =>
  set.reduce((low, m) => (sustainedRate(m) < sustainedRate(low) ? m : low));

/**
 * What a round whose refusals began late says: the paced client had about rate × t requests let
 * through before the first refusal, a quota met after that many (a limit on a window longer than t,
 * beside whatever the probe read), where refusals from the start mean the rate itself was too high.
 * `inferred`: the sets of limits the inference left explain that round too, so what passed after
 * the quota bounds no hold (inferredCeiling does): said so, not "no rate held above it counts"
 * beside a headline that held above it (bench, HAProxy tables counting every request: 4 req/s
 * after the quota, 9.5 held and headed the report).
 */
function quotaEvidence(rounds: readonly ProofRound[], inferred: boolean, searched = false): string[] {
  return rounds.flatMap((r, i) =>
    r.verdict === 'fails' && r.refusals_began_s !== undefined && r.refusals_began_s >= QUOTA_AFTER_S
      ? [
          `evidence of a quota: proof round ${i + 1} at ${r.target_rps} req/s had about ${Math.round(r.target_rps * r.refusals_began_s)} requests let through ` +
            `in ${r.refusals_began_s} s before its first refusal, a limit met after that many (on a window longer than ${r.refusals_began_s} s), not a rate refused from the start` +
            (r.after_quota_rps !== undefined
              ? `; after it the limit let ${r.after_quota_rps} req/s through` +
                (searched
                  ? ', by a client its own backoff held back: it bounds no rate that held over a whole round'
                  : inferred
                    ? ', which the sets of limits that explain every round explain too (a window lets little through until its edge): it bounds no rate held'
                    : ', the rate a client running longer meets, so no rate held above it counts')
              : ''),
        ]
      : [],
  );
}

/** The recommendation's reasons without those that quote the refuted reading. */
export function reasonsWithoutRefuted(
  rec: Recommendation,
  estimate: Estimate,
  rounds: readonly ProofRound[],
): Recommendation {
  if (refutingRounds(rounds).length === 0) return rec;
  const repeats = refutedTexts(estimate);
  return { ...rec, why: rec.why.filter((w) => !repeats.some((t) => t.test(w))) };
}

/**
 * How the refuted reading appears in text: the limiter in words, and the sustained rate as the
 * probe wrote it, standing alone (a rate of 2 is not the 2 of "20 %" or of "1.25").
 */
function refutedTexts(estimate: Estimate): RegExp[] {
  const texts: RegExp[] = [];
  if (estimate.limiter) texts.push(new RegExp(escaped(describeLimiter(estimate.limiter))));
  if (estimate.sustained_rps !== null)
    texts.push(new RegExp(`(^|[^\\d.])${escaped(String(estimate.sustained_rps))}(?![\\d]|\\.\\d)`));
  return texts;
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
