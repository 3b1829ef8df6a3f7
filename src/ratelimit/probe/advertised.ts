// What the service announces of its limit (RateLimit-Policy, X-RateLimit-Limit…, read by
// spec/ratelimit-fields.ts), taken as a hypothesis and tested, never trusted as it is. A long window
// (a minute) costs the walk of window-edges.ts several windows; the announcement says where the next
// one starts and how long it is, so two edges settle it: right after the drain's refusal, pings
// step across the announced reset until one passes (the first edge), the rest of the window is
// sent at once (the limit, counted), and single requests just before and just after where the next
// edge must be if the announced window is true (the window, to about 1 %). Two windows and a few
// dozen requests instead of minutes of walking; and what was announced is set beside what was
// measured, a finding of its own when they differ.
//
// Shorter windows are walked by the usual phases in seconds anyway: there the announcement is only
// compared with what they identified (compareAdvertisement).

import { midpoint, type Bracket } from '../identify.js';
import { round } from '../estimators.js';
import { describeLimiter, type FixedWindowModel, type LimiterModel } from '../limiters/index.js';
import type { AdvertisedLimit } from '../../report/model.js';
import type { Advertisement } from '../../spec/ratelimit-fields.js';
import type { Sample } from '../types.js';
import { pingAt, pingUntilAccepted } from './ping.js';
import type { Heard, Probe } from './probe.js';
import { countUntilRefused } from './recover.js';

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
  /** The fixed window, when the announcement's two edges were seen and measured. */
  model: FixedWindowModel | null;
  /** True when the probe cannot size the window in its budget: nothing else is worth trying. */
  tooLong: boolean;
  evidence: string[];
  notes: string[];
}

const NOTHING: AdvertisedFindings = { model: null, tooLong: false, evidence: [], notes: [] };

export async function advertisedPhase(probe: Probe): Promise<AdvertisedFindings> {
  const heard = probe.advertisements.last;
  if (!heard) return NOTHING;
  const { ad } = heard;
  // A window the usual phases size in seconds, or an announcement that says neither window nor
  // reset: compared with what they find (compareAdvertisement).
  const hintS = ad.windowS ?? ad.resetS;
  if (hintS === null || hintS < LONG_WINDOW_S || ad.resetS === null) return NOTHING;
  const claim = `${ad.source} announces ${ad.limit} per ${ad.windowS === null ? 'window' : `${ad.windowS} s`}`;
  const edgeAtMs = heard.sample.doneMs + ad.resetS * 1000;
  const windowMs = (ad.windowS ?? ad.resetS) * 1000;
  // Until the reset, one window, and the sending of a limit (a quarter slower than max_rps).
  const sendMs = (1.25 * ad.limit * 1000) / probe.maxRps;
  const needMs = edgeAtMs + RESET_ROUNDING_MS - probe.elapsed() + windowMs * (1 + EDGE_MARGIN) + sendMs;
  const budgetS = probe.maxDurationMs / 1000;
  if (probe.elapsed() + needMs > probe.maxDurationMs) {
    const note = `not identified: the window is longer than the probe's budget (${budgetS} s): ${claim}, about ${Math.ceil(needMs / 1000)} s to confirm`;
    probe.advertised = finding(ad, null, `advertised, not verified: about ${Math.ceil(needMs / 1000)} s needed, the probe's budget is ${budgetS} s`);
    return { ...NOTHING, tooLong: true, notes: [note] };
  }
  if (sendMs > windowMs / 4) {
    probe.advertised = finding(ad, null, `advertised, not verified: ${ad.limit} requests take too long to send at ${probe.maxRps} req/s`);
    return NOTHING;
  }
  probe.progress(`${claim}: a ${round(windowMs / 1000, 1)} s window, about ${Math.ceil(needMs / 1000)} s to confirm (the probe's budget: ${budgetS} s)`);

  const first = await edgeNear(probe, { lo: edgeAtMs - RESET_ROUNDING_MS, hi: edgeAtMs + RESET_ROUNDING_MS }, Math.max(20, Math.min(0.005 * windowMs, (2 * RESET_ROUNDING_MS) / EDGE_PINGS)));
  if (!first.accepted) return unverified(probe, ad, first.why ?? `the limit was still shut ${round(RESET_ROUNDING_MS / 1000, 1)} s after the announced reset`, false);
  const edge1: Bracket = { lo: first.lastRefused?.sentMs ?? heard.sample.sentMs, hi: first.accepted.sentMs };

  // The rest of the window at once: the limit, counted from its edge.
  const { samples: clump } = await probe.burstRun('advertised', 2 * ad.limit + 5);
  const counted = 1 + countUntilRefused(clump);
  const drained = probe.samples.filter((s) => s.phase === 'drain' && s.answer === 'accepted').length;
  if (counted < Math.max(3, drained / 2)) {
    return unverified(probe, ad, `at the announced reset only ${counted} requests passed where the drain let ${drained} through: not a window that resets whole; measured instead`, null);
  }
  if (!clump.some((s) => s.answer === 'limited')) {
    return unverified(probe, ad, `more than twice the announced limit (${counted}) passed after the announced reset`, false);
  }

  // Where the next edge must be if the announced window is true, or (no window announced) where
  // the clump's refusal says the next reset is.
  const after = probe.advertisements.last;
  const predicted: Bracket | null =
    ad.windowS !== null
      ? { lo: edge1.lo + windowMs * (1 - EDGE_MARGIN), hi: edge1.hi + windowMs * (1 + EDGE_MARGIN) }
      : after && after.ad.resetS !== null && after.sample.sentMs > edge1.hi
        ? { lo: after.sample.doneMs + after.ad.resetS * 1000 - RESET_ROUNDING_MS, hi: after.sample.doneMs + after.ad.resetS * 1000 + RESET_ROUNDING_MS }
        : null;
  if (predicted === null) return unverified(probe, ad, 'no window announced, and the refusal after the clump announced no reset', null);
  const second = await edgeAcross(probe, predicted, windowMs);
  if (!second.accepted) return unverified(probe, ad, second.why ?? 'the next edge was not found in the budget', null);
  const edge2: Bracket = { lo: second.lastRefused?.sentMs ?? clumpEnd(clump), hi: second.accepted.sentMs };
  const length: Bracket = { lo: edge2.lo - edge1.hi, hi: edge2.hi - edge1.lo };
  const w = midpoint(length);
  if (!(w.precision <= AGREES_WITHIN / 2)) {
    return unverified(probe, ad, `the window measured between ${fmt(length.lo)} and ${fmt(length.hi)}: not pinned down`, second.early ? false : null);
  }
  const windowS = roundWindow(length, ad.windowS);
  const model: FixedWindowModel = { kind: 'fixed-window', limit: counted, window_s: windowS, phase_s: phaseS(probe, edge2, windowS), counts_refused: false };
  const agrees = counted === ad.limit && (ad.windowS === null || Math.abs(windowS - ad.windowS) <= AGREES_WITHIN * ad.windowS);
  const measured = `measured ${counted} per ${windowS} s`;
  probe.advertised = finding(ad, agrees, agrees ? `${measured}: agrees` : `${measured}: the announcement ${counted < ad.limit ? 'overstates' : counted > ad.limit ? 'understates' : 'misstates'} the limit${remainingNote(probe)}`);
  return {
    model,
    tooLong: false,
    evidence: [
      `${claim}: at the announced reset the limit came back whole (${counted} passed at once), and again ${fmt(w.value)} later (±${(w.precision * 100).toFixed(1)} %, a request just before refused): a fixed window`,
      "whether its edges stay put on the clock or follow the client's first request was not tested",
    ],
    notes: agrees ? [] : [`the announced limit disagrees with the measured one: ${ad.source} says ${ad.limit} per ${ad.windowS ?? '?'} s, ${measured}`],
  };
}

/** The announcement left unverified (or contradicted), recorded for the report; the usual phases go on. */
function unverified(probe: Probe, ad: Advertisement, why: string, agrees: boolean | null): AdvertisedFindings {
  probe.advertised = finding(ad, agrees, agrees === false ? why : `advertised, not verified: ${why}`);
  return { ...NOTHING, notes: [`${ad.source} announces ${ad.limit} per ${ad.windowS ?? '?'} s: ${agrees === false ? 'contradicted' : 'not verified'} (${why})`] };
}

function finding(ad: Advertisement, agrees: boolean | null, note: string): AdvertisedLimit {
  return { limit: ad.limit, window_s: ad.windowS, source_header: ad.source, agrees, note };
}

interface EdgeSearch {
  accepted?: Sample;
  lastRefused?: Sample;
  /** The first request, before where the edge should be, already passed. */
  early?: boolean;
  why?: string;
}

/** Single requests `stepMs` apart across `where` until one passes; undefined accepted when none did by its end. */
async function edgeNear(probe: Probe, where: Bracket, stepMs: number): Promise<EdgeSearch> {
  let lastRefused: Sample | undefined;
  for (let at = Math.max(where.lo, probe.elapsed()); at <= where.hi + stepMs; at += stepMs) {
    const s = await pingAt(probe, 'advertised', at);
    if (s === undefined) return { ...(lastRefused ? { lastRefused } : {}), why: 'the budget ran out' };
    if (s.answer === 'accepted') return { accepted: s, ...(lastRefused ? { lastRefused } : {}), early: lastRefused === undefined };
    if (s.answer === 'limited') lastRefused = s;
  }
  return lastRefused ? { lastRefused } : {};
}

/**
 * The second edge: one request just before where it must be (refused, or the window is shorter than
 * announced), then a few across the bracket, then (the window longer than announced) gaps growing.
 */
async function edgeAcross(probe: Probe, where: Bracket, windowMs: number): Promise<EdgeSearch> {
  const found = await edgeNear(probe, where, (where.hi - where.lo) / 4);
  if (found.accepted) return found.early ? { ...found, why: 'a request just before the announced window ended passed: the window is shorter than announced' } : found;
  if (found.why) return found;
  const rest = await pingUntilAccepted(probe, 'advertised', Math.max(where.hi, found.lastRefused?.sentMs ?? where.hi), 0.01 * windowMs, 1.5);
  return { ...(rest.accepted ? { accepted: rest.accepted } : {}), ...((rest.lastRefused ?? found.lastRefused) ? { lastRefused: rest.lastRefused ?? found.lastRefused } : {}) };
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
function phaseS(probe: Probe, edge: Bracket, windowS: number): number {
  const windowMs = windowS * 1000;
  const epochMs = probe.startedEpochMs + midpoint(edge).value;
  return round((((Math.round(epochMs) % windowMs) + windowMs) % windowMs) / 1000, 3);
}

/** What the first announcement's remaining count said, set beside what the drain let through after it. */
function remainingNote(probe: Probe): string {
  const first: Heard | undefined = probe.advertisements.first;
  if (!first || first.ad.remaining === null || first.sample.phase !== 'drain') return '';
  const after = probe.samples.filter((s) => s.phase === 'drain' && s.answer === 'accepted' && s.sentMs > first.sample.sentMs).length;
  return after === first.ad.remaining ? '' : `; an answer said ${first.ad.remaining} remaining, and ${after} more passed before the refusal`;
}

/**
 * For a limit the usual phases sized (or could not): whether the announcement agrees with it. The
 * limit is a window's count or a bucket's burst; the window is compared when both say one.
 */
export function compareAdvertisement(ad: Advertisement, limiter: LimiterModel | null): AdvertisedLimit {
  if (limiter === null) return finding(ad, null, 'advertised, not verified: the probe did not identify the limiter to compare with');
  const limit = limiter.kind === 'bucket' ? limiter.burst : limiter.limit;
  const windowS = limiter.kind === 'fixed-window' ? limiter.window_s : limiter.kind === 'sliding-window' ? limiter.period_s : null;
  const windowAgrees = ad.windowS === null || windowS === null || Math.abs(windowS - ad.windowS) <= AGREES_WITHIN * ad.windowS;
  // A count is exact for a window; a burst measured from idle may be a request or two off.
  const limitAgrees = limiter.kind === 'bucket' ? Math.abs(limit - ad.limit) <= Math.max(1, 0.02 * ad.limit) : limit === ad.limit;
  const agrees = limitAgrees && windowAgrees;
  return finding(ad, agrees, `identified ${describeLimiter(limiter)}: ${agrees ? 'agrees' : 'disagrees'}`);
}

const fmt = (ms: number) => `${(ms / 1000).toFixed(3)} s`;
