// What the service announces of its limit (RateLimit-Policy, X-RateLimit-Limit…, read by
// spec/ratelimit-fields.ts), taken as a hypothesis and tested, never trusted as it is. A long window
// (a minute) costs the walk of window-edges.ts several windows; the announcement says where the next
// one starts and how long it is, so two edges settle it: right after the drain's refusal, pings
// step across the announced reset until one passes (the first edge), the rest of the window is
// sent a little later (the limit, counted), single requests just before and just after where the
// next edge must be if the announced window is true (the window, to about 1 %), and the whole limit
// again right after it (a sliding log, whose slots free a period after each request, lets only a
// few through). Two windows, three limits' worth of requests and a few dozen pings instead of many
// windows of walking; and what was announced is set beside what was measured, a finding of its own
// when they differ. Without any RateLimit field, a Retry-After on the drain's refusal (many
// fixed-window libraries send the seconds to the edge) is the same kind of hypothesis.
//
// Shorter windows are walked by the usual phases in seconds anyway: there the announcement is only
// compared with what they identified (compareAdvertisement).

import { midpoint, type Bracket } from '../identify.js';
import { horizonFor, probingHowTo } from '../horizon.js';
import { round } from '../estimators.js';
import { burstSize, describeLimiter, type FixedWindowModel, type LimiterModel } from '../limiters/index.js';
import type { AdvertisedLimit } from '../../report/model.js';
import type { Advertisement } from '../../spec/ratelimit-fields.js';
import type { Estimate, Sample } from '../types.js';
import { pingAt, pingUntilAccepted } from './ping.js';
import type { Announced, Heard, Probe } from './probe.js';
import { countUntilRefused } from './recover.js';
import { seenMs } from './arrival.js';
import { slidingLog } from './sliding-log.js';
import type { WindowModel } from './window-path.js';
import { announcedEndOf, SAME_END_MS, type WindowHeld } from './announced-ends.js';
import { PAST_BUDGET } from './shut-past-budget.js';
import { backBeforeSaid } from './watched-wait.js';

/** From this window on (seconds) the announcement is tested by its own edges; shorter ones the usual phases size in seconds. */
export const LONG_WINDOW_S = 5;
/** How far each side of where the announcement puts the next edge the probe looks, relative to the window. */
const EDGE_MARGIN = 0.0075;
/** A window measured within this of the announced one agrees (the goal of every window's sizing). */
const AGREES_WITHIN = 0.02;
/** Reset fields are whole seconds, rounded either way: the edge lies within a second of what they say. */
const RESET_ROUNDING_MS = 1000;
/** Pings across the first edge's bracket at most: its width over this is the step. */
const EDGE_PINGS = 40;

export interface AdvertisedFindings {
  /** The window (fixed, or a sliding log), when the announcement's two edges were seen and measured. */
  model: WindowModel | null;
  /** True when the probe cannot size the window in its budget: nothing else is worth trying. */
  tooLong: boolean;
  evidence: string[];
  notes: string[];
  /**
   * Set when the limit came back at the announced reset, but only in part: a window weighing the
   * last one (a sliding-window counter), whose first edge these pings found (seen times).
   */
  backInPart?: { edge: Bracket; held?: WindowHeld };
}

const NOTHING: AdvertisedFindings = { model: null, tooLong: false, evidence: [], notes: [] };

/**
 * Where the next edge is said to be: a RateLimit reset (with the limit and window it announces), or,
 * without one, the drain's Retry-After (many fixed-window libraries say the seconds to the edge).
 */
interface Hypothesis {
  ad: Advertisement | null;
  windowS: number | null;
  /** Probe time (ms) the reset is announced for, at the latest (counted from the answer's arrival). */
  resetAtMs: number;
  /** At the earliest: counted from when its request was sent (the service counted from somewhere between). */
  resetFromMs: number;
  source: string;
}

function hypothesisOf(probe: Probe): Hypothesis | null {
  const heard = probe.advertisements.last;
  if (heard && heard.ad.resetS !== null) {
    const { ad, sample } = heard;
    return {
      ad,
      windowS: ad.windowS,
      resetAtMs: sample.doneMs + ad.resetS! * 1000,
      resetFromMs: sample.sentMs + ad.resetS! * 1000,
      source: ad.source,
    };
  }
  const said = probe.refusals.lastRetryAfter;
  if (!said) return null;
  const atMs = announcedAt(probe, said);
  return {
    ad: null,
    windowS: null,
    resetAtMs: atMs,
    resetFromMs: atMs - said.exchange.durationMs,
    source: 'Retry-After',
  };
}

/** When an announcement on a refusal says to come back, ms on the probe's clock (it counts from its answer's arrival). */
const announcedAt = (probe: Probe, said: Announced): number =>
  probe.elapsed() + said.exchange.receivedAt + said.seconds * 1000 - probe.clock.now();

/**
 * `heldBefore`: what the window that ended at an edge let through, by the ends the answers
 * announced (undefined when they do not say): a drain that straddled an edge filled only part of it.
 */
export async function advertisedPhase(
  probe: Probe,
  heldBefore?: (edge: Bracket) => WindowHeld | undefined,
): Promise<AdvertisedFindings> {
  const h = hypothesisOf(probe);
  if (h === null) return NOTHING;
  const { ad } = h;
  // A window the usual phases size in seconds: compared with what they find (compareAdvertisement).
  const hintMs = h.windowS !== null ? h.windowS * 1000 : h.resetAtMs - probe.elapsed();
  if (hintMs < LONG_WINDOW_S * 1000) return NOTHING;
  const claim = ad
    ? `${ad.source} announces ${ad.limit} per ${ad.windowS === null ? 'window' : `${ad.windowS} s`}`
    : `Retry-After says ${round((h.resetAtMs - probe.elapsed()) / 1000, 1)} s`;
  const drained = probe.samples.filter((s) => s.phase === 'drain' && s.answer === 'accepted').length;
  const limitGuess = ad?.limit ?? drained;
  // Until the reset, then a window (without one announced, the reset says about how long: the
  // drain usually filled a window that had just begun), and the sending of a limit after the second
  // edge (a quarter slower than max_rps); the first limit goes out inside the window.
  const windowMs = h.windowS !== null ? h.windowS * 1000 : hintMs;
  const sendMs = (1.25 * limitGuess * 1000) / probe.maxRps;
  const needMs = h.resetAtMs + RESET_ROUNDING_MS - probe.elapsed() + windowMs * (1 + EDGE_MARGIN) + sendMs;
  if (probe.elapsed() + needMs > probe.maxDurationMs && h.windowS !== null) return tooLong(probe, h, claim, needMs);
  if (sendMs > windowMs / 4)
    return unverified(probe, h, `${limitGuess} requests take too long to send at ${probe.maxRps} req/s`, null);
  probe.progress(
    `${claim}: a window of ${h.windowS !== null ? '' : 'about '}${round(windowMs / 1000, 1)} s, about ${Math.ceil(needMs / 1000)} s to confirm (the probe's budget: ${probe.maxDurationMs / 1000} s)`,
  );

  const searchFromMs = h.resetFromMs - RESET_ROUNDING_MS - arrivalSlackMs(windowMs);
  // A bare Retry-After's wait is watched: a sliding-window counter saying a whole window is back
  // at its first edge, which its ramp is timed from (probe/watched-wait.ts).
  const back = ad ? undefined : await backBeforeSaid(probe, searchFromMs);
  if (back)
    return {
      ...unverified(
        probe,
        h,
        `a request passed ${round(back.afterMs / 1000, 2)} s after the limit shut, before the reset it said: not a window that resets there; measured instead`,
        null,
      ),
      backInPart: { edge: back.edge },
    };
  const firstStepMs = Math.max(20, Math.min(0.005 * windowMs, (2 * RESET_ROUNDING_MS) / EDGE_PINGS));
  // A ping let through that still names the window the drain was refused in is before its edge: a
  // counter whose drain straddled an edge lets requests back as the window before weighs less.
  const saidEndMs = probe.advertisements.last ? announcedEndOf(probe, probe.advertisements.last.sample) : undefined;
  const beforeEdge = (s: Sample) => {
    const endMs = saidEndMs === undefined ? undefined : announcedEndOf(probe, s);
    return endMs !== undefined && endMs <= saidEndMs! + SAME_END_MS;
  };
  const first = await edgeNear(
    probe,
    { lo: searchFromMs, hi: h.resetAtMs + RESET_ROUNDING_MS },
    firstStepMs,
    beforeEdge,
  );
  if (!first.accepted)
    return unverified(
      probe,
      h,
      first.why ?? `the limit was still shut ${round(RESET_ROUNDING_MS / 1000, 1)} s after the announced reset`,
      false,
    );
  // Let through before the reset: a bucket refilling (its reset is when it is full), not a window.
  if (first.early)
    return unverified(
      probe,
      h,
      'a request passed before the announced reset: not a window that resets there; measured instead',
      null,
    );
  const edge1: Bracket = { lo: first.lastRefused?.sentMs ?? 0, hi: first.accepted.sentMs };

  // The rest of the window a little later (a sliding log then frees the first request's slot
  // alone a period on, a window that resets all of them at once), counted from its edge.
  await probe.clock.sleep(Math.ceil(SPLIT * windowMs), probe.signal);
  const { samples: clump } = await probe.burstRun('advertised', 2 * limitGuess + 5);
  const counted = 1 + countUntilRefused(clump);
  // The window before the reset held the drain, or, when the drain straddled an edge, only what it
  // let through after that: a counter weighing it lets the limit less most of that through at once.
  const lastRefused = first.lastRefused;
  const edgeSeen = lastRefused ? { lo: seenMs(lastRefused), hi: seenMs(first.accepted) } : undefined;
  const held = edgeSeen ? heldBefore?.(edgeSeen) : undefined;
  const straddled = held !== undefined && held.count < drained;
  if (counted < Math.max(3, straddled ? Math.min(limitGuess, drained) - held.count / 2 : drained / 2)) {
    const found = unverified(
      probe,
      h,
      `at the announced reset only ${counted} requests passed where the drain let ${drained} through: not a window that resets whole; measured instead`,
      null,
    );
    // The edge these pings found is the one thing a counter's ramp is timed from: the recovery
    // after it would take the next lattice point for the edge (httprate 200 per 10 s: not identified).
    return edgeSeen && counted > 1 ? { ...found, backInPart: { edge: edgeSeen, ...(held ? { held } : {}) } } : found;
  }
  if (!clump.some((s) => s.answer === 'limited'))
    return unverified(probe, h, `more than twice the limit (${counted}) passed after the reset`, ad ? false : null);
  return windowAtSecondEdge(probe, h, {
    first: { ...first, accepted: first.accepted },
    edge1,
    clump,
    counted,
    claim,
    sendMs,
    windowMs,
  });
}

/** What the first edge and the clump after it found, for the second edge to confirm. */
interface FirstEdge {
  first: EdgeSearch & { accepted: Sample };
  edge1: Bracket;
  clump: readonly Sample[];
  /** The requests the window let through at the first edge. */
  counted: number;
  claim: string;
  /** How long the limit takes to send at the probe's pace, ms. */
  sendMs: number;
  windowMs: number;
}

/**
 * The second edge, where the announced window (or the clump's refusal) says it is, and what passes
 * right after it: the whole limit again (a fixed window), or only the first edge's own request's
 * slot (a sliding log); anything else is measured by the usual phases instead.
 */
async function windowAtSecondEdge(
  probe: Probe,
  h: Hypothesis,
  { first, edge1, clump, counted, claim, sendMs, windowMs }: FirstEdge,
): Promise<AdvertisedFindings> {
  const { ad } = h;
  // Where the next edge must be if the announced window is true, or (none announced) where the
  // clump's refusal says the next reset is.
  const predicted = nextEdgeSaid(probe, h, edge1, windowMs);
  if (predicted === null)
    return unverified(probe, h, 'no window announced, and the refusal after the clump announced no reset', null);
  // Without a window announced, the second reset is the first word of its length.
  if (predicted.where.hi + sendMs > probe.maxDurationMs)
    return tooLong(probe, h, claim, predicted.where.hi + sendMs - probe.elapsed());
  const second = await edgeAcross(probe, predicted.where, predicted.stepMs, windowMs);
  if (!second.accepted) return unverified(probe, h, second.why ?? 'the next edge was not found in the budget', null);
  const edge2: Bracket = { lo: second.lastRefused?.sentMs ?? clumpEnd(clump), hi: second.accepted.sentMs };
  const length: Bracket = { lo: edge2.lo - edge1.hi, hi: edge2.hi - edge1.lo };
  const w = midpoint(length);
  if (!(w.precision <= AGREES_WITHIN / 2)) {
    return unverified(
      probe,
      h,
      `the window measured between ${fmt(length.lo)} and ${fmt(length.hi)}: not pinned down`,
      second.early && ad ? false : null,
    );
  }
  // The whole limit again right after the second edge: a window that reset, not a log freeing the first request's slot.
  const { samples: again } = await probe.burstRun('advertised', 2 * counted + 5);
  const whole = 1 + countUntilRefused(again);
  if (whole < Math.max(3, counted / 2)) {
    // Only the first edge's own request's slot came back: a sliding log, when that came a period
    // after it and the first edge a period after the drain's first request (both readings agree).
    const log = logBetweenEdges(probe, first, { ...second, accepted: second.accepted }, clump, counted, whole);
    if (log)
      return withAnnounced(
        probe,
        h,
        log.model,
        log.evidence,
        `measured a sliding log of ${counted} per ${log.model.period_s} s`,
      );
    return unverified(
      probe,
      h,
      `after the second edge only ${whole} passed: a sliding window, whose slots free a period after each request; measured instead`,
      null,
    );
  }
  const windowS = roundWindow(length, h.windowS);
  const model: FixedWindowModel = {
    kind: 'fixed-window',
    limit: counted,
    window_s: windowS,
    phase_s: phaseS(probe, edge2, windowS),
    counts_refused: false,
  };
  return withAnnounced(
    probe,
    h,
    model,
    [
      `${claim}: at that reset the limit came back whole (${counted} passed), again ${fmt(w.value)} later (±${(w.precision * 100).toFixed(1)} %, a request just before refused) and ${whole} at once then, though the window's requests had been sent ${fmt(SPLIT * windowMs)} apart: a fixed window`,
      "whether its edges stay put on the clock or follow the client's first request was not tested",
    ],
    `measured ${counted} per ${windowS} s`,
  );
}

/**
 * The sliding log two edges show (sliding-log.ts), on the times the service saw: the first edge
 * from the drain's first request, the second from the request that passed at the first edge.
 */
function logBetweenEdges(
  probe: Probe,
  first: EdgeSearch & { accepted: Sample },
  second: EdgeSearch & { accepted: Sample },
  clump: readonly Sample[],
  counted: number,
  whole: number,
): ReturnType<typeof slidingLog> {
  const drainStart = probe.samples
    .filter((s) => s.phase === 'drain')
    .reduce<Sample | undefined>((a, b) => (a === undefined || b.sentMs < a.sentMs ? b : a), undefined);
  if (!drainStart || !first.lastRefused) return undefined;
  const startMs = seenMs(drainStart);
  const lastClump = clump.reduce((a, b) => (b.sentMs > a.sentMs ? b : a));
  const fromDrain: Bracket = { lo: seenMs(first.lastRefused) - startMs, hi: seenMs(first.accepted) - startMs };
  const edge2: Bracket = { lo: seenMs(second.lastRefused ?? lastClump), hi: seenMs(second.accepted) };
  return slidingLog(counted, fromDrain, edge2, seenMs(first.accepted), whole);
}

/** A window measured at the announced edges, and the announcement (when there was one) judged against it. */
function withAnnounced(
  probe: Probe,
  h: Hypothesis,
  model: WindowModel,
  evidence: string[],
  measured: string,
): AdvertisedFindings {
  const { ad } = h;
  const windowS =
    model.kind === 'sliding-window' ? model.period_s : model.kind === 'fixed-window' ? model.window_s : null;
  const agrees = ad
    ? model.limit === ad.limit &&
      (ad.windowS === null || (windowS !== null && Math.abs(windowS - ad.windowS) <= AGREES_WITHIN * ad.windowS))
    : null;
  if (ad)
    probe.advertised = finding(
      ad,
      agrees,
      agrees
        ? `${measured}: agrees`
        : `${measured}: the announcement ${model.limit < ad.limit ? 'overstates' : model.limit > ad.limit ? 'understates' : 'misstates'} the limit${remainingNote(probe)}`,
    );
  return {
    model,
    tooLong: false,
    evidence,
    notes:
      ad && !agrees
        ? [
            `the announced limit disagrees with the measured one: ${ad.source} says ${ad.limit} per ${ad.windowS ?? '?'} s, ${measured}`,
          ]
        : [],
  };
}

/**
 * How much earlier than a rounded reset allows the search starts: a reset of 8.0001 s reads 9, and a
 * request sent 8 s after reaches the limit a little later, past the edge on a busy machine, which
 * would read as let in before the reset.
 */
const arrivalSlackMs = (windowMs: number) => Math.max(250, 0.01 * windowMs);

/** Between the request that found the first edge and the rest of the window, relative to the window: a sliding log's slots then free that far apart. */
const SPLIT = 0.03;

/** Where the second edge must be and the step that pins it to a fraction of a per cent of the window. */
function nextEdgeSaid(
  probe: Probe,
  h: Hypothesis,
  edge1: Bracket,
  windowMs: number,
): { where: Bracket; stepMs: number } | null {
  if (h.windowS !== null) {
    const where = { lo: edge1.lo + windowMs * (1 - EDGE_MARGIN), hi: edge1.hi + windowMs * (1 + EDGE_MARGIN) };
    return { where, stepMs: (where.hi - where.lo) / 4 };
  }
  const heard = probe.advertisements.last;
  const said = probe.refusals.lastRetryAfter;
  // Counted from somewhere between the request's sending and its answer's arrival.
  const at = h.ad
    ? heard && heard.ad.resetS !== null && heard.sample.sentMs > edge1.hi
      ? { fromMs: heard.sample.sentMs + heard.ad.resetS * 1000, toMs: heard.sample.doneMs + heard.ad.resetS * 1000 }
      : null
    : said && said.exchange.receivedAt > probe.clock.now() - (probe.elapsed() - edge1.hi)
      ? { fromMs: announcedAt(probe, said) - said.exchange.durationMs, toMs: announcedAt(probe, said) }
      : null;
  if (at === null) return null;
  const estimateMs = at.toMs - edge1.hi;
  return {
    where: { lo: at.fromMs - RESET_ROUNDING_MS - arrivalSlackMs(estimateMs), hi: at.toMs + RESET_ROUNDING_MS },
    stepMs: Math.max(20, 0.004 * estimateMs),
  };
}

/** A window that ends past the probe's time cap: said, never guessed. */
function tooLong(probe: Probe, h: Hypothesis, claim: string, needMs: number): AdvertisedFindings {
  const budgetS = probe.maxDurationMs / 1000;
  const needS = Math.ceil((probe.elapsed() + needMs) / 1000);
  const howTo = h.windowS !== null ? `; ${probingHowTo(h.windowS, needS)}` : '';
  const note = `not identified: the window is longer than the probe's budget (${budgetS} s): ${claim}, about ${needS} s of probing to confirm${howTo}${lowerRateAnnounced(probe, h.ad)}`;
  if (h.ad)
    probe.advertised = finding(
      h.ad,
      null,
      `${PAST_BUDGET}${Math.ceil((probe.elapsed() + needMs) / 1000)} s of probing needed, the probe's budget is ${budgetS} s`,
    );
  return { ...NOTHING, tooLong: true, notes: [note] };
}

/**
 * A sustained client meets the lowest rate announced, not the smallest quota a burst meets first
 * (Flask-Limiter's "200 per day" beside "50 per hour"): said beside the one tested when another is
 * lower, announced, not proven, with how far out of reach its window is; '' otherwise.
 */
function lowerRateAnnounced(probe: Probe, tested: Advertisement | null): string {
  const rate = (ad: Advertisement) => (ad.windowS ? ad.limit / ad.windowS : Infinity);
  const lowest = [...probe.announced.values()].map(({ ad }) => ad).sort((a, b) => rate(a) - rate(b))[0];
  if (!lowest || lowest.windowS === null || (tested && !(rate(lowest) < rate(tested)))) return '';
  const needS = Math.ceil(2 * lowest.windowS + 3);
  const reach =
    horizonFor(lowest.windowS, needS) === null
      ? `no setting reaches its ${lowest.windowS} s window either`
      : `its window takes up to ${needS} s of probing; ${probingHowTo(lowest.windowS, needS)}`;
  return `; the lowest rate announced, ${lowest.limit} per ${lowest.windowS} s (${round(rate(lowest), 4)} req/s, ${lowest.source}), is the one a sustained client meets: announced, not proven, ${reach}`;
}

/**
 * The announced limit a probe left unsized only because its window is longer than the probe's
 * budget (nothing measured contradicts it); undefined otherwise. `run`, whose short probe says so,
 * reports it "announced, not proven" rather than failing a conformant service on it.
 */
export function announcedPastBudget(
  e: Pick<Estimate, 'advertised' | 'sustained_rps' | 'limiter'> & Partial<Pick<Estimate, 'announced'>>,
): AdvertisedLimit | undefined {
  if (e.sustained_rps !== null || e.limiter !== null) return undefined;
  // Of several announced (a quota spent past the budget beside a per-second one), the lowest rate's.
  const past = [...(e.announced ?? []), ...(e.advertised ? [e.advertised] : [])].filter(
    (a) => a.agrees === null && a.note.startsWith(PAST_BUDGET),
  );
  const rate = (a: AdvertisedLimit) => (a.window_s ? a.limit / a.window_s : Infinity);
  return past.sort((a, b) => rate(a) - rate(b))[0];
}

/** The announcement left unverified (or contradicted), recorded for the report; the usual phases go on. */
function unverified(probe: Probe, h: Hypothesis, why: string, agrees: boolean | null): AdvertisedFindings {
  const { ad } = h;
  if (!ad) return { ...NOTHING, notes: [`Retry-After as the window's edge: not confirmed (${why})`] };
  probe.advertised = finding(ad, agrees, agrees === false ? why : `advertised, not verified: ${why}`);
  return {
    ...NOTHING,
    notes: [
      `${ad.source} announces ${ad.limit} per ${ad.windowS ?? '?'} s: ${agrees === false ? 'contradicted' : 'not verified'} (${why})`,
    ],
  };
}

function finding(ad: Advertisement, agrees: boolean | null, note: string): AdvertisedLimit {
  return { limit: ad.limit, window_s: ad.windowS, source_header: ad.source, agrees, note };
}

interface EdgeSearch {
  accepted?: Sample;
  /** The last request before the edge: refused, or let through in the window before it (edgeNear's `beforeEdge`). */
  lastRefused?: Sample;
  /** The first request, before where the edge should be, already passed. */
  early?: boolean;
  why?: string;
}

/**
 * Single requests `stepMs` apart across `where` until one passes; undefined accepted when none did
 * by its end. One that passed but `beforeEdge` says is still in the window before counts as refused.
 */
async function edgeNear(
  probe: Probe,
  where: Bracket,
  stepMs: number,
  beforeEdge: (s: Sample) => boolean = () => false,
): Promise<EdgeSearch> {
  let lastRefused: Sample | undefined;
  for (let at = Math.max(where.lo, probe.elapsed()); at <= where.hi + stepMs; at += stepMs) {
    const s = await pingAt(probe, 'advertised', at);
    if (s === undefined) return { ...(lastRefused ? { lastRefused } : {}), why: 'the budget ran out' };
    if (s.answer === 'accepted' && beforeEdge(s)) lastRefused = s;
    else if (s.answer === 'accepted')
      return { accepted: s, ...(lastRefused ? { lastRefused } : {}), early: lastRefused === undefined };
    if (s.answer === 'limited') lastRefused = s;
  }
  return lastRefused ? { lastRefused } : {};
}

/**
 * The second edge: one request just before where it must be (refused, or the window is shorter than
 * announced), then a few across the bracket, then (the window longer than announced) gaps growing.
 */
async function edgeAcross(probe: Probe, where: Bracket, stepMs: number, windowMs: number): Promise<EdgeSearch> {
  const found = await edgeNear(probe, where, stepMs);
  if (found.accepted)
    return found.early
      ? {
          ...found,
          why: 'a request just before the announced window ended passed: the window is shorter than announced',
        }
      : found;
  if (found.why) return found;
  const rest = await pingUntilAccepted(
    probe,
    'advertised',
    Math.max(where.hi, found.lastRefused?.sentMs ?? where.hi),
    0.01 * windowMs,
    1.5,
  );
  return {
    ...(rest.accepted ? { accepted: rest.accepted } : {}),
    ...((rest.lastRefused ?? found.lastRefused) ? { lastRefused: rest.lastRefused ?? found.lastRefused } : {}),
  };
}

const clumpEnd = (clump: readonly Sample[]) => Math.max(...clump.map((s) => s.sentMs));

/** The announced window when the bracket holds it, else a whole second it holds, else its middle (ms → s). */
function roundWindow(length: Bracket, announcedS: number | null): number {
  const holds = (s: number) => s * 1000 >= length.lo && s * 1000 <= length.hi;
  if (announcedS !== null && holds(announcedS)) return announcedS;
  const whole = Math.round(midpoint(length).value / 1000);
  return holds(whole) ? whole : round(midpoint(length).value / 1000, 3);
}

/** Where the edges fall on Unix time, modulo the window (the edge seen second is the narrower one). */
export function phaseS(probe: Probe, edge: Bracket, windowS: number): number {
  const windowMs = windowS * 1000;
  const epochMs = probe.startedEpochMs + midpoint(edge).value;
  const phaseMs = ((Math.round(epochMs) % windowMs) + windowMs) % windowMs;
  // An edge read a hair before a multiple of the window is at the multiple: phase 0, not a whole window.
  return phaseMs > windowMs - (edge.hi - edge.lo) ? 0 : round(phaseMs / 1000, 3);
}

/** What the first announcement's remaining count said, set beside what the drain let through after it. */
function remainingNote(probe: Probe): string {
  const first: Heard | undefined = probe.advertisements.first;
  if (!first || first.ad.remaining === null || first.sample.phase !== 'drain') return '';
  const after = probe.samples.filter(
    (s) => s.phase === 'drain' && s.answer === 'accepted' && s.sentMs > first.sample.sentMs,
  ).length;
  return after === first.ad.remaining
    ? ''
    : `; an answer said ${first.ad.remaining} remaining, and ${after} more passed before the refusal`;
}

/**
 * For a limit the usual phases sized (or could not): whether the announcement agrees with it. The
 * limit is a window's count or a bucket's burst; the window is compared when both say one.
 */
export function compareAdvertisement(ad: Advertisement, limiter: LimiterModel | null): AdvertisedLimit {
  if (limiter === null)
    return finding(ad, null, 'advertised, not verified: the probe did not identify the limiter to compare with');
  // A queue's room is its quota as a bucket's burst is (what passes from idle).
  const bucketLike = limiter.kind === 'bucket' || limiter.kind === 'queue';
  const limit = 'limit' in limiter ? limiter.limit : burstSize(limiter);
  const windowS =
    limiter.kind === 'fixed-window' ? limiter.window_s : limiter.kind === 'sliding-window' ? limiter.period_s : null;
  const windowAgrees =
    ad.windowS === null || windowS === null || Math.abs(windowS - ad.windowS) <= AGREES_WITHIN * ad.windowS;
  // A count is exact for a window; a bucket's burst, read from idle with what refilled meanwhile
  // taken away, is good to a few requests, and a bucket has no window to compare.
  const limitAgrees = bucketLike
    ? Math.abs(limit - ad.limit) <= Math.max(2, BURST_SLACK * ad.limit)
    : limit === ad.limit;
  const agrees = limitAgrees && windowAgrees;
  const how = bucketLike ? ` (the burst compared, to ${BURST_SLACK * 100} %; a bucket has no window)` : '';
  return finding(ad, agrees, `identified ${describeLimiter(limiter)}: ${agrees ? 'agrees' : 'disagrees'}${how}`);
}

/**
 * Every limit announced, when there were several (a RateLimit-Policy list, Kong's units): the one
 * the probe tested (`tested`) as it found it; another that the identified limiter matches, agreed;
 * every other one "announced, not proven". Never dropped, never called wrong: a per-minute quota
 * beside the per-second one the probe measured is a second limit it did not reach, not a
 * contradiction. Undefined with fewer than two (`advertised` says it all then).
 */
export function announcedFindings(
  probe: Pick<Probe, 'announced' | 'maxDurationMs'>,
  tested: AdvertisedLimit | undefined,
  limiter: LimiterModel | null,
): AdvertisedLimit[] | undefined {
  if (probe.announced.size < 2) return undefined;
  return [...probe.announced.values()].map(({ ad }) => {
    if (tested && tested.limit === ad.limit && tested.window_s === ad.windowS) return tested;
    const compared = compareAdvertisement(ad, limiter);
    if (compared.agrees === true) return compared;
    const measured = limiter
      ? `the probe measured ${describeLimiter(limiter)}, not this limit`
      : 'the probe identified no limiter to compare it with';
    return finding(
      ad,
      null,
      `announced, not proven: ${measured}${pastBudget(ad, probe.maxDurationMs / 1000)}; a recommendation stays within its rate`,
    );
  });
}

/**
 * Why a window is not verified in this budget, when it cannot be: a quota met, then two of its
 * windows' edges (announced-stack.ts verificationNeedS, at most), and how to give the probe that.
 */
function pastBudget(ad: Advertisement, budgetS: number): string {
  if (ad.windowS === null) return '';
  const needS = Math.ceil(2 * ad.windowS + 3);
  return needS <= budgetS
    ? ''
    : `; its ${ad.windowS} s window takes up to ${needS} s of probing to verify, the probe's budget is ${budgetS} s: ${probingHowTo(ad.windowS, needS)}`;
}

/** How far a bucket's measured burst may lie from the announced quota and still agree. */
const BURST_SLACK = 0.1;

const fmt = (ms: number) => `${(ms / 1000).toFixed(3)} s`;
