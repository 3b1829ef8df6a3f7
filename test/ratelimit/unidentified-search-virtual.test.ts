// A limiter no detector identifies is still sized by what holds (issue 35 item 4): HAProxy's
// http_req_rate(10s) 50 with every request tracked (refused ones counted; true 5 req/s) ends the
// probe "not identified", alone and across a jittered network. Before, the stage stopped there and
// the user got nothing to size a client by. Now the probe records a bracket (rate-bracket.ts) and
// paced proof rounds search it as the stage runs them (src/stages/rate-limit.ts): the probe, then
// the proof loop with each round as k6 runs it against HAProxy (no Retry-After, the calls holding
// their waits), each after the rest the bracket says, all on the virtual clock.

import { describe, expect, it } from 'vitest';
import { proofHolds } from '../../src/ratelimit/proof-loop.js';
import { SCOUT_NARROW, SEARCH_HEADROOM, scoutLengthS, searchUntilHeld } from '../../src/ratelimit/search-loop.js';
import { planRound } from '../../src/ratelimit/proof-reach.js';
import { proofConcurrency, recommend, roundedRate } from '../../src/ratelimit/recommend.js';
import { searchBurst, searchRoundRestS, searchSaid, searchStart, searchTop } from '../../src/ratelimit/rate-bracket.js';
import { refutingRounds, withoutRefuted } from '../../src/ratelimit/refuted.js';
import { standingAfterProof, summaryLines, toRateLimitResult, type Proving } from '../../src/ratelimit/result.js';
import { sizeFleet } from '../../src/ratelimit/fleet/size.js';
import { partialGuess, searchUntested } from '../../src/stages/rate-limit.js';
import { judgedBeforeRounds } from './judged-before-rounds.js';
import { heldRoundS } from '../../src/stages/rate-limit-proof.js';
import { provingVerdict } from '../../src/ratelimit/proof-reach.js';
import { longestKnownWindow, proofHorizon, withShutSpan } from '../../src/ratelimit/horizon.js';
import type { ProofLoopOutcome } from '../../src/ratelimit/proof-loop.js';
import type { Estimate, RateBracket, Recommendation } from '../../src/ratelimit/types.js';
import { buildReport } from '../../src/report/build.js';
import { renderHtml, renderJson, renderJunit, renderMarkdown } from '../../src/report/index.js';
import { verdictWord, type ProofRound, type RateLimitResult, type Report } from '../../src/report/model.js';
import { formatRate } from '../../src/report/common/format.js';
import { plainText, summaryLines as terminalLines } from '../../src/cli/terminal.js';
import { loadFixture } from '../report/helpers.js';
import { expectValidReport } from '../report/schema.js';
import { NOT_IDENTIFIED } from '../../src/ratelimit/evidence.js';
import { sustainedRate, type LimiterModel, type LimiterSet } from '../../src/ratelimit/limiters/index.js';
import {
  discoverVirtual,
  fromModel,
  gcra,
  httprateFront,
  type Limiter,
  type VirtualEndpoint,
} from './virtual-limit.js';
import { k6EndedS, virtualK6Round } from './virtual-proof.js';
import { seeded } from './seeded.js';

const HORIZON_S = 120;
/** The stage's settle when no refill was read (proof-timing.ts). */
const SETTLE_S = 0.5;
const EVERY = {
  kind: 'sliding-window',
  limit: 50,
  period_s: 10,
  counts_refused: true,
  counter: 'interpolated',
} as const;

interface Case {
  seed: number;
  network?: VirtualEndpoint['network'];
  /** The limiter and what it sustains; absent: HAProxy's 50 per 10 s counting every request. */
  limiter?: () => Limiter;
  truthRps?: number;
  /** Refusals carry a Retry-After (httprate); absent: none (HAProxy). */
  retryAfter?: boolean;
  /** The probe's cap, seconds. */
  capS?: number;
  /** The probe's machine busy (virtual-limit.ts `busy`). */
  busy?: VirtualEndpoint['busy'];
  /** The proof's horizon, seconds; absent: HORIZON_S. */
  horizonS?: number;
  /** The probe's estimate as the stage gets it; absent: as the virtual probe read it. */
  read?: (e: Estimate) => Estimate;
  /**
   * The service's work after its check, ms: each answer that much later. Absent: 16 ms for the
   * default HAProxy recipe and none for the others. HAProxy's recipe answered on loopback's few
   * milliseconds is sized from the whole trace (probe/counter-fit.ts, its own test
   * counter-fit-virtual.test.ts); 16 ms later its round trips (18–28 ms) pass the fit's FIT_TRIP_MS
   * (25 ms), as across a network, and it is searched here as before.
   */
  answeredAfterMs?: number;
  /** The service takes one request every `everyMs` (virtual-limit.ts `served`): the probe's and k6's alike wait in line. */
  served?: VirtualEndpoint['served'];
  /** `run`'s short rounds: none lengthened past the horizon to outlast a burst (stages/rate-limit-proof.ts maxRoundS). */
  shortRounds?: boolean;
}

/** `limiter` behind a line taking one request every `everyMs`: each is decided when its turn comes, as k6's calls meet it. */
const inLine = (limiter: Limiter, everyMs: number): Limiter => {
  let upToMs = -Infinity;
  return (nowMs) => limiter((upToMs = Math.max(nowMs, upToMs + everyMs)));
};

/** A limit announced as 30 per 10 s and not verified (3 req/s): a ceiling no search round passes. */
const ANNOUNCED = {
  limit: 30,
  window_s: 10,
  source_header: 'RateLimit-Policy',
  agrees: null,
  note: 'not verified',
};

/** The probe, then the search as the stage runs it; the report's section from both. */
async function searched({
  seed,
  network,
  limiter: make,
  answeredAfterMs = make ? undefined : 16,
  retryAfter,
  capS = 150,
  busy,
  horizonS = HORIZON_S,
  read = (e) => e,
  served,
  shortRounds = false,
}: Case) {
  const limiter = (make ?? (() => fromModel(EVERY)))();
  const probed = await discoverVirtual(
    {
      limiter: () => limiter,
      status: 429,
      ...(network ? { network } : {}),
      ...(answeredAfterMs === undefined || network ? {} : { answerDelay: { meanMs: answeredAfterMs, jitterMs: 0 } }),
      ...(served ? { served } : {}),
      ...(busy ? { busy } : {}),
      ...(retryAfter ? { announces: 'retry-after' as const } : {}),
    },
    { maxDurationS: capS },
  );
  const estimate = read(probed);
  const bracket = estimate.rate_bracket;
  const first = searchStart(estimate);
  if (!bracket || !first) return { estimate, bracket, outcome: null, result: null };
  const random = seeded(seed);
  let nowS = estimate.duration_s;
  // Each round's planned length, by round: a hold over the horizon is what the report may state.
  const lengths: number[] = [];
  const outcome = await searchUntilHeld(
    first,
    searchTop(estimate, bracket),
    async (rec, { round, durationS = horizonS, cut, afterHold, restAtLeastS = 0 }) => {
      // As the stage rests: none after a hold (the limit was not drained), else the longest shut spell.
      const startS =
        nowS +
        Math.max(
          restAtLeastS,
          searchRoundRestS(bracket, { settledS: SETTLE_S, afterHold: afterHold === true, roundS: horizonS }),
        );
      lengths[round - 1] = durationS;
      const met = served ? inLine(limiter, served.everyMs) : limiter;
      const proof = virtualK6Round(met, rec, proofConcurrency(rec), startS, durationS, random, cut, 0, !retryAfter);
      nowS = startS + k6EndedS(proof, proof.cut_at_s ?? durationS);
      return proof;
    },
    {
      reach: {
        ...searchBurst(bracket),
        roundS: horizonS,
        maxRoundS: shortRounds ? horizonS : Math.max(150, horizonS),
        settleS: bracket.restS,
        refillRps: null,
      },
      scoutS: scoutLengthS(bracket.restS, horizonS),
      outlastS: capS,
      standing: (rounds) => withoutRefuted(estimate, rounds),
      ...(bracket.probeHold ? { probeHold: bracket.probeHold } : {}),
    },
  );
  const { result, proving, untested } = asTheStageReports(estimate, first, outcome, lengths, horizonS);
  return { estimate, bracket, outcome, result, endS: nowS, lengths, proving, untested };
}

/**
 * What the stage makes of a search's outcome (src/stages/rate-limit.ts): the policy given only once
 * a full round proved it, the horizon of the round that held it, the report's section, and whether
 * the rate limit is not tested (searchUntested: null when the search sized it).
 */
function asTheStageReports(
  estimate: Estimate,
  first: Recommendation,
  outcome: Pick<ProofLoopOutcome, 'proven' | 'unproven' | 'rounds' | 'provenProof' | 'lastProof'>,
  lengths: readonly number[],
  horizonS = HORIZON_S,
) {
  const bracket = estimate.rate_bracket!;
  const { verdict, given: policy } = provingVerdict(outcome, first);
  const given = verdict === 'proven' ? policy : null;
  const proving: Proving = {
    verdict,
    rounds: [...outcome.rounds],
    ...(outcome.rounds.length > 0
      ? {
          horizon: proofHorizon(
            heldRoundS(outcome.rounds, given, lengths) ?? horizonS,
            withShutSpan(longestKnownWindow(withoutRefuted(estimate, outcome.rounds)), bracket),
          ),
        }
      : {}),
  };
  const result = toRateLimitResult(
    estimate,
    given,
    outcome.provenProof ?? outcome.lastProof,
    [searchSaid(outcome.rounds, bracket)],
    proving,
  );
  const why = estimate.notes.find((n) => n.startsWith(NOT_IDENTIFIED))!;
  return { result, proving, untested: searchUntested(`/introspect: ${why}`, result, proving) };
}

/** A stack of limits searched, as a silent service that sends Retry-After: the search and its rounds, said for an assertion. */
/** A bucket (50 per second, burst 50: as CI land31 and land34 met it) searched over 5 s rounds from `bracket`. */
const bucketSearchedOver5s = (seed: number, bracket: RateBracket, limiter = () => gcra(50, 50), shortRounds = false) =>
  searched({
    seed,
    limiter,
    retryAfter: true,
    horizonS: 5,
    shortRounds,
    // As the stage gets it when the probe's reading did not stand (discover.ts unsizedRateStands).
    read: unidentified("a bucket's trickle, but its rate is known to ±8.3 % only, over 0.4 s", bracket),
  });

/** The same bucket searched as `run` searches it: its rounds keep to the 5 s horizon unless none there outlasts the burst. */
const bucketSearchedOverRunsRounds = (bracket: RateBracket) => bucketSearchedOver5s(1, bracket, undefined, true);

/**
 * The bucket searched as `run` searches it from `bracket`: its first round, at `firstRps`, held within
 * the burst (inconclusive), and the search still sized a policy no higher than the bucket's 50 req/s.
 */
async function sizedPastAFirstRoundInTheBurst(bracket: RateBracket, firstRps: number) {
  const run = await bucketSearchedOverRunsRounds(bracket);
  const rounds = run.outcome!.rounds;
  const context = searchContext(run);
  expect(rounds[0], context).toMatchObject({ target_rps: firstRps, verdict: 'inconclusive' });
  expect(run.untested, context).toBeNull();
  expect(run.outcome!.proven!.target_rps, context).toBeLessThanOrEqual(50);
  return { run, rounds, context };
}

/** A search's rounds, rate and time past the probe, for an assertion's message. */
const searchContext = (run: Awaited<ReturnType<typeof searched>>): string =>
  JSON.stringify({
    rounds: run.outcome!.rounds.map((r) => [r.target_rps, r.verdict, r.refusals_began_s, r.arrivals]),
    sustained: run.result!.sustained_rps,
    held: run.result!.sustained_held,
    endS: run.endS! - run.estimate.duration_s,
  });

/** The probe's estimate as the stage gets it when the probe named no limiter: `why`, and the search's bracket. */
const unidentified =
  (why: string, bracket: RateBracket) =>
  (e: Estimate): Estimate => ({
    ...e,
    limiter: null,
    sustained_rps: null,
    sustained_precision: null,
    refill_s: null,
    notes: [`${NOT_IDENTIFIED}${why}`],
    rate_bracket: bracket,
  });

async function searchedStack(stack: LimiterSet, retryAfter = true) {
  const run = await searched({ seed: 3, limiter: () => fromModel(stack), retryAfter });
  const rounds = run.outcome!.rounds;
  const context = JSON.stringify({
    rounds: rounds.map((r) => [r.target_rps, r.verdict, r.rate_429, r.refusals_began_s, r.after_quota_rps, r.scout_s]),
    endS: run.endS,
  });
  return { ...run, rounds, context };
}

/** The policy given between `lowRps` and the truth, no sustained rate above it, within `withinS` of the probe when given. */
function expectGivenWithin(
  run: Awaited<ReturnType<typeof searchedStack>>,
  lowRps: number,
  trueRps: number,
  withinS?: number,
) {
  const given = run.outcome!.proven?.target_rps;
  expect(given, run.context).toBeGreaterThanOrEqual(lowRps);
  expect(given, run.context).toBeLessThanOrEqual(trueRps);
  expect(run.result!.sustained_rps, run.context).toBeLessThanOrEqual(trueRps);
  if (withinS !== undefined) expect(run.endS! - run.estimate.duration_s, run.context).toBeLessThan(withinS);
}

/** A run's report around the stage's section: the fixture's checks, the search's result, and what it left untested. */
function reportOf(result: RateLimitResult, untested: string | null): Report {
  const fixture = loadFixture('pass');
  return buildReport({
    version: fixture.tool.version,
    target: fixture.target,
    startedAt: new Date(fixture.started_at),
    finishedAt: new Date(fixture.finished_at),
    checks: fixture.checks,
    load: fixture.load,
    rateLimit: result,
    untested: untested === null ? [] : [{ stage: 'rate_limit', reason: untested }],
  });
}

/** Every format as a reader sees it: the run's closing lines, `ratelimit`'s, report.md unescaped, report.html, junit.xml. */
const everyFormat = (report: Report): Record<string, string> => ({
  terminal: terminalLines(report, 'r').map(plainText).join('\n'),
  ratelimit: summaryLines(report.rate_limit!).join('\n'),
  md: renderMarkdown(report).replace(/\\(.)/g, '$1'),
  html: renderHtml(report),
  junit: renderJunit(report),
});

/** go-chi/httprate 75 per 1.5 s (50 req/s) across 50 ± 10 ms, its windows at a phase per seed, as network-kinds-virtual runs it. */
const httprate = (seed: number): Case => ({
  seed,
  network: { oneWayMs: 50, jitterMs: 10, seed },
  limiter: () => httprateFront(75, 1.5, (seed * 97) % 1500),
  truthRps: 50,
  retryAfter: true,
  capS: 60,
});

/**
 * The fixed window 50 per 1 s across 50 ± 10 ms, the machine busy (up to 20 ms late), at a seed
 * where its edges were not pinned down (network-virtual.test.ts): "the limiter looks like a
 * resetting window but its parameters were not pinned down". The probe had seen every window let
 * its 50 through; before, that note was no "not identified", the stage searched nothing, and the
 * report gave no rate and no proof (as toxiproxy's run did on CI, land11): "an unknown burst does
 * not hide a known rate" (issue 35 item 4).
 */
const blurredWindow = (seed: number): Case => ({
  seed,
  network: { oneWayMs: 50, jitterMs: 10, seed },
  busy: { lateMs: 20, seed: seed + 2000 },
  limiter: () => fromModel({ kind: 'fixed-window', limit: 50, window_s: 1, phase_s: 0, counts_refused: false }),
  truthRps: 50,
  retryAfter: true,
  capS: 60,
});

/**
 * The real bench's HAProxy 50 per 10 s (true 5 req/s) replayed: the search from 3.2 req/s, where
 * every rate up to `holdsUpTo` holds and every rate above is refused with `refusedShare` of its requests.
 */
async function realRounds(refusedShare: number, holdsUpTo = 5) {
  const { estimate } = await searched({ seed: 1 });
  const bracket = estimate.rate_bracket!;
  return searchUntilHeld(
    { ...searchStart(estimate)!, target_rps: 3.2 },
    searchTop(estimate, bracket),
    async (rec) => {
      const holds = rec.target_rps <= holdsUpTo;
      return {
        rate_429: holds ? 0 : refusedShare,
        goodput_rps: holds ? rec.target_rps : 4.1,
        lost_requests: 0,
      };
    },
    {
      reach: { ...searchBurst(bracket), roundS: HORIZON_S, maxRoundS: 150, settleS: bracket.restS, refillRps: null },
      scoutS: scoutLengthS(bracket.restS, HORIZON_S),
    },
  );
}

describe('a limiter no detector identifies is sized by paced proof rounds', () => {
  it.each<Case & { name: string }>([
    { name: 'HAProxy 50 per 10 s counting every request', seed: 1 },
    { name: 'HAProxy 50 per 10 s counting every request', seed: 5 },
    { name: 'HAProxy 50 per 10 s counting every request', seed: 35 },
    { name: 'the same across 20 ± 15 ms', seed: 2, network: { oneWayMs: 20, jitterMs: 15, seed: 2 } },
    { name: 'the same across 20 ± 15 ms', seed: 3, network: { oneWayMs: 20, jitterMs: 15, seed: 3 } },
    // A refused round's after-rate (its calls starved by their own backoff) threw every hold away
    // here, 46 req/s held and nothing given, until a search's holds were judged on their own.
    { name: 'httprate 75 per 1.5 s across 50 ± 10 ms', ...httprate(5) },
    { name: 'httprate 75 per 1.5 s across 50 ± 10 ms', ...httprate(8) },
    { name: 'a fixed window 50 per 1 s its edges not pinned', ...blurredWindow(6) },
    { name: 'a fixed window 50 per 1 s its edges not pinned', ...blurredWindow(7) },
  ])(
    '$name, seed $seed: not identified, then a held policy within 75–100 % of the truth, no refuted figure, no kind claimed',
    async (c) => {
      const TRUE_RPS = c.truthRps ?? sustainedRate(EVERY);
      const { estimate, bracket, outcome, result, endS, lengths, untested } = await searched(c);
      const context = JSON.stringify({
        given: outcome?.proven?.target_rps,
        headline: result?.sustained_rps,
        bracket,
        rounds: outcome?.rounds.map((r) => [r.target_rps, r.verdict, r.rate_429, r.cut_at_s, r.scout_s]),
        endS,
      });
      // The probe names no kind and no rate: the case the search is for.
      expect(estimate.limiter, context).toBeNull();
      expect(estimate.sustained_rps, context).toBeNull();
      expect(
        estimate.notes.some((n) => n.startsWith(NOT_IDENTIFIED)),
        context,
      ).toBe(true);
      expect(recommend(estimate), context).toBeNull();
      // The bracket's top is refused for certain: the truth lies below it.
      expect(bracket!.high, context).toBeGreaterThan(TRUE_RPS);
      const given = outcome!.proven?.target_rps;
      expect(given, context).toBeDefined();
      expect(given!, context).toBeGreaterThanOrEqual(0.75 * TRUE_RPS);
      expect(given!, context).toBeLessThanOrEqual(TRUE_RPS);
      // The policy is what its round ran: its calls at once, waits for a 429 included (the kind may count them).
      expect(proofConcurrency(outcome!.proven!), context).toBe(outcome!.proven!.max_concurrency);
      expect(outcome!.proven!.why.join('\n'), context).toContain('waits for a 429 included');
      // The sustained rate is the highest rate held by a round over the whole horizon (not cut, no
      // scout), and below every rate refused; the policy is given SEARCH_HEADROOM below it.
      expect(proofHolds(outcome!.provenProof!).holds, context).toBe(true);
      expect(outcome!.provenProof!.cut_at_s, context).toBeUndefined();
      const fullHolds = outcome!.rounds.filter((r) => r.verdict === 'holds' && r.scout_s === undefined);
      const sustained = Math.max(...fullHolds.map((r) => r.target_rps));
      expect(result!.sustained_rps, context).toBe(sustained);
      expect(given!, context).toBe(roundedRate(sustained * (1 - SEARCH_HEADROOM)));
      expect(given!, context).toBeLessThan(sustained);
      const refused = Math.min(...refutingRounds(outcome!.rounds).map((r) => r.target_rps));
      expect(sustained, context).toBeLessThan(refused);
      expect(sustained, context).toBeLessThanOrEqual(TRUE_RPS);
      // That round ran the whole horizon, and the horizon the report states is its length; every
      // scout ran shorter, and none of them is the policy's proof.
      const provenAt = outcome!.rounds.findIndex(
        (r) => r.verdict === 'holds' && r.scout_s === undefined && r.target_rps === sustained,
      );
      expect(lengths![provenAt], context).toBe(HORIZON_S);
      expect(heldRoundS(outcome!.rounds, outcome!.proven, lengths!), context).toBe(HORIZON_S);
      for (const r of outcome!.rounds.filter((r) => r.scout_s !== undefined))
        expect(r.scout_s!, context).toBeLessThan(HORIZON_S);
      // Within the time scouting buys: before, every hold ran the whole horizon (HAProxy 398–435
      // virtual s, httprate 510–514); scouts twice the shut spell, 251–259 and 171–225 after the
      // probe; as long as it, HAProxy's 209 (httprate's scouts are SCOUT_MIN_S long either way).
      expect(endS! - estimate.duration_s, context).toBeLessThan(230);
      // Within a few per cent of the truth: the first round over the horizon aims just below the
      // lowest refusal (before, 4.1 of 5 and 43–46 of 50 were the sustained rate reported).
      expect(sustained, context).toBeGreaterThanOrEqual(0.95 * TRUE_RPS);
      // The report: the policy given, no kind, and no figure above the sustained rate.
      expect(result!.recommendation?.target_rps, context).toBe(given);
      expect(result!.limiter ?? null, context).toBeNull();
      for (const line of result!.reference_lines ?? [])
        expect(line.rps, `${context} ${line.label}`).toBeLessThan(refused);
      const notes = (result!.notes ?? []).join('\n');
      expect(notes, context).toContain(`${sustained} req/s held over the proof's whole horizon`);
      expect(notes, context).toContain(`a round paced at ${refused} req/s`);
      expect(notes, context).toContain('scouting rounds shorter than the horizon looked for it');
      // Every format's rounds say which ran short: a scout's hold is not read as the horizon's.
      const scout = outcome!.rounds.find((r) => r.scout_s !== undefined && r.verdict === 'holds')!;
      expect(summaryLines(result!).join('\n'), context).toContain(`a ${scout.scout_s} s scout, not the horizon`);
      // No kind claimed in words either: the search says it is not identified.
      expect(notes, context).toContain(`${NOT_IDENTIFIED}no kind explains what the probe saw`);
      // Sized, not untested (issue 35 item 4: the headline is what holds): the held rate heads the
      // report, said as held over the horizon by k6 rounds, below the lowest rate refused.
      expect(result!.proof_verdict, context).toBe('proven');
      expect(result!.sustained_held, context).toEqual({ held_s: HORIZON_S, refused_rps: refused });
      expect(untested, context).toBeNull();
    },
    120_000,
  );

  // httprate's counters of 30 per 1 s and 600 per 60 s (true 10 req/s): the probe leaves the minute
  // mostly spent, so the first scout at 11 req/s meets its quota after 4 s and gets 0.33 req/s
  // through after it. Taken as a bound, that sent the scouts crawling up from 0.26 req/s: 0.55 given
  // after 626 virtual s. What got through over the whole scout (4.5 req/s) bounds the next one.
  it('counters of 30 per 1 s and 600 per 60 s, the minute left spent by the probe: a policy within 75–100 % of 10 req/s, not a crawl from what passed after a quota', async () => {
    const stack: LimiterSet = [
      { kind: 'sliding-counter', limit: 30, window_s: 1, phase_s: 0, counts_refused: false },
      { kind: 'sliding-counter', limit: 600, window_s: 60, phase_s: 0, counts_refused: false },
    ];
    const searchedIt = await searchedStack(stack);
    expect(searchedIt.estimate.limiter, searchedIt.context).toBeNull();
    expectGivenWithin(searchedIt, 7.5, 10, 300);
  });

  // A counter of 20 per 1 s and a fixed window of 300 per 60 s (true 5 req/s): the first scout, at
  // 9.3 req/s, spends the minute; the next, at 2, is refused from its start by the minute still
  // shut, and 0.09 req/s got through. Lowered to that, nothing was sized ("not tested"). A scout
  // refused from its start is tried again after half the horizon at rest, and its refusal is not
  // taken for its rate's.
  // A log of 100 per 60 s that counts refused requests too (the sorted-set log of many a gateway's
  // plugin: each attempt is added, then counted), its Retry-After the oldest entry's age (true 1.67
  // req/s). The probe's pings at the Retry-After kept it shut, each counted; it let clumps through
  // twice but no rate was read in 150 s. The stage said "not tested" and gave nothing, where the
  // limit had lifted before the probe's eyes (6 Dec, against `serve --limiter sliding:…,counts-refused`).
  // Now it searches, as for a limiter not identified; `run` keeps saying how `ratelimit` sizes it.
  it('a log of 100 per 60 s counting refusals, left unsized by the probe after it lifted: searched, a hold sizes it, nothing above the truth', async () => {
    const run = await searchedStack([{ kind: 'sliding-window', limit: 100, period_s: 60, counts_refused: true }]);
    const context = JSON.stringify({ notes: run.estimate.notes, rest: run.context });
    expect(run.estimate.sustained_rps, context).toBeNull();
    const ratelimit = judgedBeforeRounds(run.estimate);
    expect(ratelimit.untested, context).toEqual([]);
    expect(ratelimit.search, context).not.toBeNull();
    expect(ratelimit.unidentified, context).toMatch(
      /^tokens\.validate: not sized: the limit was met; its Retry-After of 60 s .* the probe's 150 s did not size this one/,
    );
    const underRun = judgedBeforeRounds(run.estimate, 'short');
    expect(underRun.search, context).toBeNull();
    expect(underRun.untested.join('\n'), context).toMatch(/`ces-harness ratelimit --horizon 168` may size it$/);
    // Held over a whole round, below the lowest refusal, never above the truth; given below the drain's store.
    expect(run.untested, context).toBeNull();
    expect(run.result!.sustained_held, context).toBeDefined();
    expect(run.result!.sustained_rps, context).toBeGreaterThanOrEqual(0.9 * 1.667);
    expect(run.result!.sustained_rps, context).toBeLessThanOrEqual(1.667);
    expectGivenWithin(run, 0.3, 1.667);
  });

  it('a 1 s counter and a 60 s window, the minute left shut by the scout before: tried again after a rest, sized, no figure above 5 req/s', async () => {
    const stack: LimiterSet = [
      { kind: 'sliding-counter', limit: 20, window_s: 1, phase_s: 0, counts_refused: false },
      { kind: 'fixed-window', limit: 300, window_s: 60, phase_s: 23, counts_refused: false },
    ];
    const searchedIt = await searchedStack(stack);
    const { rounds, context } = searchedIt;
    // Refused from its start by the minute still shut: no refusal of 2 req/s, so no "a round paced at 2 req/s was refused".
    expect(rounds[1], context).toMatchObject({ target_rps: 2, verdict: 'inconclusive', refusals_began_s: 0 });
    expect(rounds[2], context).toMatchObject({ target_rps: 2, verdict: 'holds' });
    // The scouts climb on from the retry (it is not one of them): 4.7 held, 4.2 given of 5.
    expectGivenWithin(searchedIt, 3.75, 5, 300);
    expect(searchedIt.result!.sustained_held!.refused_rps, context).toBeGreaterThan(searchedIt.result!.sustained_rps!);
  });

  // A gateway's bucket (20 per second, burst 40) before an application's log of 300 per 60 s, silent
  // (true 5 req/s): the stream read the bucket, then the log's quota shut it. The probe filled the
  // log and waited for its comeback 35 s later, then walked its edges until its budget ran out at
  // 139 s, "not identified", and the search ran after that: 831 virtual s. A shut longer than the
  // rest of the budget can size (behind-front.ts pastBudget) now ends the probe when it is seen.
  it('a bucket before a log of 300 per 60 s, silent: the probe ends once the log is shut past what its budget could size, and the search sizes it', async () => {
    const stack: LimiterSet = [
      { kind: 'bucket', rate_rps: 20, burst: 40 },
      { kind: 'sliding-window', limit: 300, period_s: 60, counts_refused: false },
    ];
    const run = await searchedStack(stack, false);
    const context = JSON.stringify({ probeS: run.estimate.duration_s, notes: run.estimate.notes, rest: run.context });
    expect(run.estimate.limiter, context).toBeNull();
    expect(run.estimate.notes[0], context).toMatch(
      /^not identified: .*another limit behind it.*still shut [\d.]+ s later: a window that long takes 6 of itself to size, more than the probe had left, so the probe ended there; --horizon \d+ \(rate_limit\.horizon_s\) gives it \d+ s$/,
    );
    expect(run.estimate.duration_s, context).toBeLessThan(60);
    expect(run.result!.sustained_rps, context).toBeGreaterThanOrEqual(0.98 * 5);
    expectGivenWithin(run, 0.75 * 5, 5);
    expect(run.endS, context).toBeLessThan(650);
  });

  // Flask-Limiter's moving windows (its "10 per second; 100 per minute", a log each; true 1.67
  // req/s), run 2 Dec against the emulator: 35 s scouts held 2.1 and 2.3 inside the minute, every
  // round over the horizon (2.5, 2.4, 2.3) was refused after up to 100 requests, then let 0.1-0.2
  // req/s through before its cut, the minute still shut. The last round ran at that and held: "a
  // floor, not the limit's rate", nothing sized after 577 s. The most a round let through before
  // its refusal, over the longest window the horizon tests, is a rate such a window sustains: run
  // to three figures, 1.66 (at one decimal, 1.6, the figure held was 4 % under). One round refused
  // after the 100 requests no scout sent (they held on 73 and 80) is enough: the next runs at the
  // minute's rate, not bisected down to the scouts' 2.3 first (search-loop.ts pastTheScouts; 593
  // virtual s before, 494 after).
  it('moving windows of 10 per 1 s and 100 per 60 s, every round over the horizon refused after 100: the last round at 100 per minute holds, given within 75–100 %', async () => {
    const stack: LimiterSet = [
      { kind: 'sliding-window', limit: 10, period_s: 1, counts_refused: false },
      { kind: 'sliding-window', limit: 100, period_s: 60, counts_refused: false },
    ];
    const searchedIt = await searchedStack(stack);
    const { rounds, context } = searchedIt;
    const full = rounds.filter((r) => r.scout_s === undefined);
    const heldAt = full.findIndex((r) => r.verdict === 'holds');
    expect(
      full.slice(0, heldAt).every((r) => r.verdict === 'fails'),
      context,
    ).toBe(true);
    const pastScouts = full.filter((r) => r.verdict === 'fails' && r.target_rps * r.refusals_began_s! >= 90);
    expect(pastScouts.length, context).toBe(1);
    // Read to three figures, as measured: the rate held is within 2 % of the truth.
    expect(full[heldAt], context).toMatchObject({ target_rps: 1.66, verdict: 'holds' });
    // Raised once above that floor (search-loop.ts raisedFromFloor), refused on the minute the hold
    // filled, so the floor stands: one short round, not a bisection down to it.
    const raises = full.slice(heldAt + 1);
    expect(
      raises.map((r) => [r.verdict, r.target_rps > 1.66, r.refusals_began_s! < 10]),
      context,
    ).toEqual([['fails', true, true]]);
    expect(searchedIt.result!.sustained_rps, context).toBeGreaterThanOrEqual(0.98 * (100 / 60));
    expectGivenWithin(searchedIt, 1.25, 100 / 60);
    expect(searchedIt.untested, context).toBeNull();
  });

  // nginx's queue of 5 r/s (limit_req burst=10, no nodelay) in front of an application's fixed window
  // of 100 per 60 s on the clock (true 1.67 req/s): the probe reads neither, the minute shut for 35 s
  // of it. Rounds over the horizon at 2.3, 2.1 and 1.9 were each refused once the minute's quota was
  // spent, stayed shut 16-17 s, and were cut 1-2 s after the next minute opened: 0.27 req/s passed
  // after their quota, read as a refill (search-loop.ts afterQuotaFloor), held, and "a floor, not the
  // limit's rate": nothing sized, 0.1-0.24 given at four phases of the minute. Such a stretch is a
  // spent window and the start of the next (partWindowAfter): the floor is the least the quotas
  // bound (quotaBoundFloor, 1.1), raised halfway to 1.4. At 15 s into its minute the probe now
  // reads the queue before the minute shuts, and the rounds find the window behind it
  // (queue-virtual.test.ts); at 0 s the minute shuts within the probe, which still reads neither.
  it.each([0])(
    "nginx's queue of 5 r/s before a fixed window of 100 per 60 s, %d s into its minute: no refill read off a round cut as the window opened, sized",
    async (phaseS) => {
      const run = await searchedStack(
        [
          { kind: 'queue', rate_rps: 5, burst: 10, delay: 0 },
          { kind: 'fixed-window', limit: 100, window_s: 60, phase_s: phaseS, counts_refused: false },
        ],
        false,
      );
      const { rounds, context } = run;
      // No round over the horizon ran at what passed after a quota (0.27 req/s then).
      expect(
        rounds.filter((r) => r.scout_s === undefined && r.target_rps < 0.5),
        context,
      ).toEqual([]);
      expect(run.untested, context).toBeNull();
      expectGivenWithin(run, 1.15, 100 / 60);
    },
  );

  // A counter of 50 per 10 s that counts refused requests (the emulator's `--limiter counter
  // --counts-refused`, true 5 req/s), its windows on the clock: rounds over the horizon just above
  // the rate were refused after 50-90 requests, k6's VUs waiting out the 10 s Retry-After, and the
  // floors read them as a window's quota over as long as the round stayed shut (26.6 s: 3.38 req/s)
  // or over a minute (1.15): both held, and were given at 2.9 (58 %) and nothing ("a floor, not the
  // limit's rate", not tested; `ces-harness ratelimit` on 4 Dec gave 2.5). A floor is a bound for a
  // window the rounds did not time, so one round just below the lowest refusal runs after it
  // (search-loop.ts raisedFromFloor). With k6's retry tail before each rest (virtual-proof.ts
  // k6EndedS), the windows 0, 5 and 7.5 s off hold 4.5-5 over the horizon before any floor, and
  // 4-4.5 is given; 2.5 s off still ends on a floor.
  it.each([2.5])(
    'a counter of 50 per 10 s counting refused requests, its windows %s s off the probe: a floor that held is raised, given within 75–100 %%',
    async (phaseS) => {
      const run = await searched({
        seed: 3,
        limiter: () =>
          fromModel({ kind: 'sliding-counter', limit: 50, window_s: 10, phase_s: phaseS, counts_refused: true }),
        retryAfter: true,
      });
      const rounds = run.outcome!.rounds;
      const context = JSON.stringify(rounds.map((r) => [r.target_rps, r.verdict, r.refusals_began_s, r.scout_s]));
      const held = rounds.filter((r) => r.scout_s === undefined && r.verdict === 'holds');
      // The floor held, then the raise above it.
      expect(held.length, context).toBe(2);
      expect(
        run.outcome!.proven!.steps!.filter((step) =>
          /^raised to [\d.]+ req\/s: [\d.]+ req\/s held over the whole horizon, a floor/.test(step),
        ),
        context,
      ).toHaveLength(1);
      expect(run.untested, context).toBeNull();
      expect(run.outcome!.proven!.target_rps, context).toBeGreaterThanOrEqual(3.75);
      expect(run.outcome!.proven!.target_rps, context).toBeLessThanOrEqual(5);
      expect(run.result!.sustained_rps, context).toBeLessThanOrEqual(5);
    },
  );

  // The same counter, 2.5 s off the probe, before a bucket of 4 per second with a store of 60 (true
  // 4 req/s): the floor of 3.38 req/s held, and the raise to 4.5 held within the promise, its first
  // 429 after 118 s of 120 as the store ran out: taken as a hold, it would be reported sustained. A raise
  // stands only with no 429 at all; the floor, within GIVEN_BAND_LOW of 4.5, stands.
  it('the counter before a bucket of 4 per second with a store of 60: a raise refused once late is no hold, nothing given above 4', async () => {
    const run = await searched({
      seed: 3,
      limiter: () =>
        fromModel([
          { kind: 'sliding-counter', limit: 50, window_s: 10, phase_s: 2.5, counts_refused: true },
          { kind: 'bucket', rate_rps: 4, burst: 60 },
        ]),
      retryAfter: true,
    });
    const rounds = run.outcome!.rounds;
    const context = JSON.stringify(rounds.map((r) => [r.target_rps, r.verdict, r.refusals_began_s, r.scout_s]));
    expect(
      rounds.filter((r) => r.why.includes('a rate raised above a floor stands only with none')).map((r) => r.verdict),
      context,
    ).toEqual(['inconclusive']);
    expect(run.outcome!.proven!.target_rps, context).toBeLessThanOrEqual(4);
    expect(run.result!.sustained_rps, context).toBeLessThanOrEqual(4);
  });

  // The same counter before a bucket of 4 per second with a store of 60, its windows on the probe's
  // (phase 0), and another of 3.5 with the same store: 4.5 and 4 req/s held over the horizon, each
  // refused once at 118 s as the store ran out (within the promise), and stood as the sustained
  // rate, above the truth, 3.6 given for 3.5. The counter's refusals lay below the bucket's line
  // (quota-line.ts envelopeLine), which the two late refusals read: 59 stored + 4 (3.5) req/s.
  it.each([
    { seed: 1, rate: 4 },
    { seed: 5, rate: 3.5 },
  ])(
    'the counter before a bucket of $rate per second (store 60), a hold refused once as the store ran out: the refill its late refusals lie on is the sustained rate',
    async ({ seed, rate }) => {
      const run = await searched({
        seed,
        limiter: () =>
          fromModel([
            { kind: 'sliding-counter', limit: 50, window_s: 10, phase_s: 0, counts_refused: true },
            { kind: 'bucket', rate_rps: rate, burst: 60 },
          ]),
        retryAfter: true,
      });
      const rounds = run.outcome!.rounds;
      const context = JSON.stringify(rounds.map((r) => [r.target_rps, r.verdict, r.refusals_began_s, r.scout_s]));
      expect(run.result!.sustained_rps, context).toBeCloseTo(rate, 1);
      expect(run.result!.sustained_rps, context).toBeLessThanOrEqual(rate);
      expect(run.outcome!.proven!.target_rps, context).toBeGreaterThanOrEqual(0.75 * rate);
      expect(run.outcome!.proven!.target_rps, context).toBeLessThanOrEqual(rate);
    },
  );

  // The same counter before a slower bucket: the probe's own stream held the counter shut for its
  // whole 150 s budget (118-132 s without a call let through), so the search began at 0.6-0.71 req/s
  // with a shut spell as long as the horizon. Scouts of 119 s climbed a quarter a round, six of them,
  // to 1.7 req/s (given 1.3 of 4); rounds over the horizon climbed at pace and jumped from 3.4 held to
  // 20, refused with no round left, "a floor, not the limit's rate": not tested after 1,530 s. Now a
  // scout within SCOUT_NARROW of the horizon is a round over it, and no climb steps more than twice the
  // hold (search-loop.ts nextScout), so the last refusal brackets the limit with the hold.
  it.each([
    { phaseS: 0, rate: 4, burst: 40 },
    { phaseS: 2.5, rate: 4.2, burst: 30 },
  ])(
    'the counter before a bucket of $rate per second (store $burst), shut by the probe for its whole budget: rounds over the horizon, each climb at most twice the hold, sized',
    async ({ phaseS, rate, burst }) => {
      const run = await searched({
        seed: 3,
        limiter: () =>
          fromModel([
            { kind: 'sliding-counter', limit: 50, window_s: 10, phase_s: phaseS, counts_refused: true },
            { kind: 'bucket', rate_rps: rate, burst },
          ]),
        retryAfter: true,
      });
      const rounds = run.outcome!.rounds;
      const context = JSON.stringify(rounds.map((r) => [r.target_rps, r.verdict, r.refusals_began_s, r.scout_s]));
      expect(run.bracket!.restS, context).toBeGreaterThan(0.9 * HORIZON_S);
      expect(
        rounds.filter((r) => r.scout_s !== undefined),
        context,
      ).toEqual([]);
      const climbs = rounds.slice(1).map((r, i) => r.target_rps / rounds[i]!.target_rps);
      expect(
        Math.max(
          ...climbs.slice(
            0,
            rounds.findIndex((r) => r.verdict === 'fails'),
          ),
        ),
        context,
      ).toBeLessThanOrEqual(2);
      expect(run.untested, context).toBeNull();
      expect(run.outcome!.proven!.target_rps, context).toBeGreaterThanOrEqual(0.55 * rate);
      expect(run.outcome!.proven!.target_rps, context).toBeLessThanOrEqual(rate);
      expect(run.result!.sustained_rps, context).toBeLessThanOrEqual(rate);
    },
  );

  // Kong's sliding windows (counters of 10 per 1 s and 300 per 60 s, true 5 req/s), the minute turning
  // 20 or 40 s after the probe began: every round over the horizon was refused, the last of them
  // (6.4 req/s) with k6 behind its arrivals, 383-414 dropped while every VU waited out a 429, and
  // only 0.47 req/s got through after its quota. The last round ran at that, the least any let
  // through, and held: a tenth of the rate (against the emulator, 20 per 1 s and a counter of 300
  // per 60 s, 2 Dec: 0.27 req/s held, "a floor, not the limit's rate", not tested, exit 1). What got
  // through a round that did not offer its rate is what k6 asked, not what the limit let through:
  // the other rounds' 4.78-4.98 req/s set it (search-loop.ts afterQuotaFloor).
  it.each([20, 40])(
    "Kong's counters of 10 per 1 s and 300 per 60 s, the minute turning %i s into the probe: a round k6 fell behind in sets no floor, given within 75–100 %",
    async (phaseS) => {
      const stack: LimiterSet = [
        { kind: 'sliding-counter', limit: 10, window_s: 1, phase_s: 0, counts_refused: false },
        { kind: 'sliding-counter', limit: 300, window_s: 60, phase_s: phaseS, counts_refused: false },
      ];
      const searchedIt = await searchedStack(stack);
      const full = searchedIt.rounds.filter((r) => r.scout_s === undefined);
      expect(
        full.some((r) => r.verdict === 'fails' && r.dropped_arrivals! > 0),
        searchedIt.context,
      ).toBe(true);
      expectGivenWithin(searchedIt, 3.75, 5);
    },
  );

  // 20 per 1 s and a counter of 300 per 60 s (true 5 req/s), searched from 13 req/s as the stage
  // searched it against the emulator on 2 Dec, the minute turning anywhere: 10 s scouts held up to
  // 10 req/s inside the minute, every round over the horizon then began on a minute they had spent
  // (refused from its start, or after 30-40 s with k6's VUs all waiting out the counter's minute-long
  // Retry-After, 500-640 arrivals dropped), and the floor from what passed before their refusals
  // (5.66 req/s) was refused too, the counter letting more than its quota through as the minute
  // before weighs less: not tested, exit 1, at 5 of 6 phases (0.27 req/s held against the emulator).
  // A last round, rested, runs at what a window of a minute or less that let the rounds' requests
  // through must sustain (search-loop.ts quotaBoundFloor). Safe and slow: 74-86 % of the rate given
  // at these phases, after 15-20 minutes, with k6's retry tail before each rest (virtual-proof.ts
  // k6EndedS; 54-62 % while the rounds here began within the tail, the minute spent by its retries).
  // At 15 and 20 s, 84 % and 68 % since a scout refused on a spent minute runs again (below).
  const searchedFrom13 = (phaseS: number) => {
    const stack: LimiterSet = [
      { kind: 'fixed-window', limit: 20, window_s: 1, phase_s: 0, counts_refused: false },
      { kind: 'sliding-counter', limit: 300, window_s: 60, phase_s: phaseS, counts_refused: false },
    ];
    return searched({
      seed: 3,
      limiter: () => fromModel(stack),
      retryAfter: true,
      // As the stage got it from the probe that day.
      read: unidentified('the limiter looks like a resetting window but its parameters were not pinned down', {
        low: 13,
        high: 200,
        drained: 18,
        restS: 1,
        why: ['the drain', 'the probe'],
      }),
    });
  };
  it.each([0, 10, 15, 20, 30, 40, 50])(
    '20 per 1 s and a counter of 300 per 60 s searched from 13 req/s, the minute turning %i s into the probe: sized below 5 req/s, not "not tested"',
    async (phaseS) => {
      const run = await searchedFrom13(phaseS);
      const context = JSON.stringify({
        rounds: run.outcome!.rounds.map((r) => [
          r.target_rps,
          r.verdict,
          r.refusals_began_s,
          r.dropped_arrivals,
          r.scout_s,
        ]),
        endS: run.endS,
      });
      expect(run.untested, context).toBeNull();
      expect(run.outcome!.proven!.target_rps, context).toBeGreaterThanOrEqual(2.5);
      expect(run.outcome!.proven!.target_rps, context).toBeLessThanOrEqual(5);
      expect(run.result!.sustained_rps!, context).toBeLessThanOrEqual(5);
    },
  );

  // Of the same search, the minute turning 15 or 20 s into the probe: 13 req/s was refused after 84
  // or 56 requests, then 7.9 or 6.6 req/s after 8 or 22, and each slower scout after 19. No more
  // requests at a slower pace is no rate refusing them but what the minute the rounds spent still
  // had: the scouts crawled down from what each got through, to 0.46 req/s given, or "not tested"
  // after 0.8 (search-loop.ts quotaRetry). The slower one runs again after half the horizon at rest.
  it.each([15, 20])(
    'the minute turning %i s into the probe: a scout refused after no more requests than the faster one before it runs again rested, not taken for a refusal of its rate',
    async (phaseS) => {
      const rounds = (await searchedFrom13(phaseS)).outcome!.rounds;
      const context = JSON.stringify(rounds.map((r) => [r.target_rps, r.verdict, r.refusals_began_s, r.scout_s]));
      expect(rounds[0], context).toMatchObject({ target_rps: 13, verdict: 'fails' });
      const spent = rounds[1]!;
      expect(spent.verdict, context).toBe('inconclusive');
      expect(spent.target_rps * spent.refusals_began_s!, context).toBeLessThan(13 * rounds[0]!.refusals_began_s!);
      expect(spent.why, context).toMatch(
        /refused after \d+ requests, no more than the faster round before it: .* ran again after 60 s at rest/,
      );
      expect(rounds[2], context).toMatchObject({ target_rps: spent.target_rps });
    },
  );

  // Of the same search, the minute turning 40 s into the probe: the first round over the horizon, at
  // 8.5 req/s, was refused from its start with 588 of its 612 arrivals dropped (every VU waiting out
  // the counter's Retry-After of a minute the scouts spent). As a scout refused so, it proves nothing
  // about its rate: it runs again after half the horizon at rest, and 8.5 req/s is refused only then.
  it('a round over the horizon refused from its start, k6 dropping most of its arrivals: run again rested, not taken for a refusal of its rate', async () => {
    const rounds = (await searchedFrom13(40)).outcome!.rounds.filter((r) => r.scout_s === undefined);
    const context = JSON.stringify(
      rounds.map((r) => [r.target_rps, r.verdict, r.refusals_began_s, r.dropped_arrivals]),
    );
    const shut = rounds.findIndex((r) => r.verdict === 'inconclusive');
    expect(rounds[shut], context).toMatchObject({ target_rps: 8.5, refusals_began_s: 0 });
    expect(rounds[shut]!.dropped_arrivals!, context).toBeGreaterThan(rounds[shut]!.arrivals! / 2);
    expect(rounds[shut]!.why, context).toMatch(/ran again after 60 s at rest/);
    expect(rounds[shut + 1], context).toMatchObject({ target_rps: 8.5, verdict: 'fails' });
    expect(rounds[shut + 1]!.refusals_began_s!, context).toBeGreaterThan(1);
  });

  // Two buckets, 50 per second and 5 with a burst of 100 (true 5 req/s): 10 s scouts hold at 5.7 and
  // 7.1 inside the big burst; every round over the horizon (7.6, 7.5, 7.1) is refused after a few
  // seconds and then lets 4.85-4.99 req/s through. Nothing was sized ("not tested"); one more round
  // at the least they let through after their quota holds.
  it('two buckets, the scouts held inside the big burst: one more round at what the refused rounds let through after their quota, sized within 75–100 %', async () => {
    const stack: LimiterSet = [
      { kind: 'bucket', rate_rps: 50, burst: 50 },
      { kind: 'bucket', rate_rps: 5, burst: 100 },
    ];
    const searchedIt = await searchedStack(stack);
    const { rounds, context } = searchedIt;
    const full = rounds.filter((r) => r.scout_s === undefined);
    expect(full.at(-1), context).toMatchObject({ verdict: 'holds' });
    expect(
      full.slice(0, -1).every((r) => r.verdict === 'fails'),
      context,
    ).toBe(true);
    expectGivenWithin(searchedIt, 3.75, 5);
  });

  // A gateway's bucket before a slower one with a store of 150 (true 2 req/s): every round over the
  // horizon was refused late (2.7, 2.6 and 2.5 req/s, after 17-52 s) and then let through again at
  // once, a bucket refilling as it refuses. Read as a window's quota, 130 let through in 52 s would
  // put the last round at 130 per 60 s, 2.16 req/s, which the store carried through 120 s: shown
  // as sustained, 8 % above the limit (search-loop.ts windowFloorRps reads only rounds that stayed shut).
  it('two buckets, the slower with a store of 150: the last round at what passed after the quotas, never at a quota over a minute, nothing shown above 2 req/s', async () => {
    const stack: LimiterSet = [
      { kind: 'bucket', rate_rps: 50, burst: 50 },
      { kind: 'bucket', rate_rps: 2, burst: 150 },
    ];
    const searchedIt = await searchedStack(stack);
    const { rounds, context } = searchedIt;
    const full = rounds.filter((r) => r.scout_s === undefined);
    expect(full.length, context).toBeGreaterThan(1);
    expect(full.at(-1)!.target_rps, context).toBeLessThanOrEqual(2);
    expect(searchedIt.result!.sustained_rps, context).toBeLessThanOrEqual(2);
    expect(searchedIt.outcome!.proven?.target_rps, context).toBeLessThanOrEqual(2);
  });

  // The bench's stacked row (1 Dec): the probe's 60 s ran out before it told the 10 s window from
  // the bucket ("not identified … shut until an edge"), and the stage, taking the estimate for a
  // partial guess, ran no search: not tested. The search rests on its own rounds, so it runs.
  it.each([1, 2])(
    'a bucket of 100 and a fixed window of 200 per 10 s, silent, the probe out of time, seed %i: searched within 75–100 % of 20 req/s',
    async (seed) => {
      const stack: LimiterSet = [
        { kind: 'bucket', rate_rps: 100, burst: 100 },
        { kind: 'fixed-window', limit: 200, window_s: 10, phase_s: 0, counts_refused: false },
      ];
      const run = await searched({ seed, limiter: () => fromModel(stack), capS: 60 });
      const context = JSON.stringify({
        notes: run.estimate.notes,
        rounds: run.outcome?.rounds.map((r) => [r.target_rps, r.verdict, r.rate_429, r.refusals_began_s, r.scout_s]),
        endS: run.endS,
      });
      expect(run.estimate.partial, context).toBe(true);
      expect(run.estimate.out_of_budget, context).toBe('time');
      expect(run.bracket, context).toBeDefined();
      // The stage runs the search (src/stages/rate-limit.ts), not "proof not run: the estimate is partial".
      expect(partialGuess(run.estimate, run.bracket), context).toBe(false);
      // A probe interrupted (or stopped by errors, or production's budget) stays a partial guess: nothing runs on it.
      expect(partialGuess({ partial: true }, run.bracket), context).toBe(true);
      expect(partialGuess(run.estimate, undefined), context).toBe(true);
      const given = run.outcome!.proven?.target_rps;
      expect(given, context).toBeGreaterThanOrEqual(0.75 * 20);
      expect(given, context).toBeLessThanOrEqual(20);
      expect(run.result!.sustained_rps, context).toBeLessThanOrEqual(20);
      expect(run.untested, context).toBeNull();
    },
  );

  // The same row on 4 Dec: the window's edge 1.2 s past the probe's start (the emulator's clock),
  // and the edge walk spent all of the probe's 3,000 requests (edges 2,648) without pinning it.
  // The stage said "not tested" and ran no search, exit 1 on a conformant service. A probe out of
  // requests brackets a search as one out of time does (partialGuess).
  it.each([1.2, 1.3])(
    'a bucket of 100 and a fixed window of 200 per 10 s at phase %s s, the probe out of requests: searched within 75–100 % of 20 req/s',
    async (phaseS) => {
      const stack: LimiterSet = [
        { kind: 'bucket', rate_rps: 100, burst: 100 },
        { kind: 'fixed-window', limit: 200, window_s: 10, phase_s: phaseS, counts_refused: false },
      ];
      const run = await searched({ seed: 1, limiter: () => fromModel(stack) });
      const context = JSON.stringify({
        notes: run.estimate.notes,
        rounds: run.outcome?.rounds.map((r) => [r.target_rps, r.verdict, r.rate_429, r.refusals_began_s, r.scout_s]),
        endS: run.endS,
      });
      expect(run.estimate.requests_sent, context).toBe(3000);
      expect(run.estimate.out_of_budget, context).toBe('requests');
      expect(run.bracket, context).toBeDefined();
      expect(partialGuess(run.estimate, run.bracket), context).toBe(false);
      // The stage searches, and says nothing untested before the search has spoken.
      const judged = judgedBeforeRounds(run.estimate);
      expect(judged.untested, context).toEqual([]);
      expect(judged.search, context).not.toBeNull();
      expect(judged.unidentified, context).toMatch(/spent all of rate_limit\.max_requests \(3000\)/);
      const given = run.outcome!.proven?.target_rps;
      expect(given, context).toBeGreaterThanOrEqual(0.75 * 20);
      expect(given, context).toBeLessThanOrEqual(20);
      expect(run.result!.sustained_rps, context).toBeLessThanOrEqual(20);
      expect(run.untested, context).toBeNull();
    },
  );

  // A silent httprate 50 per 1 s where its stream ran 0.7 s (phase 0.39 s of 237 swept): 24.75 req/s
  // (±3.4 %) read as "sliding-window counter 50 per 2 s", and 20 req/s given, 40 % of the rate. Whole
  // seconds now stand only off a stream good to 2 %: not identified, the k6 search sizes it.
  it('a silent counter of 50 per 1 s its stream read as 50 per 2 s off 0.7 s: not identified, searched within 75–100 %', async () => {
    const truth: LimiterModel = {
      kind: 'sliding-counter',
      limit: 50,
      window_s: 1,
      phase_s: (92 + 0.5) / 237,
      counts_refused: false,
    };
    const run = await searched({ seed: 1, limiter: () => fromModel(truth), capS: 60 });
    const context = JSON.stringify({
      notes: run.estimate.notes,
      rounds: run.outcome?.rounds.map((r) => [r.target_rps, r.verdict, r.rate_429, r.refusals_began_s, r.scout_s]),
    });
    expect(run.estimate.limiter, context).toBeNull();
    expect(run.estimate.notes.join('\n'), context).toMatch(/sliding-window counter.*good to ±3\.\d % only.*not sized/);
    const given = run.outcome!.proven?.target_rps;
    expect(given, context).toBeGreaterThanOrEqual(0.75 * 50);
    expect(given, context).toBeLessThanOrEqual(50);
    expect(run.untested, context).toBeNull();
  });

  // The bench's bucket of 100 and window of 200 per 10 s (1 Dec): every round over the horizon was
  // refused, then let 19.64 req/s through; the last round, at the whole 19, held: 5 % under the 20.
  // It runs at a tenth's figure now (19.6), a measurement, not a policy a person types.
  it('the round at what refused rounds let through after their quota runs at a tenth of a request per second', async () => {
    const { estimate } = await searched({ seed: 1 });
    const bracket = estimate.rate_bracket!;
    const outcome = await searchUntilHeld(
      { ...searchStart(estimate)!, target_rps: 11 },
      40,
      async (rec, { durationS = HORIZON_S }) => {
        // Scouts hold inside a burst; a round over the horizon holds only at what passes after it.
        const holds = durationS < HORIZON_S ? rec.target_rps <= 25 : rec.target_rps <= 19.64;
        return holds
          ? { rate_429: 0, goodput_rps: rec.target_rps, lost_requests: 0 }
          : { rate_429: 0.05, goodput_rps: 19.64, lost_requests: 0, refusals_began_s: 4, after_quota_rps: 19.64 };
      },
      {
        reach: { ...searchBurst(bracket), roundS: HORIZON_S, maxRoundS: 150, settleS: bracket.restS, refillRps: null },
        scoutS: scoutLengthS(bracket.restS, HORIZON_S),
      },
    );
    const rounds = outcome.rounds.map((r) => [r.target_rps, r.verdict, r.scout_s === undefined ? 'horizon' : 'scout']);
    expect(rounds.at(-1), JSON.stringify(rounds)).toEqual([19.6, 'holds', 'horizon']);
    expect(outcome.provenProof, JSON.stringify(rounds)).not.toBeNull();
  });

  it('a limit announced and not verified bounds the search: it starts 20 % below it and never climbs to it', async () => {
    const { estimate } = await searched({ seed: 1 });
    const heard = { ...estimate, announced: [ANNOUNCED] };
    // 3 req/s announced, below the 3.37 the probe got through: the start is 2.4, the top 3.
    expect(searchTop(heard, heard.rate_bracket!)).toBe(3);
    expect(searchStart(heard)?.target_rps).toBe(2.4);
    expect(searchStart(heard)?.why[0]).toContain('announced as 30 per 10 s (RateLimit-Policy, not verified)');
    // Without it, the start is what the probe got through.
    expect(searchStart(estimate)?.target_rps).toBe(3.3);
  }, 120_000);

  it("a scout's hold that the whole horizon refuses is neither the policy nor the sustained rate", async () => {
    // A limit a scout is too short to see: rounds shorter than the horizon hold up to 5.5 req/s,
    // rounds over it only up to 4.6 (say, a second window longer than a scout).
    const { estimate } = await searched({ seed: 1 });
    const bracket = estimate.rate_bracket!;
    const lengths: number[] = [];
    const outcome = await searchUntilHeld(
      searchStart(estimate)!,
      searchTop(estimate, bracket),
      async (rec, { round, durationS = HORIZON_S }) => {
        lengths[round - 1] = durationS;
        const holds = rec.target_rps <= (durationS < HORIZON_S ? 5.5 : 4.6);
        return { rate_429: holds ? 0 : 0.05, goodput_rps: rec.target_rps * (holds ? 1 : 0.95), lost_requests: 0 };
      },
      {
        reach: { ...searchBurst(bracket), roundS: HORIZON_S, maxRoundS: 150, settleS: bracket.restS, refillRps: null },
        scoutS: scoutLengthS(bracket.restS, HORIZON_S),
      },
    );
    const seen = outcome.rounds.map((r) => [r.target_rps, r.verdict, r.scout_s ?? 'horizon']);
    const context = JSON.stringify(seen);
    // Scouts (as long as the limit stayed shut, 18 s): 3.3, 4.1 and 5.1 held, 6.3 and 5.6 refused,
    // 5 % each, narrow; over the horizon, 5.4 (3 % below the lowest refusal) and 5.1 (the scouts'
    // rate, within 10 % of it) refused; lowered by bisection, halfway to 4.1 (the highest rate below
    // 5.1 a scout held), 4.6 held: the sustained rate. (A fixed step of 10 % gave 4.5.)
    expect(seen, context).toEqual([
      [3.3, 'holds', 18],
      [4.1, 'holds', 18],
      [5.1, 'holds', 18],
      [6.3, 'fails', 18],
      [5.6, 'fails', 18],
      [5.4, 'fails', 'horizon'],
      [5.1, 'fails', 'horizon'],
      [4.6, 'holds', 'horizon'],
    ]);
    expect(lengths.slice(5), context).toEqual([HORIZON_S, HORIZON_S, HORIZON_S]);
    expect(outcome.proven?.target_rps, context).toBe(roundedRate(4.6 * (1 - SEARCH_HEADROOM)));
    expect(outcome.proven?.why.join('\n'), context).toContain(
      'lowered to 4.6 req/s: 5.1 req/s was refused over the whole horizon',
    );
    expect(outcome.proven?.why.join('\n'), context).toContain('halfway to 4.1 req/s');
    const result = toRateLimitResult(
      estimate,
      outcome.proven,
      outcome.provenProof,
      [searchSaid(outcome.rounds, bracket)],
      { verdict: 'proven', rounds: outcome.rounds },
    );
    // The scouts' 5.1 held for 18 s only: the report's sustained rate is 4.6, and no output claims more.
    expect(result.sustained_rps, context).toBe(4.6);
    expect(result.recommendation?.target_rps, context).toBe(4.1);
    expect(heldRoundS(outcome.rounds, outcome.proven, lengths), context).toBe(HORIZON_S);
    const notes = (result.notes ?? []).join('\n');
    expect(notes, context).toContain("4.6 req/s held over the proof's whole horizon");
    expect(notes, context).toContain('a round paced at 5.1 req/s');
    expect(notes, context).not.toMatch(/sustained rate is the highest that held over the proof's horizon, 5\.1/);
  }, 120_000);

  // HAProxy 50 per 10 s counting every request, real (30 Nov): scouts 3.2, 4 and 5 held, 6.2 was
  // refused (31 % of its requests); over the horizon 6 and 5.6 were refused, 5.6 letting 4.1 req/s
  // through. Stepping down to that gave 4.1 sustained and 3.6 recommended (72 % of 5); the scouts'
  // 5 held over 120 s in the run before. The aim at 6 (3 % below 6.2) cost a rest and a cut round,
  // 40 s: a refusal of 12 % is no narrow one, so no round aims there, and 5.6, which would end the
  // scouting, is scouted rather than run over the horizon (a refused round over the horizon is cut
  // after 14 refusals, a scout after 3: real, 32 s against about 12). A refusal of 10 % is narrow:
  // the limit may lie just below 6.2, so 6 runs over the horizon before the rate bisected to.
  it.each([
    {
      name: "a refusal not narrow: no aim, the rate bisected to scouted and refused, then the scouts' hold",
      share: 0.12,
      holdsUpTo: 5,
      after: [
        [5.6, 'fails', 18],
        [5, 'holds', 'horizon'],
      ],
      proven: 4.5,
    },
    {
      name: 'a refusal not narrow: the rate bisected to scouted and held, then held over the horizon',
      share: 0.12,
      holdsUpTo: 5.6,
      after: [
        [5.6, 'holds', 18],
        [5.6, 'holds', 'horizon'],
      ],
      proven: 5,
    },
    {
      name: 'a refusal of at most 10 % is narrow: the first round over the horizon aims 3 % below it',
      share: 0.1,
      holdsUpTo: 5,
      after: [
        [6, 'fails', 'horizon'],
        [5.6, 'fails', 'horizon'],
        [5, 'holds', 'horizon'],
      ],
      proven: 4.5,
    },
  ])("the real bench's rounds replayed, $name", async ({ share, holdsUpTo, after, proven }) => {
    const outcome = await realRounds(share, holdsUpTo);
    const seen = outcome.rounds.map((r) => [r.target_rps, r.verdict, r.scout_s ?? 'horizon']);
    expect(seen).toEqual([[3.2, 'holds', 18], [4, 'holds', 18], [5, 'holds', 18], [6.2, 'fails', 18], ...after]);
    expect(outcome.proven?.target_rps).toBe(proven);
  });

  it("rounds no shorter than the horizon (`run`'s short rounds) are no scouts: the highest hold is proven, none run twice", async () => {
    const { estimate } = await searched({ seed: 1 });
    const bracket = estimate.rate_bracket!;
    const ROUND_S = 5;
    const outcome = await searchUntilHeld(
      searchStart(estimate)!,
      searchTop(estimate, bracket),
      async (rec) => {
        const holds = rec.target_rps <= 4.6;
        return { rate_429: holds ? 0 : 0.05, goodput_rps: rec.target_rps * (holds ? 1 : 0.95), lost_requests: 0 };
      },
      {
        reach: { burst: 0, roundS: ROUND_S, maxRoundS: ROUND_S, settleS: 0, refillRps: null },
        scoutS: scoutLengthS(bracket.restS, ROUND_S),
      },
    );
    const seen = outcome.rounds.map((r) => [r.target_rps, r.verdict, r.scout_s ?? 'horizon']);
    expect(seen).toEqual([
      [3.3, 'holds', 'horizon'],
      [4.1, 'holds', 'horizon'],
      [5.1, 'fails', 'horizon'],
      [4.6, 'holds', 'horizon'],
    ]);
    expect(outcome.proven?.target_rps).toBe(roundedRate(4.6 * (1 - SEARCH_HEADROOM)));
  });

  // CI land31: a bucket of 50 per second (burst 50) across toxiproxy, its rate read off too short a
  // span to stand, searched over `--horizon 5`: 55 req/s held 5 s on the burst, and was reported as
  // the sustained rate, 10 % high, while the rounds refused at 68 and 61 req/s (after about 190 and
  // 272 requests) lay on 52 stored + 49.2 req/s. Their line now heads the report, and the policy sits below it.
  it.each([1, 2, 3])(
    'a bucket searched over 5 s rounds, seed %i: a hold on its burst gives way to the refill the refused rounds lie on',
    async (seed) => {
      const run = await bucketSearchedOver5s(seed, {
        low: 44.24,
        high: 167.08,
        drained: 67,
        restS: 0.5,
        why: ['as in CI land31'],
      });
      const { outcome, result } = run;
      const context = JSON.stringify({
        rounds: outcome!.rounds.map((r) => [r.target_rps, r.verdict, r.rate_429, r.refusals_began_s]),
        given: outcome!.proven?.target_rps,
        sustained: result!.sustained_rps,
        held: result!.sustained_held,
      });
      const held = Math.max(...outcome!.rounds.filter((r) => r.verdict === 'holds').map((r) => r.target_rps));
      // The case: a rate above the bucket's held over the horizon, on what the bucket stored.
      expect(held, context).toBeGreaterThan(50);
      expect(result!.sustained_held?.quota_line?.held_rps, context).toBe(held);
      expect(Math.abs(result!.sustained_rps! - 50) / 50, context).toBeLessThanOrEqual(0.02);
      expect(outcome!.proven!.target_rps, context).toBeLessThanOrEqual(50 * (1 - SEARCH_HEADROOM));
      expect(outcome!.proven!.target_rps, context).toBeGreaterThanOrEqual(0.75 * 50);
      // No output heads with the hold as the rate a client may rely on.
      const out = everyFormat(reportOf(result!, run.untested ?? null));
      for (const [format, text] of Object.entries(out))
        expect(text, `${format} ${context}`).not.toMatch(
          new RegExp(`${held} req/s held over the proof's whole horizon, the highest rate found that does`),
        );
      expect(out.ratelimit, context).toContain(
        `${held} req/s held for 5 s by paced k6 rounds on what the limit stored`,
      );
      expectValidReport(JSON.parse(renderJson(reportOf(result!, run.untested ?? null))));
    },
  );

  // CI land34 and the virtual twin of it: the same bucket, the search begun elsewhere in the bracket.
  // Before, 56 to 60 req/s held 5 s on the store stood as sustained from five of these six starts:
  // rounds run straight after a hold, or half a second after a refusal, began on a store drawn down
  // and were refused early, off the line (searchRestS); two refused rounds 0.9 s apart, or a hold's
  // own late refusal beside one refused round, left no line (quota-line.ts); and one refused round
  // above the hold left nothing to read a refill from (spreadingRps).
  it.each([40, 45, 48, 50, 52, 55])(
    'a bucket of 50 per second, burst 50, searched over 5 s rounds from %s req/s: the refill within 2 %, no hold on the store heads the report',
    async (low) => {
      const run = await bucketSearchedOver5s(1, { low, high: 100, drained: 63, restS: 0.5, why: ['as in CI land34'] });
      const context = JSON.stringify({
        rounds: run.outcome!.rounds.map((r) => [r.target_rps, r.verdict, r.refusals_began_s]),
        sustained: run.result!.sustained_rps,
        held: run.result!.sustained_held,
      });
      expect(Math.abs(run.result!.sustained_rps! - 50) / 50, context).toBeLessThanOrEqual(0.02);
      expect(run.outcome!.proven!.target_rps, context).toBeLessThanOrEqual(50);
      expect(run.outcome!.proven!.target_rps, context).toBeGreaterThanOrEqual(0.75 * 50);
      // The store searched around costs a rest per round, not a crawl: at most nine rounds of 5 s with theirs.
      expect(run.endS! - run.estimate.duration_s, context).toBeLessThan(60);
    },
  );

  // CI 48a and 49a: the emulator's bucket of 50 per second, burst 50, behind connection-close (a TLS
  // handshake a request) on a loaded machine: not identified, the drain refused at 147.69 req/s after
  // 83, the search begun at the probe's 13.99 req/s. Its first 5 s round, 65 requests, held within
  // that burst: inconclusive, and the search ended there, "not tested", exit 1. Now it climbs from
  // the least rate that outlasts the burst.
  it('a bucket of 50 per second searched over 5 s rounds from 13.99 req/s, the first round within the burst: climbed on and sized', async () => {
    const { run, rounds, context } = await sizedPastAFirstRoundInTheBurst(
      { low: 13.99, high: 147.69, drained: 83, restS: 0.5, why: ['as in CI 49a'] },
      13,
    );
    expect(rounds[1]?.target_rps, context).toBe(20);
    expect(run.result!.sustained_rps!, context).toBeLessThanOrEqual(50 * 1.02);
    expect(run.outcome!.proven!.target_rps, context).toBeGreaterThanOrEqual(0.75 * 50);
  });

  // ci-62F: the same bucket behind connection-close and a single worker, starved on the heavy tier:
  // the drain went out at 62.68 req/s and let 259 through (50 stored and four seconds of refill),
  // and the search began at 31 req/s. Its 5 s round, 155 requests, held within that burst; the
  // least rate a 5 s round outlasts it at (62 req/s) lay past what the drain was refused at, and
  // the search ended with nothing sized: "not tested", exit 1. Its rounds now run past the horizon
  // as long as outlasting twice the burst takes, within the probe's budget.
  it('a bucket of 50 per second searched over 5 s rounds from 31 req/s after a slow drain let 259 through: rounds outlast it past the horizon, and a policy is sized', async () => {
    const { run, rounds, context } = await sizedPastAFirstRoundInTheBurst(
      { low: 31.34, high: 62.68, drained: 259, restS: 0.5, why: ['as in ci-62F'] },
      31,
    );
    // The store read five times too large (its drain counted four seconds of refill): a hold above
    // the rate may live on it, and the policy is no higher than what the rounds prove past it.
    const past = run.result!.sustained_held?.past_store;
    if (run.result!.sustained_rps! > 50) expect(past?.stored, context).toBe(259);
    if (past) expect(run.outcome!.proven!.target_rps, context).toBeLessThanOrEqual(past.sure_rps);
    // Rounds past the horizon offer twice that store, so a hold proves at least half its rate past
    // it (offering 1.2 times, 58 req/s held 6 s and the policy was 14 req/s).
    const holds = rounds.filter((r) => r.verdict === 'holds');
    for (const r of holds) expect(r.arrivals!, context).toBeGreaterThanOrEqual(2 * 259 * 0.95);
    const highest = Math.max(...holds.map((r) => r.target_rps));
    expect(run.outcome!.proven!.target_rps, context).toBeGreaterThanOrEqual(
      roundedRate((highest / 2) * (1 - SEARCH_HEADROOM)),
    );
    // No round longer than the probe's budget.
    expect(run.endS! - run.estimate.duration_s, context).toBeLessThan(150);
  });

  // ci-61D (and ci-60A): the cutover's sandbox, the emulator's bucket of 50 per second, starved beside
  // the heavy tier: its drain let 159 through, and the search began at 5 req/s over `run`'s 5 s rounds.
  // Every round held on that store and rested until the whole of it was back at 5 req/s, 32 s, and
  // the row was killed at 360 s (virtually, 370 s to the end). A round after a hold now rests a second,
  // and only a refusal after one that held on the store runs again rested (search-loop.ts againRested).
  it("a bucket of 50 per second searched from 5.9 req/s after a slow drain let 177 through: climbs a second after each hold, not the whole store's refill", async () => {
    const run = await bucketSearchedOver5s(1, { low: 5.9, high: 60, drained: 177, restS: 1.2, why: ['as in ci-61D'] });
    const rounds = run.outcome!.rounds;
    const context = JSON.stringify({
      rounds: rounds.map((r) => [r.target_rps, r.verdict, r.refusals_began_s, r.arrivals]),
      sustained: run.result!.sustained_rps,
      endS: run.endS! - run.estimate.duration_s,
    });
    expect(run.untested, context).toBeNull();
    // The store read three times too large, a hold above the rate over 5 s may live on it: it heads
    // only with what a client running longer is sure of, and the policy no higher than that.
    expect(run.outcome!.proven!.target_rps, context).toBeLessThanOrEqual(50);
    const past = run.result!.sustained_held?.past_store;
    if (run.result!.sustained_rps! > 50) expect(past?.stored, context).toBe(177);
    if (past) expect(run.outcome!.proven!.target_rps, context).toBeLessThanOrEqual(past.sure_rps);
    // Rests of 177 / 5.9 = 30 s before each round after a hold took 370 s; a second each now.
    expect(run.endS! - run.estimate.duration_s, context).toBeLessThan(200);
    expect(run.outcome!.rounds.filter((r) => r.verdict === 'holds').length, context).toBeGreaterThan(4);
  });

  // CI land34b: a sliding log of 50 per 1 s across a network, not identified, its search begun at
  // 4.9 req/s (what a probe that waited most of its run got through) over `run`'s 5 s rounds. Six
  // rounds climbing 25 % a hold end at 14.9, "the limit may lie well above it": 30 % of the rate.
  // Such rounds now get what six scouts' time buys (search-loop.ts shortRounds), and the search
  // brackets the rate as any other: held within 10 % of a refusal, the truth between.
  it('a log of 50 per 1 s searched over 5 s rounds from 5.9 req/s: climbed to its rate, not left at 3 times the guess', async () => {
    const log: LimiterModel = { kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: false };
    const run = await searched({
      seed: 1,
      limiter: () => fromModel(log),
      retryAfter: true,
      horizonS: 5,
      read: unidentified('a smooth window timed by round trips', {
        low: 5.9,
        high: 200,
        drained: 42,
        restS: 0.5,
        why: ['as in CI land34b'],
      }),
    });
    const rounds = run.outcome!.rounds.map((r) => [r.target_rps, r.verdict]);
    const context = JSON.stringify({ rounds, result: run.result!.sustained_rps, held: run.result!.sustained_held });
    expect(rounds[0], context).toEqual([5.9, 'holds']);
    const held = run.result!.sustained_held!;
    expect(run.result!.sustained_rps!, context).toBeLessThanOrEqual(50);
    expect(held.refused_rps!, context).toBeGreaterThan(50);
    expect(run.result!.sustained_rps! / held.refused_rps!, context).toBeGreaterThanOrEqual(SCOUT_NARROW);
    expect(run.outcome!.proven!.target_rps, context).toBeGreaterThanOrEqual(0.75 * 50);
    // Each such round is a proof, and its reasons say so, not "a scouting round".
    const steps = (run.outcome!.proven!.steps ?? []).join(' ');
    expect(steps, context).toMatch(/held a round over the whole horizon, and none has been refused yet/);
    expect(steps, context).not.toMatch(/scouting round/);
  });

  // A store a 5 s round cannot spend: a bucket of 20 per second with a burst of 100 holds 38 req/s
  // for 5 s from rest (190 ≤ 100 + 20 × 5), and no line reads its refill. Before, 38 headed the
  // report and 34 req/s was given, 1.7 times the rate; now the policy is what the hold proves past
  // the store, (190 − 105) / 5 = 17, and every format says why.
  // Its rate above 80 % of what one worker takes, so the probe's second drain met none (outrun.ts),
  // searched over `run`'s 5 s rounds. Before the search kept under the service's pace, a round at
  // 146.3 req/s met the limit at 125 and its refusal put the line at 91.58 req/s (`run`, 4 Dec).
  it('a bucket of 110/s behind one worker taking 125 a second: searched under that pace, sized at most its rate, no client at it said refused', async () => {
    const run = await searched({
      seed: 1,
      limiter: () => gcra(110, 30),
      retryAfter: true,
      horizonS: 5,
      served: { everyMs: 8 },
    });
    const rounds = run.outcome!.rounds.map((r) => [r.target_rps, r.verdict, r.refusals_began_s]);
    const context = JSON.stringify({ rounds, notes: run.estimate.notes });
    expect(run.bracket!.high, context).toBeLessThanOrEqual(125);
    expect(
      run.outcome!.rounds.every((r) => r.target_rps <= run.bracket!.high),
      context,
    ).toBe(true);
    expect(run.result!.sustained_rps!, context).toBeGreaterThanOrEqual(0.75 * 110);
    expect(run.result!.sustained_rps!, context).toBeLessThanOrEqual(110);
    // Never that a client at the true rate is refused: what the skewed line said of 110 req/s.
    const said = JSON.stringify(run.result);
    expect(said, context).not.toMatch(/refused after about \d+ s by a client running longer/);
    expect(run.result!.recommendation!.target_rps, context).toBeLessThanOrEqual(110);
    // The 5 s hold on a store of 226 proves 64.8 req/s past it; the probe's second drain, let
    // through whole at 100 req/s, proves more, and the policy is given from it, within 75–100 %.
    const past = run.result!.sustained_held?.past_store;
    expect(past?.probe_hold?.requests, context).toBeGreaterThan(run.bracket!.drained);
    expect(run.result!.recommendation!.target_rps, context).toBeGreaterThanOrEqual(0.75 * 110);
    expect(run.result!.recommendation!.target_rps, context).toBeLessThanOrEqual(past!.sure_rps);
    const out = everyFormat(reportOf(run.result!, run.untested ?? null));
    for (const [format, text] of Object.entries(out))
      expect(text.replace(/\s+/g, ' '), `${format} ${context}`).toMatch(
        new RegExp(`sure of ${past!.sure_rps}( req)?/s only \\(the probe\\S{1,6}s own [\\d,]+ requests let through`),
      );
    expectValidReport(JSON.parse(renderJson(reportOf(run.result!, run.untested ?? null))));
  });

  it('a bucket whose store outlasts 5 s rounds: the policy no higher than the hold proves past it, said', async () => {
    const run = await bucketSearchedOver5s(
      1,
      // A drain refused at 42 req/s: the climb stops at 38, within 10 % of it, none refused. From a drain
      // at 60 the rounds would climb on to refusals at 47 and 42 (`run`'s short rounds, search-loop.ts
      // shortRounds), and the line they lie on read its refill (20.14 ± 1.32 req/s, 18 given).
      { low: 16, high: 42, drained: 105, restS: 0.5, why: ['a drain at 42 req/s refused after 105'] },
      () => gcra(20, 100),
    );
    const { outcome, result } = run;
    const context = JSON.stringify({
      rounds: outcome!.rounds.map((r) => [r.target_rps, r.verdict, r.refusals_began_s, r.arrivals]),
      given: outcome!.proven?.target_rps,
      held: result!.sustained_held,
    });
    const past = result!.sustained_held?.past_store;
    expect(past, context).toEqual({ stored: 105, sure_rps: expect.any(Number) });
    expect(outcome!.proven!.target_rps, context).toBeLessThanOrEqual(past!.sure_rps);
    expect(outcome!.proven!.target_rps, context).toBeLessThanOrEqual(20);
    expect(outcome!.proven!.target_rps, context).toBeGreaterThanOrEqual(0.75 * 20);
    const out = everyFormat(reportOf(result!, run.untested ?? null));
    for (const [format, text] of Object.entries(out))
      expect(text.replace(/\s+/g, ' '), `${format} ${context}`).toMatch(
        new RegExp(`a client running longer is sure of ${past!.sure_rps}( req)?/s only`),
      );
    expectValidReport(JSON.parse(renderJson(reportOf(result!, run.untested ?? null))));
  });

  it('a search with no hold says where it was refused and where the probe pointed it, and gives nothing', () => {
    const why = ['the drain, paced at 200 req/s from rest, was refused after 48 let through'];
    const said = searchSaid(
      [
        { target_rps: 3.3, verdict: 'fails', rate_429: 0.4 },
        { target_rps: 2, verdict: 'fails', rate_429: 0.3 },
      ],
      { why },
    );
    expect(said).toContain("no rate held over the proof's whole horizon in 2 rounds; refused down to 2 req/s");
    expect(said).toContain(why[0]);
    expect(said).not.toContain('at least');
  });

  it('a search says a round above its hold "was refused" only when it was: one that met few 429s met them, one with none bounds nothing', () => {
    const why = ['the probe got 394 requests through in 20.8 s (18.97 req/s)'];
    const held = { target_rps: 20, verdict: 'holds', rate_429: 0 } as const;
    const said = (rate_429: number) =>
      searchSaid(
        [held, { target_rps: 25, verdict: 'fails', rate_429: 0.2 }, { target_rps: 21, verdict: 'fails', rate_429 }],
        {
          why,
        },
      );
    expect(said(0.0056)).toContain('a round paced at 21 req/s met 429s and failed');
    // Lost calls on slow answers, not a single 429: the round was refused, no limit placed.
    expect(said(0)).toContain('a round paced at 25 req/s was refused');
  });

  // A search bounded by a limit announced and not verified (searchTop) never looks above it: its
  // hold there is not "the limit may lie well above it", as if the rounds had run out, but capped.
  it('a search held up to an announced limit says it looked no higher, and why; without one, that the limit may lie above', () => {
    const why = ['the probe got 60 requests through in 20 s (3 req/s)'];
    const rounds = [
      { target_rps: 2.4, verdict: 'holds', rate_429: 0 },
      { target_rps: 2.7, verdict: 'holds', rate_429: 0 },
    ] as const;
    const ceiling = { rps: 3, limit: ANNOUNCED };
    const capped = searchSaid(rounds, { why, high: 8 }, ceiling);
    expect(capped).toContain(
      'none went above 3 req/s, announced as 30 per 10 s (RateLimit-Policy, not verified), which a client must not pass either',
    );
    expect(capped).not.toContain('may lie well above it');
    expect(searchSaid(rounds, { why, high: 8 })).toContain('so the limit may lie well above it');
    // The drain's pace below the announcement was the top: the announcement bounded nothing.
    expect(searchSaid(rounds, { why, high: 2.9 }, ceiling)).toContain('so the limit may lie well above it');
  });

  it('a limiter the detectors identify records no bracket and is recommended as before', async () => {
    const estimate = await discoverVirtual({ limiter: () => gcra(10, 20), status: 429 });
    expect(estimate.limiter?.kind).toBe('bucket');
    expect(estimate.rate_bracket).toBeUndefined();
    expect(searchStart(estimate)).toBeNull();
    // 20 % below the 10 req/s read, as before: the search is not its path.
    expect(recommend(estimate)?.target_rps).toBeGreaterThanOrEqual(7.8);
    expect(recommend(estimate)?.target_rps).toBeLessThanOrEqual(8);
  }, 120_000);
});

/** A round as the loop records it: refused rounds saw 30 % 429; `scout_s` for a scout. */
const round = (target_rps: number, verdict: 'holds' | 'fails', scout_s?: number): ProofRound => ({
  target_rps,
  max_concurrency: 2,
  backoff_base_ms: 500,
  max_retries: 3,
  rate_429: verdict === 'holds' ? 0 : 0.3,
  goodput_rps: target_rps * (verdict === 'holds' ? 1 : 0.7),
  lost_requests: 0,
  ...(scout_s !== undefined ? { scout_s } : {}),
  verdict,
  why: verdict,
});

describe('the headline is what holds: a search that held over the horizon sizes the limit, one that did not leaves it not tested', () => {
  it('HAProxy 50 per 10 s, not identified, a full round held: every format heads with the held rate, the run passes', async () => {
    const { outcome, result, untested } = await searched({ seed: 1 });
    const full = outcome!.rounds.filter((r) => r.verdict === 'holds' && r.scout_s === undefined);
    const held = Math.max(...full.map((r) => r.target_rps));
    const refused = Math.min(...refutingRounds(outcome!.rounds).map((r) => r.target_rps));
    const given = result!.recommendation!.target_rps;
    const context = JSON.stringify({
      held,
      refused,
      given,
      rounds: outcome!.rounds.map((r) => [r.target_rps, r.verdict, r.scout_s]),
    });
    expect(untested, context).toBeNull();
    const report = reportOf(result!, untested === undefined ? 'no search ran' : untested);
    expect(verdictWord(report), context).toBe('PASS');
    const out = everyFormat(report);
    // The run's closing line: the held rate, not "~X measured over the probe", its span and bracket, then the scope.
    expect(out.terminal, context).toContain(
      `rate limit: ${held} req/s sustained, held for ${HORIZON_S} s by paced k6 rounds, the limiter not identified; a round paced at ${refused} req/s was refused; recommend ${given} req/s`,
    );
    expect(out.terminal, context).toMatch(
      new RegExp(`; proven for ${HORIZON_S} s; a limit on a window longer than \\d+(\\.\\d)? s is not tested`),
    );
    expect(out.terminal, context).not.toMatch(/not tested \(rate_limit\)/);
    expect(out.ratelimit, context).toContain(
      `sustained ${held} req/s (held for ${HORIZON_S} s by paced k6 rounds, the limiter not identified; a round paced at ${refused} req/s was refused)`,
    );
    expect(out.ratelimit, context).toContain(
      'limiter: not identified; the sustained rate is the highest that paced k6 rounds held',
    );
    const words = `${formatRate(held)} (held for ${HORIZON_S} s by paced k6 rounds, the limiter not identified; a round paced at ${formatRate(refused)} was refused)`;
    for (const format of ['md', 'html', 'junit'] as const) {
      expect(out[format], `${format} ${context}`).toContain(words);
      expect(out[format], `${format} ${context}`).toContain(`send at most ${formatRate(given)}`);
      expect(out[format], `${format} ${context}`).toContain(`proven for ${HORIZON_S} s`);
    }
    expect(out.md, context).not.toContain('Not tested');
    expect(out.html, context).not.toContain('id="untested"');
    expect(out.junit, context).not.toContain('could not test');
    const json = JSON.parse(renderJson(report)) as Report;
    expectValidReport(json);
    expect(json.verdict, context).toBe('pass');
    expect(json.rate_limit!.sustained_rps, context).toBe(held);
    expect(json.rate_limit!.sustained_held, context).toEqual({ held_s: HORIZON_S, refused_rps: refused });
    expect(json.rate_limit!.limiter ?? null, context).toBeNull();
    expect(json.rate_limit!.proof_horizon?.proven_s, context).toBe(HORIZON_S);
  }, 120_000);

  it('only scouts held, every round over the horizon refused: nothing sized, not tested, nothing recommended', async () => {
    // A limit a scout is too short to see: rounds shorter than the horizon hold up to 5.5 req/s,
    // every round over it is refused (a second window longer than a scout, lower than MIN_PROOF_RPS).
    const { estimate } = await searched({ seed: 1 });
    const bracket = estimate.rate_bracket!;
    const first = searchStart(estimate)!;
    const lengths: number[] = [];
    const outcome = await searchUntilHeld(
      first,
      searchTop(estimate, bracket),
      async (rec, { round, durationS = HORIZON_S }) => {
        lengths[round - 1] = durationS;
        const holds = durationS < HORIZON_S && rec.target_rps <= 5.5;
        return { rate_429: holds ? 0 : 0.3, goodput_rps: rec.target_rps * (holds ? 1 : 0.7), lost_requests: 0 };
      },
      {
        reach: { ...searchBurst(bracket), roundS: HORIZON_S, maxRoundS: 150, settleS: bracket.restS, refillRps: null },
        scoutS: scoutLengthS(bracket.restS, HORIZON_S),
      },
    );
    const context = JSON.stringify(outcome.rounds.map((r) => [r.target_rps, r.verdict, r.scout_s]));
    expect(
      outcome.rounds.some((r) => r.scout_s !== undefined && r.verdict === 'holds'),
      context,
    ).toBe(true);
    const { result, untested } = asTheStageReports(estimate, first, outcome, lengths);
    expect(result.sustained_held, context).toBeUndefined();
    expect(result.sustained_rps, context).toBeNull();
    expect(result.recommendation, context).toBeNull();
    expect(untested, context).toMatch(/^\/introspect: not identified: /);
    const report = reportOf(result, untested);
    expect(verdictWord(report), context).toBe('NOT TESTED');
    const out = everyFormat(report);
    expect(out.terminal, context).toContain('not tested (rate_limit): /introspect: not identified');
    expect(out.terminal, context).not.toMatch(/held for \d+ s by paced k6 rounds/);
    for (const format of ['md', 'html', 'junit'] as const)
      expect(out[format], context).not.toMatch(/held for \d+ s by paced k6 rounds/);
  }, 120_000);

  it("a round held, but no round over the horizon: a scout's hold proves nothing, not tested", async () => {
    const { estimate } = await searched({ seed: 1 });
    const first = searchStart(estimate)!;
    // The loop never gives a scout's hold; were it given (the loop broken), the stage still sizes nothing.
    const outcome = {
      proven: { ...first, target_rps: 4.5 },
      unproven: null,
      rounds: [round(3.3, 'holds', 18), round(5, 'holds', 18), round(6.2, 'fails', 18)],
      provenProof: { rate_429: 0, goodput_rps: 5, lost_requests: 0 },
      lastProof: null,
    };
    const { result, untested } = asTheStageReports(estimate, first, outcome, [18, 18, 18]);
    expect(result.sustained_held).toBeUndefined();
    expect(untested).toMatch(
      /^\/introspect: not identified: .*; paced k6 rounds held no rate over a whole round of the horizon \(3 rounds\), so nothing was sized$/,
    );
  }, 120_000);

  it('a full round held, far below the lowest refusal: a floor, not the rate, so not tested; nothing above refused: sized', async () => {
    const { estimate } = await searched({ seed: 1 });
    const first = searchStart(estimate)!;
    const held = (rounds: ProofRound[]) =>
      asTheStageReports(
        estimate,
        first,
        {
          proven: { ...first, target_rps: 2.9 },
          unproven: null,
          rounds,
          provenProof: { rate_429: 0, goodput_rps: 3.3, lost_requests: 0 },
          lastProof: null,
        },
        rounds.map(() => HORIZON_S),
      );
    // 3.3 held, 8 refused: more than twice apart, the rounds never brought the hold up to the limit.
    const wide = held([round(3.3, 'holds'), round(8, 'fails')]);
    expect(wide.result.sustained_held).toBeUndefined();
    expect(wide.untested).toContain(
      "; 3.3 req/s held over a whole round, more than 2 times below the lowest rate refused: a floor, not the limit's rate, so nothing was sized",
    );
    // Nothing above the hold refused (the search stopped below its top): sized, and said so.
    const none = held([round(3.3, 'holds')]);
    expect(none.result.sustained_held).toEqual({ held_s: HORIZON_S, refused_rps: null });
    expect(none.result.sustained_rps).toBe(3.3);
    expect(none.untested).toBeNull();
    expect(summaryLines(none.result).join('\n')).toContain(
      `sustained 3.3 req/s (held for ${HORIZON_S} s by paced k6 rounds, the limiter not identified; no round above it was refused)`,
    );
    // --fleet N is sized on the rate every format gives (what the rounds left standing had none).
    const fleet = (r: ReturnType<typeof held>) =>
      sizeFleet({
        estimate: standingAfterProof(estimate, r.proving, r.result),
        recommendation: r.result.recommendation!,
        instances: 2,
      });
    expect(fleet(none)?.limiter).toMatch(/3\.3 req\/s/);
    expect(fleet(wide)).toBeNull();
    // Rounds above the hold that met 429s, fewer than a refusal takes, and failed all the same (they
    // fell behind their rate waiting them out): nothing refuted, but "no round above it was refused"
    // would deny them. The lowest bounds the limit, in every format.
    const fellBehind = (rps: number, rate_429: number): ProofRound => ({
      ...round(rps, 'fails'),
      rate_429,
      why: 'arrivals dropped while calls waited out refusals, so the rate was not offered',
    });
    const met = held([round(3.3, 'holds'), fellBehind(3.9, 0.0069), fellBehind(3.6, 0.0056)]);
    expect(met.result.sustained_held).toEqual({ held_s: HORIZON_S, refused_rps: null, met_429_rps: 3.6 });
    const said = summaryLines(met.result).join('\n');
    expect(said).toContain(
      `sustained 3.3 req/s (held for ${HORIZON_S} s by paced k6 rounds, the limiter not identified; a round paced at 3.6 req/s met 429s and failed)`,
    );
    expect(said).not.toContain('no round above it was refused');
  }, 120_000);
});

describe("a search's round against the drain's burst", () => {
  // The real bench's HAProxy 50 per 10 s: the drain let 47 through, and the stage took the
  // estimate's "burst not from idle" (no burst was read), so a round of 384 requests at 3.2 req/s
  // was judged inconclusive, and nothing was given.
  it('outlasts what the drain let through, so a hold proves the rate', () => {
    const plan = planRound(
      3.2,
      { ...searchBurst({ drained: 47 }), roundS: 120, maxRoundS: 150, settleS: 17.7, refillRps: null },
      true,
    );
    expect(plan).toMatchObject({ durationS: 120, startBurst: 47, reaches: true });
  });
});
