// A limiter no detector identifies still has a rate a client can rely on (issue 35 item 4: the
// headline is the highest paced rate that holds over the horizon). When the probe names no kind,
// what it saw still brackets that rate: the drain, paced from rest, was refused, so no rate as high
// is sustained; what the probe got through over its whole run is where paced proof rounds start
// their search (proof-loop.ts climbs from a hold and bisects below a failure). Pure: the samples
// in, the bracket out.

import { round } from './estimators.js';
import { MIN_PROOF_RPS, refutes } from './proof-loop.js';
import { HEADROOM, announcedCeiling, policyAt, roundedRate } from './recommend.js';
import type { Estimate, ProbeHold, RateBracket, Recommendation, Sample } from './types.js';
import type { ProofHorizon, ProofRound, SustainedHeld } from '../report/model.js';
import { SEARCH_HEADROOM, storeMatters, surePastStore } from './search-loop.js';
import { headlineHeldRps, heldAtRps, heldFigures, heldRps, lowestFailedOn429, sentArrivals } from './refuted.js';
import { lineBelow, lineText, quotaLine } from './quota-line.js';
import { queuedPaceNote, type QueuedPace } from './probe/queued-pace.js';

/**
 * The bracket from the probe's samples, or null when the drain was never refused (nothing to
 * bracket) or too short to time. The low end is no floor: a limit that counts only what it admits
 * gives a saturating probe its burst on top of its rate, so a round there may fail, and the loop
 * then lowers it from what that round let through; one that counts refusals too is held shut by
 * the probe's own pings, so what got through is below its rate, and the loop climbs from a hold.
 */
export function rateBracket(samples: readonly Sample[]): RateBracket | null {
  const own = samples.filter((s) => s.client === 'primary' && s.answer !== 'error').sort((a, b) => a.sentMs - b.sentMs);
  const drain = own.filter((s) => s.phase === 'drain');
  const refusedAt = drain.findIndex((s) => s.answer === 'limited');
  if (refusedAt < 1) return null;
  const paceS = (drain[refusedAt]!.sentMs - drain[0]!.sentMs) / 1000;
  if (!(paceS > 0)) return null;
  const high = round(refusedAt / paceS, 2);
  const drained = drain.slice(0, refusedAt).filter((s) => s.answer === 'accepted').length;
  const accepted = own.filter((s) => s.answer === 'accepted').length;
  const spanS = (own.at(-1)!.doneMs - own[0]!.sentMs) / 1000;
  const through = spanS > 0 ? accepted / spanS : 0;
  const low = round(Math.min(Math.max(through, MIN_PROOF_RPS), high / 2), 2);
  const probeHold = longestHoldAfter(drain.slice(refusedAt + 1), drained);
  return {
    low,
    high,
    drained,
    restS: round(longestShutS(own), 1),
    ...(probeHold ? { probeHold } : {}),
    why: [
      `the drain, paced at ${high} req/s from rest, was refused after ${drained} let through: no rate as high is sustained`,
      through >= MIN_PROOF_RPS && low === round(through, 2)
        ? `the probe got ${accepted} requests through in ${round(spanS, 1)} s (${low} req/s): the search starts there, a guess, not a floor`
        : `the search starts at ${low} req/s, the least a round may try below ${high} req/s`,
    ],
  };
}

/**
 * The bracket of a limit that delays instead of refusing (probe/queued-pace.ts): no rate as high as
 * the pace the service answered at is sustained without a line that only grows, and the search
 * starts its headroom below it. Nothing was let through ahead of a refusal, so there is no burst to
 * outlast; a round waits for the line the probe left to empty, as long as its last answer waited.
 */
export function queuedBracket(q: QueuedPace): RateBracket {
  return {
    low: round(Math.max(MIN_PROOF_RPS, q.servedRps * (1 - HEADROOM)), 2),
    high: q.servedRps,
    drained: 0,
    restS: round(Math.ceil(q.lastMs / 100) / 10, 1),
    why: [queuedPaceNote(q)],
    lineFirstMs: q.firstMs,
  };
}

/**
 * Of the runs of `after` (the drain's answers after its first refusal, in order) that the limit let
 * through whole, the one that proves the most past `store` (search-loop.ts surePastStore: a store of
 * S lets through S + R·D in D seconds), when it let through more than that store; null otherwise.
 * After a refusal the limit is spent, so a run proves its rate less the store whatever the kind: a
 * bucket of 110/s behind a service taking 125 a second, met by the first drain, let the second,
 * paced at 100, through whole (discover.ts drainAgainSlower).
 */
function longestHoldAfter(after: readonly Sample[], store: number): ProbeHold | null {
  let best: { hold: ProbeHold; proves: number } | null = null;
  let from = 0;
  for (let i = 0; i <= after.length; i++) {
    // A pause in the sending (the wait before a second drain) ends a run too: over it, the run's
    // requests would prove less.
    const paused = i > from && after[i] !== undefined && after[i]!.sentMs - after[i - 1]!.sentMs > PAUSE_FLOOR_MS;
    if (after[i]?.answer === 'accepted' && !paused) continue;
    const requests = i - from;
    const s = requests > 0 ? (after[i - 1]!.doneMs - after[from]!.sentMs) / 1000 : 0;
    const proves = s > 0 ? (requests - store) / s : 0;
    if (requests > store && proves > (best?.proves ?? 0)) best = { hold: { requests, s: round(s, 2) }, proves };
    from = paused && after[i]!.answer === 'accepted' ? i : i + 1;
  }
  return best?.hold ?? null;
}

/**
 * From each refusal that follows an acceptance to the next acceptance, the longest, seconds (to the
 * last answer when none came): as long as the probe saw the limit shut. A spell ends at its last
 * refusal instead when the acceptance came after a pause longer than twice the spell's own gaps
 * (at least PAUSE_FLOOR_MS): the probe sent nothing meanwhile (a wait for a refill, a Retry-After
 * watched), and the limit may have reopened at the pause's start. A sliding log of 50 per 1 s across
 * a network, its 17 s wait for a misread window taken for a shut spell, was scouted 18 s at a time
 * over a 35 s horizon (CI, land34b).
 */
function longestShutS(own: readonly Sample[]): number {
  let longest = 0;
  let spell = null as { fromMs: number; lastMs: number; gapMs: number } | null;
  for (const s of own) {
    if (s.answer === 'limited') {
      spell = spell
        ? { ...spell, lastMs: s.sentMs, gapMs: Math.max(spell.gapMs, s.sentMs - spell.lastMs) }
        : { fromMs: s.sentMs, lastMs: s.sentMs, gapMs: 0 };
      continue;
    }
    if (spell === null) continue;
    const paused = s.sentMs - spell.lastMs > 2 * Math.max(spell.gapMs, PAUSE_FLOOR_MS);
    longest = Math.max(longest, (paused ? spell.lastMs : s.sentMs) - spell.fromMs);
    spell = null;
  }
  if (spell !== null) longest = Math.max(longest, own.at(-1)!.doneMs - spell.fromMs);
  return longest / 1000;
}

/**
 * Half the shortest pause after a shut spell's last refusal taken for the probe's own wait, ms: its
 * pings go closer. At 250 or 500 the counters of 30 per 1 s and 600 per 60 s, their minute spent
 * by the probe, had their refusals' spell cut at a wait the minute's shut filled, and the search
 * began lower and was given 72 % of the rate.
 */
const PAUSE_FLOOR_MS = 1000;

/**
 * The first policy of the search at the bracket's low end, sized from what the probe measured (no
 * figure of a limiter it did not identify), or null when there is no bracket.
 */
export function searchStart(estimate: Estimate): Recommendation | null {
  const bracket = estimate.rate_bracket;
  if (!bracket) return null;
  const ceiling = announcedCeiling(estimate);
  const below = ceiling !== null && ceiling.rps * (1 - HEADROOM) < bracket.low;
  const target = roundedRate(below ? ceiling.rps * (1 - HEADROOM) : bracket.low);
  const announced = below
    ? `; ${Math.round(HEADROOM * 100)} % below the ${round(ceiling.rps, 2)} req/s announced as ${ceiling.limit.limit} per ${ceiling.limit.window_s} s (${ceiling.limit.source_header}, not verified), which no round passes`
    : '';
  // Kept as the loop's first step, so a round sized again at a rate it climbed to still says why it began here.
  const steps = [
    `target ${target} req/s: the limiter was not identified, so paced k6 rounds search for the highest rate that holds; ${bracket.why.join('; ')}${announced}`,
  ];
  return { ...policyAt(estimate, target, steps), steps };
}

/**
 * What a search's rounds say of the rate, for the report's notes: what the scouts (shorter than the
 * horizon, search-loop.ts) tried, the rate that held over the whole horizon (the sustained rate
 * reported, the policy given below it), and below which rate the limit lies (the lowest refused),
 * or that nothing above the hold was refused; with no hold over the horizon (no policy to carry its
 * reasons), where the bracket began it and why.
 */
export function searchSaid(
  rounds: readonly Pick<
    ProofRound,
    'target_rps' | 'verdict' | 'scout_s' | 'rate_429' | 'refusals_began_s' | 'dropped_arrivals' | 'arrivals'
  >[],
  bracket: Pick<RateBracket, 'why'> & Partial<Pick<RateBracket, 'high'>>,
  ceiling: ReturnType<typeof announcedCeiling> = null,
): string {
  const full = rounds.filter((r) => r.scout_s === undefined);
  const holds = full.filter((r) => r.verdict === 'holds');
  const best = holds.length > 0 ? Math.max(...holds.map(heldAtRps)) : null;
  // The hold as sent: a round k6 could not pace at its target proves what it sent (heldAtRps).
  const short = holds.find((r) => heldAtRps(r) === best && r.target_rps !== best);
  const bestSaid = short
    ? `${best} req/s (paced at ${short.target_rps}, k6 sent ${best}: it dropped ${short.dropped_arrivals} of ${short.arrivals} arrivals with every call the policy allows at once busy)`
    : `${best} req/s`;
  const lowest = lowestFailedOn429(rounds);
  const below = lowest?.target_rps ?? null;
  const scouts = rounds.filter((r) => r.scout_s !== undefined);
  const scouted =
    scouts.length === 0
      ? ''
      : `; scouting rounds shorter than the horizon looked for it (${scouts.map((r) => `${r.target_rps} req/s over ${r.scout_s} s: ${r.verdict}`).join(', ')}), a scout's hold proving no rate`;
  const where =
    below !== null
      ? `a round paced at ${below} req/s ${refutes(lowest!) ? 'was refused' : 'met 429s and failed'}`
      : (cappedBy(ceiling, bracket) ??
        'no round above it was refused within the rounds allowed, so the limit may lie well above it');
  const head = 'paced search (the limiter was not identified)';
  const line = lineBelow(rounds, best);
  if (line)
    return `${head}: ${bestSaid} held over the proof's whole horizon on what the limit stored: ${lineText(line)}, the sustained rate a client running longer meets, the policy given ${Math.round(SEARCH_HEADROOM * 100)} % below it; ${where}${scouted}; the limiter's kind is not reported`;
  return best === null
    ? `${head}: no rate held over the proof's whole horizon in ${rounds.length} round${rounds.length === 1 ? '' : 's'}${below !== null ? `; refused down to ${below} req/s` : ''}${scouted}; it began where the probe pointed: ${bracket.why.join('; ')}`
    : `${head}: ${bestSaid} held over the proof's whole horizon, the highest rate found that does: the sustained rate a client can rely on, the policy given ${Math.round(SEARCH_HEADROOM * 100)} % below it; ${where}${scouted}; the limiter's kind is not reported`;
}

/**
 * Why no round above the hold was refused when the search's top was a limit announced and not
 * verified (searchTop): no round went past it, as no client paced by the policy should, so the
 * search did not look above it. Null when the announcement was not the top (the drain's pace was).
 */
function cappedBy(
  ceiling: ReturnType<typeof announcedCeiling>,
  bracket: Partial<Pick<RateBracket, 'high'>>,
): string | null {
  if (ceiling === null || !(ceiling.rps < (bracket.high ?? Infinity))) return null;
  const { limit, window_s, source_header } = ceiling.limit;
  return `no round was refused, and none went above ${round(ceiling.rps, 2)} req/s, announced as ${limit} per ${window_s} s (${source_header}, not verified), which a client must not pass either: the limit was not looked for above it`;
}

/**
 * The rate no round of a search reaches: the drain's pace, or lower, a limit announced and not
 * verified (recommend.ts announcedCeiling): a client paced above it is refused an hour into its run.
 */
export function searchTop(estimate: Pick<Estimate, 'advertised' | 'announced'>, bracket: RateBracket): number {
  return Math.min(bracket.high, announcedCeiling(estimate)?.rps ?? Infinity);
}

/**
 * The burst a search's round starts with: what the drain let through before its first refusal,
 * measured from idle. The drain is the probe's first phase, so it met the limit at rest as far as
 * this client knows, and each round waits as long as the probe saw the limit stay shut. Left at
 * the estimate's "not from idle" (no burst read), every round would be held to an unknown burst and
 * judged inconclusive whatever it offered: HAProxy's 50 per 10 s on the real bench, a round of 384
 * requests at 3.2 req/s after a drain that let 47 through.
 */
export const searchBurst = (bracket: Pick<RateBracket, 'drained'>): { burst: number; burstFromIdle: true } => ({
  burst: bracket.drained,
  burstFromIdle: true,
});

/**
 * How long a search's round rests first, seconds: as long as the probe saw the limit stay shut, and
 * when a round of `roundS` at the search's first rate offers less than 1 / SEARCH_HEADROOM times
 * what the drain found stored (the store moves its outcome by more than that share), long enough for
 * that store to come back at that rate too, so every round meets the limit as a new client does and
 * their refusals lie on one line (quota-line.ts). A bucket of 50 per second, searched over 5 s
 * rounds with half a second's rest began rounds on a store the round before had drawn down,
 * refused them early, and read the refill 10 % high or not at all (56 to 58 req/s held on the
 * store stood as sustained).
 */
export function searchRestS(bracket: Pick<RateBracket, 'restS' | 'drained' | 'low'>, roundS: number): number {
  const refill = storeMatters(bracket.low * roundS, bracket.drained) ? bracket.drained / bracket.low : 0;
  return round(Math.max(bracket.restS, refill), 1);
}

/**
 * A search's round after one that held over its whole length, every request let through, the store
 * outlasted (search-loop.ts afterHold), rests at most this long, seconds: for k6's first arrivals,
 * which come bunched, and the answers still in flight. Such a hold left the limit no emptier than a
 * client paced at the next, higher rate leaves it: a bucket refilled faster than it was drawn, and
 * no window of a log or a counter held more than that rate's share. Before, such rounds rested the
 * probe's whole settle time (8.4 s a round after holds at 24 to 52 req/s: CI 48a's cutover, still
 * searching at its 240 s), as the virtual twin of the search never did.
 */
export const AFTER_HOLD_REST_S = 1;

/**
 * How long a search's round rests first, seconds: `settledS` (the stage's settle time) after a hold
 * (AFTER_HOLD_REST_S at most), else until the limit is as a new client meets it (searchRestS).
 */
export function searchRoundRestS(
  bracket: Pick<RateBracket, 'restS' | 'drained' | 'low'>,
  { settledS, afterHold, roundS }: { settledS: number; afterHold: boolean; roundS: number },
): number {
  return afterHold ? Math.min(settledS, AFTER_HOLD_REST_S) : Math.max(settledS, searchRestS(bracket, roundS));
}

/**
 * The rate a search held, when it heads the report as the sustained rate (issue 35 item 4: the
 * headline is what holds; the kind only explains it): the limiter stays unidentified (`estimate`
 * as the rounds left it, refuted.ts), the search gave a policy a full round proved (a scout's hold
 * proves nothing), and the rounds bracketed the limit, the lowest rate refused within
 * HELD_BRACKET_RATIO of the hold (a floor further below it is no rate a client learns the limit
 * from). Null otherwise: then nothing was sized, and the stage says the rate limit is not tested.
 */
export function searchHeld(
  estimate: Pick<Estimate, 'rate_bracket' | 'limiter'>,
  proving: { verdict: string; rounds: readonly ProofRound[]; horizon?: ProofHorizon },
): { rps: number; held: SustainedHeld } | null {
  if (estimate.rate_bracket === undefined || (estimate.limiter ?? null) !== null) return null;
  if (proving.verdict !== 'proven' || proving.horizon === undefined) return null;
  // A search's holds are judged on their own: a refused round's after-rate bounds none (refuted.ts).
  const rps = heldRps(proving.rounds, Infinity);
  if (rps === null || headlineHeldRps(proving.rounds, rps) === null) return null;
  const held = heldFigures(proving.rounds, rps, proving.horizon.proven_s);
  // A hold on what the limit stored is no rate a client running longer keeps: the refill is (quota-line.ts).
  const line = lineBelow(proving.rounds, rps);
  if (line === null) {
    // With no line at all, a hold that offered too little may have lived on the store (search-loop.ts).
    // Over the hold's own round, as the policy was given (search-loop.ts givenPastStore).
    const round = proving.rounds.find((r) => r.verdict === 'holds' && r.scout_s === undefined && heldAtRps(r) === rps);
    const { drained, probeHold } = estimate.rate_bracket;
    // What it sent, at the rate it sent it (search-loop.ts givenPastStore reads it alike).
    const sent = round?.arrivals === undefined ? undefined : sentArrivals(round);
    const sure =
      quotaLine(proving.rounds) === null && sent !== undefined
        ? surePastStore(sent, sent / rps, drained, probeHold)
        : null;
    return { rps, held: sure === null ? held : { ...held, past_store: { stored: drained, ...sure } } };
  }
  // The line's figures, not the points they were read off (the notes say those).
  const { points: _read, ...figures } = line;
  const quota_line = { held_rps: rps, ...figures };
  return { rps: line.refill_rps, held: { ...held, quota_line } };
}
