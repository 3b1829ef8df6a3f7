// HAProxy's usual recipe (`http_req_rate(<period>)`, every request tracked) sized from the whole
// trace, when the phases that time it by its crossings could not (quiet-ramp.ts, next-window-ramp.ts).
// At a small limit (50 per 10 s) the long window's edge pings, a few every second, count about as
// much as the limit frees, so the window stays shut past its edge and comes back late and partly;
// the two clumps those phases time it by then fall too close together, or past the budget ("not
// identified", and paced k6 rounds searched 407 s on the bench for a rate 10 % low).
//
// Yet every request such a limiter sees is the probe's own, and each one counts, let through or
// not: whether a request passes depends only on when it came and how many came before it, given
// the limit, the period and where the periods start (the stick table opens one at the first request
// it sees). So the counters that answer every request as the service did are found
// (counter-candidates.ts); other kinds (a log, a counter on the clock, a bucket, a counter of
// admitted requests only) leave none on the virtual suites, and across a network's jitter none is
// usually left either (not identified, as before). Those left are split by pings, each sent where
// they disagree most about the period, and the period is claimed only when those still standing
// agree on it within FIT_PRECISION.

import { midpoint } from '../identify.js';
import { percentile } from '../../toolkit/stats.js';
import {
  candidatesOf,
  keptBy,
  periodsOf,
  rescanned,
  startsOf,
  toSeen,
  traceFrom,
  workSpent,
} from './counter-candidates.js';
import type { Candidate, FitStart, Seen } from './counter-candidates.js';
import { countingEvery } from './crossings.js';
import { drainAt, pingAt } from './ping.js';
import type { Probe } from './probe.js';
import type { RampFindings } from './counter-ramp.js';

/** A period is claimed when the candidates left agree on it within this share of its middle, either way. */
export const FIT_PRECISION = 0.01;
/** Pings stop once the candidates agree this closely. */
const SPLIT_ENOUGH = 0.004;
/** Pings at most. */
const SPLIT_PINGS = 24;
/** Candidates fewer than this after a ping are scanned again around, finer (counter-candidates.ts rescanned). */
const RESCAN_BELOW = 100;
/** Candidates a ping's time is chosen by, at most (spread evenly over those left). */
const SPLIT_SAMPLE = 200;
/** How far ahead a ping is looked for, in the longest period left, and in how many steps per period. */
const LOOK_AHEAD = 1.5;
const LOOK_STEPS = 400;
/** The period claimed is this share below the long end of its bracket at most (next-window-ramp.ts's FAST_AT_MOST). */
const FAST_AT_MOST = 0.003;

/**
 * The round trip (sent to answered, ms, nine in ten of the trace's) under which the fit's timing is
 * read: within it a request may have reached the limiter anywhere, and across a network's 100 ms the
 * candidates' freedom let a wrong one explain everything: HAProxy's 300 per 10 s counting only what
 * it let through, 50 ± 10 ms away on a busy machine, was claimed as one counting every request, 300
 * per 9.48 s, 5.5 % fast. On loopback a trip is a few milliseconds (the real bench's 1–3, the virtual
 * world's 2–12).
 */
const FIT_TRIP_MS = 25;

/** Whether the trace's round trips are too long for its timing to be fit by (FIT_TRIP_MS). */
const tripsTooLong = (trace: readonly Seen[]): boolean =>
  (percentile(
    trace.map((r) => r.doneMs - r.sentMs),
    90,
  ) ?? Infinity) > FIT_TRIP_MS;

/**
 * When, from `fromMs`, a ping splits the candidates' periods best: admitted by some and refused by
 * others, both sides well filled, and their periods far apart (a ping that only splits the starts
 * leaves the period as unsure as before). Undefined when they agree throughout the look ahead.
 */
function splitAt(left: readonly Candidate[], fromMs: number, untilMs: number): number | undefined {
  const every = Math.max(1, Math.floor(left.length / SPLIT_SAMPLE));
  const sample = left.filter((_, i) => i % every === 0);
  const { lo, hi } = periodsOf(left);
  const mean = (xs: readonly Candidate[]) => xs.reduce((a, s) => a + s.windowMs, 0) / xs.length;
  let best: { atMs: number; score: number } | undefined;
  for (let atMs = fromMs; atMs <= Math.min(untilMs, fromMs + LOOK_AHEAD * hi); atMs += hi / LOOK_STEPS) {
    const yes = sample.filter((s) => s.model.test(atMs).ok);
    if (yes.length === 0 || yes.length === sample.length) continue;
    const no = sample.filter((s) => !s.model.test(atMs).ok);
    const score = (Math.min(yes.length, no.length) / sample.length) * (Math.abs(mean(yes) - mean(no)) / (hi - lo || 1));
    // The earliest of equals: a later ping only costs time.
    if (!best || score > best.score * 1.0001) best = { atMs, score };
  }
  return best?.atMs;
}

/** Pings where the candidates disagree, each dropping those it contradicts, until they agree within SPLIT_ENOUGH. */
async function splitByPings(
  probe: Probe,
  start: FitStart,
  first: Candidate[],
): Promise<{ left: Candidate[]; pings: number }> {
  let left = first;
  let pings = 0;
  while (left.length > 0 && midpoint(periodsOf(left)).precision > SPLIT_ENOUGH && pings < SPLIT_PINGS) {
    // Room left for the clump that confirms the claim after the pings.
    const untilMs = probe.maxDurationMs - 2 * clumpMs(probe, start.limit);
    const atMs = splitAt(left, probe.elapsed() + probe.latencyMs(), untilMs);
    if (atMs === undefined) break;
    const ping = await pingAt(probe, 'edges', atMs);
    if (!ping || ping.answer === 'error') break;
    pings++;
    const r = toSeen(ping);
    const before = left;
    left = keptBy(left, r);
    if (left.length < RESCAN_BELOW)
      left = rescanned(traceFrom(probe.samples, start.drainFirstMs), start, left.length > 0 ? left : before);
    // A scan cut short by the work bound kept part of the band: no bracket is read off it.
    if (workSpent(start)) return { left: [], pings };
  }
  return { left, pings };
}

/** How long a clump of the limit and a few more takes at max_rps, ms. */
const clumpMs = (probe: Probe, limit: number): number => ((limit + 5) * 1000) / probe.maxRps;

/**
 * The candidates left that also explain one more clump, of the limit and a few more at once: a
 * prediction the claim must pass (each one says where the clump is cut), and the third time the
 * limit is seen shut that a sliding counter's claim takes (evidence.ts MIN_SHUTS) when the pings
 * were all let through. [] when the clump refutes every one, or the budget ran out.
 */
async function confirmed(probe: Probe, limit: number, left: readonly Candidate[]): Promise<Candidate[]> {
  const clump = await drainAt(probe, 'edges', probe.elapsed(), limit + 5);
  if (!clump?.some((s) => s.answer === 'limited')) return [];
  return traceFrom(clump, -Infinity).reduce<Candidate[]>(keptBy, [...left]);
}

/** What a fit that ran and sized nothing says, beside the phases' own "not identified". */
function unfit(why: string): RampFindings {
  const note = `not identified: a window weighing the last one that counts refused requests, ${why}; not sized`;
  return { model: null, evidence: [note], notes: [note] };
}

/**
 * HAProxy's usual recipe sized from the whole trace and the pings that split what it leaves (the
 * model null, and why, when no counter counting every request explains it within FIT_PRECISION), or
 * undefined when the fit cannot read this trace (a Retry-After heard, round trips too long) or no
 * counter explains it (nothing sent). `drain`: the
 * first request of the drain the set-up requests came just before, and its limit (theirs included).
 */
export async function counterFitPhase(
  probe: Probe,
  drain: { firstMs: number; limit: number },
): Promise<RampFindings | undefined> {
  const start: FitStart = {
    setUp: probe.calls.overhead.sent,
    drainFirstMs: drain.firstMs,
    limit: drain.limit,
    work: { replayed: 0 },
  };
  const trace = traceFrom(probe.samples, drain.firstMs);
  // HAProxy's recipe says nothing of when to come back; a limiter that does is another's, its
  // announcements read by the phases that time windows by them (advertised.ts).
  if (probe.refusals.lastRetryAfter || probe.refusals.lastReset) return undefined;
  if (tripsTooLong(trace)) return undefined;
  const found = candidatesOf(trace, start, 2 * probe.elapsed());
  if (workSpent(start))
    return unfit(`more counters came near explaining its ${trace.length} requests than the fit replays in its time`);
  if (found.length === 0) return undefined;
  // From here the fit sends requests: what it found is said either way.
  const fromTrace = periodsOf(found);
  const s = (ms: number) => (ms / 1000).toFixed(2);
  probe.progress(
    `counters of ${drain.limit} counting every request with periods of ${s(fromTrace.lo)}–${s(fromTrace.hi)} s answer every request so far as the service did; pinging where they disagree`,
  );
  const split = await splitByPings(probe, start, found);
  const { pings } = split;
  if (workSpent(start))
    return unfit(`its candidates split by ${pings} pings took more replays than the fit has time for`);
  const left = split.left.length > 0 ? await confirmed(probe, drain.limit, split.left) : [];
  const tried = `replayed over every request the probe sent, each one counted, counters of ${drain.limit} per ${s(fromTrace.lo)}–${s(fromTrace.hi)} s answered each as the service did`;
  if (left.length === 0)
    return unfit(`${tried}, but the ${pings} pings sent where they disagreed and a last clump left none`);
  const window = periodsOf(left);
  const sized = midpoint(window);
  if (sized.precision > FIT_PRECISION)
    return unfit(
      `${tried}, and ${pings} pings sent where they disagreed and a last clump left ${s(window.lo)}–${s(window.hi)} s, too wide to size it`,
    );
  // Near the bracket's long end: the rate read is never more than a hair above the limiter's.
  const windowMs = Math.max(sized.value, window.hi - FAST_AT_MOST * sized.value);
  return countingEvery(
    probe,
    drain.limit,
    windowMs,
    midpoint(startsOf(left)).value + windowMs,
    `a window weighing the last one that counts refused requests, whose crossings the probe could not time apart; ${tried}, ${pings} pings sent where they disagreed and a last clump, which each predicted, left ${s(window.lo)}–${s(window.hi)} s (±${(sized.precision * 100).toFixed(1)} %)`,
    window,
  );
}
