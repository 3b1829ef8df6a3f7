// A long window that says nothing (no RateLimit field, no Retry-After: HAProxy, many gateways):
// 60/min, 600/min. The first recovery's gaps grow by half (recover.ts), so after a minute they are
// twenty seconds wide, and walking edge by edge (window-edges.ts) takes many windows. Once no
// request has passed for LONG_WINDOW_S after the limit shut, each ping instead follows the last by
// at most 2 % of the time since the drain began: the first edge to within 2 % of the window. Then
// the rest of the limit, a little later (counted: the limit); the window is at least as long as
// the first edge came after the drain, so the second edge is looked for from there, again 2 % of
// the time since the first edge apart; and the whole limit must pass again right after it, which
// a sliding log (its slots free a period after each request, and the clump went out apart from
// the first ping) does not do. The first edge, then one window: two windows at most, when the
// probe started as a window began; three limits' worth of requests and a couple of hundred pings.
// A window whose second edge cannot come within the time cap is said to be longer than the
// budget as soon as that is certain, never guessed. A limit that comes back one request at a time
// after the long wait (a slow bucket) goes on to the usual phases; more, but less than the drain
// (a sliding-window counter) is not sized.
//
// Every time here is when the service saw the request: the middle of [sent, answered], which on a
// network ~100 ms away is the measured uncertainty (half a round trip either way), not the send time.

import { midpoint, type Bracket } from '../identify.js';
import { PAST_PROBE, probingHowTo } from '../horizon.js';
import { countSlack, round } from '../estimators.js';
import type { FixedWindowModel } from '../limiters/index.js';
import { ONE_AT_A_TIME, slidingLog } from './sliding-log.js';
import type { WindowModel } from './window-path.js';
import { counterRampPhase, drainSentRps } from './counter-ramp.js';
import { counterFitPhase } from './counter-fit.js';
import { quietRampPhase } from './quiet-ramp.js';
import type { Sample } from '../types.js';
import { LONG_WINDOW_S, phaseS } from './advertised.js';
import { seenMs } from './arrival.js';
import { drainAt, pingUntilAccepted, topUp, type Recovery } from './ping.js';
import { statedWindowPrecision } from './window-edges.js';
import type { Probe } from './probe.js';
import { countUntilRefused, firstGapMs, firstRecovery, type DrainFigures } from './recover.js';

/** A first recovery this long marks a long window: the same threshold as an announced one. */
const LONG_WAIT_MS = LONG_WINDOW_S * 1000;
/**
 * Each ping of the first edge's search at most this share of the time since the drain after the
 * last (the edge to within it, its middle to within half); the second edge's search, which starts
 * a shortest window after the first edge and so is short, half as far apart.
 */
const EDGE_STEP = 0.02;
const SECOND_EDGE_STEP = 0.01;
/** The rest of the limit follows the first edge's ping by this share of the shortest window it can be. */
const CLUMP_DELAY = 0.1;

export interface SilentWindowFindings {
  /** The first recovery: the usual phases go on from it when it came before a window counts as long. */
  recovery: Recovery;
  /** Set when the recovery took LONG_WINDOW_S or more: what the long window's edges showed. */
  long?: {
    model: WindowModel | null;
    evidence: string[];
    notes: string[];
    /** How far a fixed window's length may be off, relative: as far as its two edges leave it (statedWindowPrecision). */
    precision?: number;
  };
  /**
   * Set when the limit shut for long, then let requests back one at a time: not a window that
   * resets (a slow bucket), so the usual phases go on from here instead of ending unidentified.
   */
  notResetting?: boolean;
}

const fmt = (ms: number) => `${round(ms / 1000, 1)} s`;

/** The first recovery after the drain, and when it is long, the window sized by its two edges. */
export async function silentWindowPhase(probe: Probe, drain: DrainFigures): Promise<SilentWindowFindings> {
  const budget = `the probe's budget is ${probe.maxDurationMs / 1000} s`;
  let tooLongFromMs: number | undefined;
  let told = false;
  const recovery = await firstRecovery(probe, drain, (gap, last) => {
    const next = 1.5 * gap;
    const { shut, startMs } = sinceLastClump(probe, drain, last.sentMs);
    if (last.sentMs + next - shut.refusal.sentMs < LONG_WAIT_MS) return next;
    // The window is longer than the drain's start to now, and its second edge a window after its first.
    const shortestMs = seenMs(last) - startMs;
    if (last.sentMs + shortestMs > probe.maxDurationMs) {
      tooLongFromMs = shortestMs;
      return undefined;
    }
    if (!told) {
      told = true;
      probe.progress(
        `no request passed for ${fmt(LONG_WAIT_MS)} after the limit shut: a long window; its first edge, then one window: twice the window at most; ${budget}`,
      );
    }
    return Math.max(firstGapMs(probe), Math.min(next, EDGE_STEP * shortestMs));
  });
  const first = recovery.accepted;
  if (tooLongFromMs !== undefined) return { recovery, long: longerThanBudget(probe, tooLongFromMs) };
  // A first edge needs a refused ping just before it. When the very first ping passed, the limit
  // lifted somewhere in a wait nothing watched (the announced edge advertised.ts waited for, then
  // found false): not a long window. httprate 100 per 10 s (Retry-After: 10) is back at its edge
  // 2.6 s after the limit shut, but was first asked at 9.3 s: read as shut 8.8 s, it was not identified.
  if (!first || !recovery.lastRefused) return { recovery };
  const { shut, startMs } = sinceLastClump(probe, drain, recovery.lastRefused.sentMs);
  if (first.sentMs - shut.refusal.sentMs < LONG_WAIT_MS) return { recovery };
  const long = await sizeLongWindow(probe, shut, recovery as Recovery & { accepted: Sample }, startMs);
  if (long === NOT_RESETTING) return { recovery, notResetting: true };
  return { recovery, long };
}

/**
 * The drain, or when a whole window's worth passed again after its refusal (an announced reset
 * tested before this phase, advertised.ts) and the limit shut again before `untilMs`, that clump in
 * its place: the shut is timed from the refusal after it, and the window that ends at the first
 * edge began no later than its first request (`startMs`, when the limiter saw it). Timed from the
 * drain, the real emulator's 10 s window, open at 6 s while its Retry-After was tested, was "shut
 * 15 s", a window of at least 15.7 s, and its second edge looked for 5 s late. A counter's partial
 * comeback (fewer than the drain) leaves the drain in place: its ramp is timed from the drain.
 */
function sinceLastClump(probe: Probe, drain: DrainFigures, untilMs: number): { shut: DrainFigures; startMs: number } {
  const own = probe.samples
    .filter((s) => s.client === 'primary' && s.answer !== 'error')
    .filter((s) => s.sentMs > drain.refusal.sentMs && s.sentMs <= untilMs)
    .sort((a, b) => a.sentMs - b.sentMs);
  const passed = own.filter((s) => s.answer === 'accepted');
  // The last clump a whole window's worth (admissions no more than CLUMP_GAP_MS apart), and after
  // it only what a window that came back whole leaves (countSlack): the shut is timed after those.
  const whole = drain.accepted - countSlack(drain.accepted);
  let end = passed.length;
  let start = end - 1;
  for (; start >= 0; start--) {
    if (start > 0 && passed[start]!.sentMs - passed[start - 1]!.sentMs <= CLUMP_GAP_MS) continue;
    if (end - start >= whole || passed.length - end > countSlack(drain.accepted)) break;
    end = start;
  }
  const last = passed.at(-1);
  const refusal = last && own.find((s) => s.answer === 'limited' && s.sentMs > last.sentMs);
  if (start < 0 || end - start < whole || !refusal) {
    const drainSample = probe.samples.find((s) => s.phase === 'drain' && s.sentMs === drain.firstMs);
    return { shut: drain, startMs: drainSample ? seenMs(drainSample) : drain.firstMs };
  }
  return {
    shut: { ...drain, refusal, firstMs: passed[start]!.sentMs, lastMs: last.sentMs },
    startMs: seenMs(passed[start]!),
  };
}

/** Admissions this close in time (ms) belong to one clump (sinceLastClump): its run and the top-ups after. */
const CLUMP_GAP_MS = 1000;

function longerThanBudget(probe: Probe, shortestMs: number) {
  const budgetS = probe.maxDurationMs / 1000;
  const own = probe.samples
    .filter((s) => s.client === 'primary' && s.answer !== 'error')
    .sort((a, b) => a.sentMs - b.sentMs);
  const firstRefusedMs = own.find((s) => s.answer === 'limited')?.sentMs ?? 0;
  const accepted = own.filter((s) => s.answer === 'accepted');
  const cameBack = accepted.filter((s) => s.sentMs > firstRefusedMs).length;
  const lastAcceptedMs = accepted.at(-1)?.sentMs ?? 0;
  const shutMs = (own.at(-1)?.sentMs ?? 0) - lastAcceptedMs;
  // A partial comeback (a sliding counter's, or a window that reset with the probe's requests still
  // in it) is no window unbroken since the drain: "not lifted for 15.2 s since it shut" was said of
  // a counter of 50 per 10 s that let 9 through 8 s after the drain.
  const kept = keptShutByOwn(own, lastAcceptedMs, shutMs);
  const lifted =
    cameBack === 0
      ? `the limit has not lifted for ${fmt(shortestMs)} since it shut`
      : `the limit let ${cameBack} through again after it shut, then nothing in the last ${fmt(shutMs)}`;
  const head =
    cameBack === 0 && kept === null
      ? `${PAST_PROBE} (${budgetS} s): ${lifted}, so a window is at least that long and its second edge comes after the cap (or the limit never lifts)`
      : `shut past the probe's budget: ${lifted}; ${kept === null ? 'the likeliest cause' : 'one cause'}: ${PAST_PROBE} (${budgetS} s)${cameBack === 0 ? `, a window of at least ${fmt(shortestMs)} whose second edge comes after the cap` : ''} (or a limit that never lifts)`;
  const note = `not identified: ${head}${kept === null ? '' : heldShutBy('requests', kept)}`;
  return { model: null, evidence: [note], notes: [note] };
}

/**
 * The other cause of a limit that stayed shut to the probe's end, beside a long window: one that
 * counts refused requests, held shut by what the probe (`by`: its stream, or any of its requests)
 * went on sending, at `rps`.
 */
const heldShutBy = (by: 'stream' | 'requests', rps: number): string =>
  `; or a limit that counts refused requests, held shut by the probe's own ${by}, which went on sending ${rps} req/s meanwhile (it stays shut under any pace above its rate)`;

/**
 * The pace of the probe's requests (any phase) while the limit stayed shut at its end, req/s, when
 * at least half of what the probe got through a second over its whole run: a limit counting refused
 * requests at a rate up to that pace is held shut by them (a counter of 50 per 10 s counting refusals
 * met the long window's pings at 4 req/s and stayed shut). Null when the pings were sparser.
 */
function keptShutByOwn(own: readonly Sample[], lastAcceptedMs: number, shutMs: number): number | null {
  const spanS = ((own.at(-1)?.doneMs ?? 0) - (own[0]?.sentMs ?? 0)) / 1000;
  if (!(shutMs > 0) || !(spanS > 0)) return null;
  const pace = own.filter((s) => s.sentMs > lastAcceptedMs).length / (shutMs / 1000);
  const through = own.filter((s) => s.answer === 'accepted').length / spanS;
  return pace >= through / 2 ? round(pace, 1) : null;
}

/**
 * Said beside a verdict reached on what the phases saw (drain-tail.ts: "shut until an edge, not a
 * bucket") when the limit never let a request through again up to the probe's cap: a window longer
 * than the budget is then the likeliest cause, at least as long as it stayed shut (and, when a
 * Retry-After said so, that much longer), and how to give the probe such a window; '' otherwise.
 */
export function neverLifted(probe: Probe): string {
  const primary = probe.samples.filter((s) => s.client === 'primary');
  const lastAccepted = Math.max(0, ...primary.filter((s) => s.answer === 'accepted').map((s) => s.sentMs));
  const lastRefused = Math.max(0, ...primary.filter((s) => s.answer === 'limited').map((s) => s.sentMs));
  const shutMs = lastRefused - lastAccepted;
  if (probe.stoppedBy !== 'time' || shutMs < LONG_WAIT_MS) return '';
  const said = probe.refusals.lastRetryAfter?.seconds;
  const atLeastS = Math.ceil(shutMs / 1000 + (said ?? 0));
  const retryAfter = said !== undefined ? `, and the last Retry-After said ${said} s more` : '';
  const kept = keptShutByStream(primary, lastAccepted, shutMs);
  const held = kept === null ? '' : `${heldShutBy('stream', kept)}: paced rounds at lower rates tell the two apart`;
  // Beside a stream that may have held it shut, the long window is one cause of two, not the likeliest.
  const likely = kept === null ? 'the likeliest cause' : 'one cause';
  return `; the limit never lifted in the last ${fmt(shutMs)} of the probe's ${probe.maxDurationMs / 1000} s${retryAfter}: a window longer than the budget is ${likely} (or a limit that never lifts), at least ${atLeastS} s long, which takes at least ${Math.ceil(2.5 * atLeastS)} s of probing; ${probingHowTo(atLeastS, 2.5 * atLeastS, false)}${held}`;
}

/**
 * The pace the probe's sustained-rate stream kept up while the limit stayed shut (req/s), when most
 * of what it sent then was that stream's; else null. A stream offers above the rate it read, and a
 * limit that counts refusals (HAProxy's usual recipe) is held shut by it: behind a slow service, a
 * stream raised to 52 req/s against HAProxy's 50 per 1 s was refused for the last 44 s, and the note
 * named only a window longer than the budget, and --horizon 90. A stream against an hourly quota
 * (Flask-Limiter's "50 per hour" behind 10 per second) looks the same from here: both are said.
 */
function keptShutByStream(primary: readonly Sample[], lastAcceptedMs: number, shutMs: number): number | null {
  const shut = primary.filter((s) => s.sentMs > lastAcceptedMs);
  const streamed = shut.filter((s) => s.phase === 'pilot' || s.phase === 'window').length;
  return shutMs > 0 && streamed > shut.length / 2 ? round(shut.length / (shutMs / 1000), 1) : null;
}

const NOT_RESETTING = Symbol('not a window that resets');

async function sizeLongWindow(
  probe: Probe,
  drain: DrainFigures,
  recovery: Recovery & { accepted: Sample },
  startMs: number,
): Promise<NonNullable<SilentWindowFindings['long']> | typeof NOT_RESETTING> {
  const budget = `the probe's budget is ${probe.maxDurationMs / 1000} s`;
  const notIdentified = (why: string) => {
    const note = `not identified: ${why}`;
    return { model: null, evidence: [note], notes: [note] };
  };
  const p1 = recovery.accepted;
  const edge1: Bracket = { lo: seenMs(recovery.lastRefused ?? drain.refusal), hi: seenMs(p1) };
  // The drain and every refused ping lay in the window that ended at the first edge.
  const shortestMs = edge1.lo - startMs;
  probe.progress(
    `a request passed again ${fmt(p1.sentMs - drain.refusal.sentMs)} after the limit shut: a window of at least ${fmt(shortestMs)}; its next edge comes ${fmt(edge1.lo + shortestMs - probe.elapsed())} from now at the earliest; ${budget}`,
  );
  const clumpDelayMs = CLUMP_DELAY * shortestMs;
  const rest = await drainAt(probe, 'edges', p1.sentMs + clumpDelayMs, drain.limit + 5);
  if (!rest)
    return notIdentified(`the budget ran out after the first edge of a long window (${fmt(shortestMs)} or more)`);
  const limit =
    1 +
    countUntilRefused(rest) +
    (await leftInWindow(probe, rest, 1 + countUntilRefused(rest) >= drain.accepted, edge1.lo + shortestMs / 2));
  if (!rest.some((s) => s.answer === 'limited'))
    return notIdentified(
      `the limit shut for ${fmt(p1.sentMs - drain.refusal.sentMs)}, then ${limit} passed without a refusal: not a window that resets; not sized`,
    );
  if (limit < drain.accepted) {
    const seen = `the limit shut for ${fmt(p1.sentMs - drain.refusal.sentMs)}, then ${limit} passed where the drain let ${drain.accepted} through: not a window that resets`;
    // One at a time, as a slow bucket or a log frees them: the usual phases time the admissions.
    if (limit <= ONE_AT_A_TIME) {
      probe.progress(`${seen}; one at a time: timed as a smooth limit`);
      return NOT_RESETTING;
    }
    // More at once, fewer than the drain: a window that weighs the last one (a sliding-window
    // counter). Its weight is now spent by the clump, which misleads every later phase (httprate
    // 100 per 10 s, its edge 7.5 s after the drain: read as a sliding log 37 % fast): its ramp is
    // timed here instead, inside the window after the edge (counter-ramp.ts), or it is not sized.
    probe.progress(`${seen}, yet more than one at a time: a window weighing the last one; timing its ramp`);
    const rampStart = {
      prev: drain.limit,
      limit: drain.limit,
      edge: edge1,
      refusal: drain.refusal,
      shortestMs,
      drainStartMs: startMs,
      sendRps: drainSentRps(probe, drain),
    };
    const ramp = await counterRampPhase(probe, rampStart);
    // Kept shut by pings a fraction of a step apart: each was counted (HAProxy's usual recipe at a
    // 10 s period), so it is timed without them, by one clump after a quiet spell (quiet-ramp.ts).
    if (!ramp.shut) return ramp;
    const quiet = await quietRampPhase(probe, rampStart);
    if (quiet.model) return quiet;
    const straddled = await straddledFixedWindow(probe, drain, { edge1, p1, limit });
    if (straddled) return straddled;
    // Every request counted and the crossings too close to time apart: fit over the whole trace.
    const fit = await counterFitPhase(probe, drain);
    if (fit?.model) return fit;
    return { ...quiet, evidence: [...ramp.evidence, ...quiet.evidence, ...(fit?.evidence ?? [])] };
  }
  const fromMs = edge1.lo + shortestMs;
  if (fromMs > probe.maxDurationMs) return longerThanBudget(probe, shortestMs);
  const again = await wholeAgain(probe, { edge1, limit, fromMs, clumpDelayMs });
  if (!again)
    return notIdentified(
      `the window is longer than the probe's budget (${probe.maxDurationMs / 1000} s): its first edge came ${fmt(p1.sentMs - drain.refusal.sentMs)} after the limit shut, and no second one before the cap`,
    );
  const { edge2, length, whole } = again;
  if (loose(length)) return notIdentified(looseWhy(length));
  if (again.cutByCap)
    return notIdentified(
      `the probe's request cap (rate_limit.max_requests ${probe.maxRequests}) ran out in the clump after the second edge of a long window (about ${fmt(midpoint(length).value)}), ${whole} of ${limit} let through and none refused yet: a window of ${limit} takes about ${Math.ceil((3.5 * limit) / 100) * 100} requests to size; raise rate_limit.max_requests`,
    );
  // Within a count's slack: a bucket in front cuts each clump a request or two short of the window
  // (100 per second before 200 per 10 s: 199 at the first edge, 198 at the second, "a window that
  // slides" on the real emulator and a 337 s search); a log lets next to nothing through here.
  if (whole < limit - countSlack(limit)) {
    const log = slidingLog(limit, { lo: edge1.lo - startMs, hi: edge1.hi - startMs }, edge2, seenMs(p1), whole);
    if (log) return { ...log, notes: [] };
    return notIdentified(
      `after the second edge of a long window (about ${fmt(midpoint(length).value)}) only ${whole} of ${limit} passed: a window that slides, whose slots free a period after each request, but not a period after the first edge's request; not sized without an announcement`,
    );
  }
  const { model, precision } = fixedBetween(probe, limit, length, edge2);
  return {
    model,
    precision,
    evidence: [
      `no request passed for ${fmt(p1.sentMs - drain.refusal.sentMs)} after the limit shut, then ${limit} (the first edge, between ${fmt(edge1.lo)} and ${fmt(edge1.hi)}); the next edge between ${fmt(edge2.lo)} and ${fmt(edge2.hi)}, after which the whole limit passed again: a fixed window of ${limit} per ${model.window_s} s`,
    ],
    notes: [],
  };
}

/**
 * The most a window's length may be unsure by, relative (half its bracket over its middle), and
 * still be sized by its middle. The pings put each edge within 2 % of the time since the drain, the
 * second within 1 % of the time since the first: a right bracket is under 1.5 % wide, a minute's
 * too. Wider, an edge was not where the pings looked: the real emulator's 10 s window (behind a
 * bucket, with Retry-After), open at 6 s while the announcement was tested, was taken shut until
 * 16 s, so the second edge was looked for from 31 s: its bracket 18.6 to 31.4 s, read as 199 per
 * 9.13 s, 9 % fast, and proven.
 */
const LENGTH_PRECISION = 0.04;
const loose = (length: Bracket): boolean => midpoint(length).precision > LENGTH_PRECISION;
const looseWhy = (length: Bracket) =>
  `the window's two edges leave its length between ${fmt(length.lo)} and ${fmt(length.hi)}, too wide to size it (an edge came before the pings looked for it: the limit was not shut all along)`;

/**
 * A fixed window of `limit`, as long as the middle of `length` (ms), its edges where `edge2` puts
 * them, and how far the two edges leave its length (statedWindowPrecision).
 */
function fixedBetween(
  probe: Probe,
  limit: number,
  length: Bracket,
  edge2: Bracket,
): { model: FixedWindowModel; precision: number } {
  // Its middle: the edges' brackets are a percent or two of the window wide, too wide to snap to whole seconds.
  const windowS = round(midpoint(length).value / 1000, 2);
  return {
    model: {
      kind: 'fixed-window',
      limit,
      window_s: windowS,
      phase_s: phaseS(probe, edge2, windowS),
      counts_refused: false,
    },
    precision: statedWindowPrecision(windowS * 1000, length),
  };
}

/**
 * The second edge of a long window, looked for from `fromMs` (a shortest window after the first),
 * and what passed at once right after it: undefined when no edge came before the probe's cap.
 */
async function wholeAgain(
  probe: Probe,
  at: { edge1: Bracket; limit: number; fromMs: number; clumpDelayMs: number },
): Promise<{ edge2: Bracket; length: Bracket; whole: number; cutByCap?: true } | undefined> {
  const { edge1 } = at;
  // Apart by at most half the clump's delay: a sliding log is caught before the clump's slots free.
  const stepCapMs = at.clumpDelayMs / 2;
  const gapAt = (s: Sample) =>
    Math.max(firstGapMs(probe), Math.min(stepCapMs, SECOND_EDGE_STEP * (seenMs(s) - edge1.hi)));
  // The last request sent, the first edge's clump's or a ramp's: the next edge is after it.
  const lastSent = probe.samples.filter((s) => s.client === 'primary').reduce((a, b) => (b.sentMs > a.sentMs ? b : a));
  const second = await pingUntilAccepted(
    probe,
    'edges',
    Math.max(at.fromMs, lastSent.sentMs),
    firstGapMs(probe),
    (_, s) => (s.sentMs + gapAt(s) > probe.maxDurationMs ? undefined : gapAt(s)),
  );
  if (!second.accepted) return undefined;
  const edge2: Bracket = { lo: seenMs(second.lastRefused ?? lastSent), hi: seenMs(second.accepted) };
  const length: Bracket = { lo: edge2.lo - edge1.hi, hi: edge2.hi - edge1.lo };
  const again = await drainAt(probe, 'edges', probe.elapsed(), at.limit + 5);
  const counted = 1 + (again ? countUntilRefused(again) : 0);
  return {
    edge2,
    length,
    whole:
      counted +
      (again
        ? await leftInWindow(probe, again, counted >= at.limit - countSlack(at.limit), edge2.lo + length.lo / 2)
        : 0),
    // Cut by the probe's request cap before any refusal: what passed is no count of the limit.
    ...(!again?.some((s) => s.answer === 'limited') && probe.stoppedBy === 'requests' ? { cutByCap: true } : {}),
  };
}

/**
 * What a window that came back about whole still lets through after its clump's first refusal, a
 * few at most (countSlack), by pings with doubling gaps before `beforeMs` (inside the window): a
 * bucket in front cuts a clump at max_rps a request or two short of the window, and the room left
 * was taken for the next edge, its clump refused at once ("between 1.5 s and 5.2 s", or before the
 * bracket was checked, a window read short). `whole`: the clump came back about whole (a counter's
 * partial comeback, a bucket's one at a time, are left as they came). 0 when not refused.
 */
async function leftInWindow(probe: Probe, run: readonly Sample[], whole: boolean, beforeMs: number): Promise<number> {
  if (!whole || !run.some((s) => s.answer === 'limited')) return 0;
  const count = countUntilRefused(run);
  const topped = await topUp(probe, 'edges', countSlack(count + 1), beforeMs);
  return topped.filter((s) => s.answer === 'accepted').length;
}

/**
 * A drain that straddled a fixed window's edge let through what the window before still held and
 * then the whole next one, more than the clump at the first edge the pings found: taken for a
 * window weighing the last one (a sliding-window counter), whose ramp then let nothing through
 * (200 per 10 s, its edge 0.25 s into the drain: 250 passed, then 200; "not identified" 17 s into
 * a 60 s probe). A fixed window passes the same limit again right after its next edge, a window
 * after the first, where a counter weighing the full window before passes next to nothing, and the
 * drain held at most twice it: the window sized by those two edges, or undefined (the counter's
 * verdict stands).
 */
async function straddledFixedWindow(
  probe: Probe,
  drain: DrainFigures,
  { edge1, p1, limit }: { edge1: Bracket; p1: Sample; limit: number },
): Promise<SilentWindowFindings['long'] | undefined> {
  // What the window before the drain's edge still held and then one whole window: at most twice
  // the limit (HAProxy's 50 per 10 s counting every request let 48 through, then 21).
  if (drain.accepted > 2 * limit + countSlack(limit)) return undefined;
  // The window that ended at the first edge opened within the drain: no shorter than from its last request.
  const shortestMs = edge1.lo - drain.lastMs;
  const fromMs = edge1.lo + shortestMs;
  if (probe.outOfBudget() || fromMs > probe.maxDurationMs) return undefined;
  probe.progress(
    `${limit} passed at the first edge where the drain let ${drain.accepted} through, and no ramp followed: a fixed window the drain straddled? its next edge comes ${fmt(shortestMs)} after the first at the earliest`,
  );
  const again = await wholeAgain(probe, { edge1, limit, fromMs, clumpDelayMs: CLUMP_DELAY * shortestMs });
  // The same count at both edges, else no fixed window (a counter's partial comeback, then more:
  // HAProxy's 50 per 10 s counting every request let 21, then 27 through; a log 58, then 18).
  if (!again || loose(again.length) || Math.abs(again.whole - limit) > countSlack(limit)) return undefined;
  const { model, precision } = fixedBetween(probe, limit, again.length, again.edge2);
  return {
    model,
    precision,
    evidence: [
      `the drain let ${drain.accepted} through, then ${limit} passed at the first edge (between ${fmt(edge1.lo)} and ${fmt(edge1.hi)}, ${fmt(p1.sentMs - drain.refusal.sentMs)} after the limit shut) and nothing more until the next edge (between ${fmt(again.edge2.lo)} and ${fmt(again.edge2.hi)}), after which the whole limit passed again: a fixed window of ${limit} per ${model.window_s} s, the drain across one of its edges`,
    ],
    notes: [],
  };
}
