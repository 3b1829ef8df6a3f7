// A second limit the service announces beside the one the probe measured (issue 35 item 2): an
// IETF RateLimit-Policy list `"second";q=30;w=1, "minute";q=600;w=60`, or Kong's
// X-RateLimit-Limit-Second beside -Minute. The probe's phases size the limit a burst meets first
// (30 per second) in seconds; the minute's quota, a third of that rate, is never reached by them.
// It is a hypothesis, and tested here within the probe's budget: a stream paced below the measured
// limit (which then refuses nothing) and above the announced rate (which then must refuse within a
// window) runs until its first refusal; pings then tell whether the limit stays shut longer than the
// measured limit would (the announced one refused) and find the edge where it comes back. The
// requests let through since the window before that edge are counted: the announced quota among
// them, the limit is verified; another count, it disagrees, with what was seen. A verified limit
// joins the measured one as a set (limiters/stacked.ts), and the sustained rate is the set's.
// The pings end right past an edge of the announced window, so a proof that follows meets it rested.

import type { AdvertisedLimit } from '../../report/model.js';
import { countSlack, round } from '../estimators.js';
import { midpoint, type Bracket } from '../identify.js';
import { describeLimiter, sustainedRate, type FixedWindowModel, type Limits } from '../limiters/index.js';
import { horizonFor, probingHowTo } from '../horizon.js';
import { pace } from '../pacing.js';
import type { Sample } from '../types.js';
import { phaseS } from './advertised.js';
import { pingUntilAccepted } from './ping.js';
import { announcedKey } from '../../spec/ratelimit-fields.js';
import type { Heard, Probe } from './probe.js';

/** What verifying an announced lower limit found: the set it completes, or only the finding for the report. */
export interface AnnouncedStack {
  /** The announced limit as the probe left it (agrees true, false, or null with why). */
  finding: AdvertisedLimit;
  /** The limit measured as announced (or as counted, when that was pinned down): the set's second limit. */
  second: FixedWindowModel | null;
  /** One sentence for the limiter's evidence (or the notes, when nothing was claimed). */
  evidence: string;
}

/** The stream's rate relative to the measured limit's: below it, so that limit refuses none of it. */
const BELOW_MEASURED = 0.8;
/** It must be this far above the announced rate, so the announced quota is met well within a window. */
const ABOVE_ANNOUNCED = 1.25;
/** Pings across where the edge is said to be, ms apart; elsewhere a second apart. */
const FINE_STEP_MS = 50;
const COARSE_STEP_MS = 1000;
/** How far before the edge said (rounded up to whole seconds) the fine pings begin, ms. */
const SAID_SLACK_MS = 1250;
/** A stream refused this many times by the measured limit alone (timer jitter) gives up. */
const HICCUPS = 3;

/**
 * The next announced limit to verify beside what was measured (`measuredRps`, the set's so far):
 * of those with a window and a rate below it not `tried` yet, the one on the shortest window, which
 * the probe's budget is likeliest to reach (a minute's quota before an hour's, whose rate may be
 * lower still: it is tried after, and said "announced, not proven" when its window outlasts the
 * budget); undefined when none is left.
 */
export function lowerAnnounced(
  probe: Pick<Probe, 'announced'>,
  measuredRps: number,
  tried: ReadonlySet<string> = new Set(),
): Heard | undefined {
  let next: Heard | undefined;
  for (const [key, heard] of probe.announced) {
    const { windowS, limit } = heard.ad;
    if (tried.has(key) || windowS === null || !(windowS > 0) || !(limit / windowS < measuredRps * (1 - 0.02))) continue;
    if (next === undefined || windowS < next.ad.windowS! || (windowS === next.ad.windowS && limit < next.ad.limit))
      next = heard;
  }
  return next;
}

/**
 * What the verification costs at most, seconds, for a stream at `rate`: the quota's refusal, then
 * up to a window of pings to its edge. With `remaining` said just now, the refusal comes after
 * those are spent, or (the window ending first) after a whole quota in the next window, whose edge
 * is then a window after its start: remaining / rate + a window either way. Without it, a quota
 * and two windows at most. Three seconds more for the answers and the pings' steps.
 */
export function verificationNeedS(windowS: number, limit: number, rate: number, remaining: number | null): number {
  const spent = remaining === null ? limit + rate * windowS : Math.min(remaining, limit);
  return Math.min(2 * windowS, spent / rate + windowS) + 3;
}

/** A remaining count this old (ms) still says how much of the current window is left: the probe sent little since. */
const FRESH_MS = 2000;

/**
 * Verifies `heard` (lowerAnnounced) beside `first`, the limit the probe measured (`firstRefillS`: how
 * long that one takes to come back after refusing). Null when it cannot be tried in what is left of
 * the budget (the caller says so, "announced, not proven").
 */
export async function verifyAnnouncedStack(
  probe: Probe,
  first: Limits,
  firstRefillS: number,
  heard: Heard,
): Promise<AnnouncedStack | string> {
  const { ad } = heard;
  const windowMs = ad.windowS! * 1000;
  const announcedRps = ad.limit / ad.windowS!;
  const rate = round(Math.min(probe.maxRps, BELOW_MEASURED * sustainedRate(first)), 2);
  const claim = `${ad.source} announces ${ad.limit} per ${ad.windowS} s (${round(announcedRps, 2)} req/s)`;
  if (rate < ABOVE_ANNOUNCED * announcedRps)
    return `${claim}: a stream below the measured ${describeLimiter(first)} cannot outpace it enough to meet its quota`;
  const latest = probe.announced.get(announcedKey(ad)) ?? heard;
  const remaining = latest.sample.doneMs >= probe.elapsed() - FRESH_MS ? latest.ad.remaining : null;
  const needMs = verificationNeedS(ad.windowS!, ad.limit, rate, remaining) * 1000;
  const needRequests = Math.ceil(probe.sentSoFar() + rate * (windowMs / 1000 + 1) + needMs / COARSE_STEP_MS + 50);
  // How to give it what it needs, said with either shortfall: a horizon of two of its windows
  // gives the probe 2.5 of them (horizon.ts), and the requests a stream meeting its quota takes.
  // Past the longest probe `ratelimit` runs (an hour's window), said so: no flag is suggested that the CLI refuses.
  const needS = (probe.elapsed() + needMs) / 1000;
  const reachable = horizonFor(ad.windowS!, needS) !== null;
  const howTo = `${probingHowTo(ad.windowS!, needS)}${reachable && needRequests > probe.maxRequests ? `; it needs rate_limit.max_requests ${needRequests} too` : ''}`;
  if (probe.elapsed() + needMs > probe.maxDurationMs)
    return `${claim}: verifying it takes up to ${Math.ceil((probe.elapsed() + needMs) / 1000)} s of probing, the probe's budget is ${probe.maxDurationMs / 1000} s; ${howTo}`;
  if (needRequests > probe.maxRequests)
    return `${claim}: verifying it takes more requests than rate_limit.max_requests (${probe.maxRequests}) leaves; ${howTo}`;
  probe.progress(
    `${claim}, below the ${round(sustainedRate(first), 2)} req/s measured: paced at ${rate} req/s until its quota is met, then its edge (up to ${Math.ceil(needMs / 1000)} s)`,
  );
  // A refusal the measured limit answers (a timer's jitter put one request too many in its window)
  // clears within its refill; the announced one stays shut until its own edge.
  const backWithinMs = Math.max(2 * firstRefillS * 1000, 1000) + 500;
  let refusal: Sample | undefined;
  let back: ReturnType<typeof edgeOf> | undefined;
  for (let tries = 0; tries < HICCUPS && back === undefined; tries++) {
    const streamEndMs = probe.elapsed() + windowMs + 1000;
    refusal = await streamUntilRefused(probe, rate, streamEndMs);
    if (probe.signal?.aborted) return 'interrupted';
    if (refusal === undefined) {
      const passed = acceptedBetween(probe.samples, streamEndMs - windowMs - 1000, streamEndMs);
      return disagrees(
        ad,
        heard,
        `${passed} requests passed in ${ad.windowS} s at ${rate} req/s without a refusal, more than the announced ${ad.limit}`,
      );
    }
    const recovery = await pingsToEdge(probe, refusal, heard, windowMs);
    if (recovery.accepted === undefined) return `${claim}: the budget ran out before the limit came back`;
    const edge = edgeOf(refusal, recovery);
    if (edge.hi - refusal.sentMs > backWithinMs) back = edge;
  }
  if (back === undefined || refusal === undefined)
    return `${claim}: the stream was refused ${HICCUPS} times by the measured limit alone`;
  return judged(probe, { ad, heard, claim, rate, refusal, edge: back });
}

/** Paced at `rate` until the first refusal, or until `endMs`; the refusal, or undefined when none came. */
async function streamUntilRefused(probe: Probe, rate: number, endMs: number): Promise<Sample | undefined> {
  let refusal: Sample | undefined;
  await pace({
    clock: probe.clock,
    rate: () => rate,
    maxInFlight: () => probe.inFlightAllowed(),
    signal: probe.signal,
    done: () =>
      refusal !== undefined ||
      probe.elapsed() >= endMs ||
      probe.elapsed() >= probe.maxDurationMs ||
      probe.sentSoFar() >= probe.maxRequests,
    send: async () => {
      const s = await probe.send('announced');
      if (s.answer === 'limited' && (refusal === undefined || s.sentMs < refusal.sentMs)) refusal = s;
    },
  });
  return refusal;
}

/**
 * Where the limit is said to come back after `refusal`: the announced policy's own reset when the
 * refusal carried it (RateLimit's t=), else the refusal's Retry-After or reset field; probe ms, undefined when none.
 */
function saidBackMs(probe: Probe, refusal: Sample, heard: Heard): number | undefined {
  const latest = probe.announced.get(announcedKey(heard.ad));
  if (latest && latest.sample === refusal && latest.ad.resetS !== null) return refusal.doneMs + latest.ad.resetS * 1000;
  // Kong says the reset of the quota nearest to refusing in RateLimit-Reset, no unit's own.
  const said = probe.refusals.lastRetryAfter ?? probe.refusals.lastReset;
  if (!said) return undefined;
  // Counted from its answer's arrival, on the probe's clock.
  const atMs = probe.elapsed() + said.exchange.receivedAt + said.seconds * 1000 - probe.clock.now();
  return atMs > refusal.sentMs ? atMs : undefined;
}

/**
 * Pings after the refusal until one passes: a second apart, and FINE_STEP_MS apart across where the
 * limit is said to come back; never past the probe's budget (the measured limit's estimate stands
 * whole whatever this finds).
 */
async function pingsToEdge(probe: Probe, refusal: Sample, heard: Heard, windowMs: number) {
  const said = saidBackMs(probe, refusal, heard);
  const fineFrom = said === undefined ? Infinity : said - SAID_SLACK_MS;
  const fineTo = said === undefined ? -Infinity : said + COARSE_STEP_MS;
  const lastMs = Math.min(probe.maxDurationMs - 1, refusal.sentMs + windowMs + 2 * COARSE_STEP_MS);
  const gapAfter = (sentMs: number): number | undefined => {
    const next =
      sentMs >= fineFrom - FINE_STEP_MS && sentMs < fineTo
        ? FINE_STEP_MS
        : sentMs < fineFrom && sentMs + COARSE_STEP_MS > fineFrom
          ? fineFrom - sentMs
          : COARSE_STEP_MS;
    return sentMs + next > lastMs ? undefined : next;
  };
  const first = Math.max(1, (gapAfter(refusal.sentMs) ?? COARSE_STEP_MS) - (probe.elapsed() - refusal.sentMs));
  return pingUntilAccepted(probe, 'announced', probe.elapsed(), first, (_gap, last) => gapAfter(last.sentMs));
}

/** The edge's bracket: after the last request refused was sent, by when the first let through came back. */
function edgeOf(refusal: Sample, recovery: { accepted?: Sample; lastRefused?: Sample }): Bracket {
  return { lo: (recovery.lastRefused ?? refusal).sentMs, hi: recovery.accepted!.doneMs };
}

const acceptedBetween = (samples: readonly Sample[], fromMs: number, toMs: number): number =>
  samples.filter((s) => s.client === 'primary' && s.answer === 'accepted' && s.sentMs >= fromMs && s.sentMs < toMs)
    .length;

interface Seen {
  ad: Heard['ad'];
  heard: Heard;
  claim: string;
  rate: number;
  refusal: Sample;
  edge: Bracket;
}

/**
 * The count since the window before the edge, set beside the announced quota. The window's start
 * is the edge less the announced window: requests answered before its earliest are out, requests
 * sent after its latest are in, those between either way (the count's bracket).
 */
function judged(probe: Probe, seen: Seen): AnnouncedStack {
  const { ad, heard, claim, rate, refusal, edge } = seen;
  const windowMs = ad.windowS! * 1000;
  const primary = probe.samples.filter(
    (s) => s.client === 'primary' && s.answer === 'accepted' && s.sentMs < refusal.sentMs,
  );
  const least = primary.filter((s) => s.sentMs >= edge.hi - windowMs).length;
  const most = primary.filter((s) => s.doneMs >= edge.lo - windowMs).length;
  const counted = least === most ? `${least}` : `${least} to ${most}`;
  const edgeS = `${round((edge.hi - refusal.sentMs) / 1000, 1)} s later (±${Math.ceil((edge.hi - edge.lo) / 2)} ms)`;
  const saw = `a stream at ${rate} req/s was refused after ${counted} requests let through since the announced window began, and stayed refused until its edge ${edgeS}`;
  const window = (limit: number): FixedWindowModel => ({
    kind: 'fixed-window',
    limit,
    window_s: ad.windowS!,
    phase_s: phaseS(probe, edge, ad.windowS!),
    counts_refused: false,
  });
  // A request or two of the probe's set-up may have met the same limit, uncounted here.
  const slack = countSlack(ad.limit);
  if (least - slack <= ad.limit && ad.limit <= most + slack)
    return {
      finding: finding(heard, true, `verified: ${saw}: agrees`),
      second: window(ad.limit),
      evidence: `${claim}: ${saw}: a fixed window of ${ad.limit} per ${ad.windowS} s as announced (one edge seen; its length taken as announced)`,
    };
  // Pinned down (within the report's 2 %): the limit as counted, the announcement set beside it.
  const pinned = midpoint({ lo: least, hi: most });
  const measured = pinned.precision <= 0.01 ? window(Math.round(pinned.value)) : null;
  const said = `${ad.limit < least ? 'understates' : 'overstates'} the limit`;
  return {
    finding: finding(heard, false, `${saw}: the announcement ${said}`),
    second: measured,
    evidence: `${claim}: ${saw}: the announcement ${said}${measured ? `; a fixed window of ${measured.limit} per ${ad.windowS} s as counted` : ''}`,
  };
}

function disagrees(ad: Heard['ad'], heard: Heard, why: string): AnnouncedStack {
  return {
    finding: finding(heard, false, why),
    second: null,
    evidence: `${ad.source} announces ${ad.limit} per ${ad.windowS} s: ${why}`,
  };
}

const finding = ({ ad }: Heard, agrees: boolean | null, note: string): AdvertisedLimit => ({
  limit: ad.limit,
  window_s: ad.windowS,
  source_header: ad.source,
  agrees,
  note,
});
