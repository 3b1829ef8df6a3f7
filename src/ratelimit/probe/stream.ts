// Phases 1–3 on the wire: one paced stream (drain, pilot, window) steered by the pure reducer in
// stream-reducer.ts, then what it measured: the sustained rate (the window's, or everything
// saturated when the window did not complete), the recovery, the drain's burst, the refusing status
// and the latency of accepted requests.

import {
  burstOf,
  percentile,
  recoveryOf,
  round,
  fitSustainedRate,
  type BurstFit,
  type PointTiming,
  type SustainedFit,
} from '../estimators.js';
import { MIN_REACH_SHARE } from '../in-flight.js';
import { takenRps } from '../intake.js';
import { pace } from '../pacing.js';
import type { NoLimitReach } from '../../report/model.js';
import type { PhaseName, Sample } from '../types.js';
import { lineReadTest } from './line-read.js';
import type { Probe } from './probe.js';
import { initialStream, reduceStream, streamNews, type StreamSettings, type StreamState } from './stream-reducer.js';

export interface StreamFindings {
  /** The status the limit refuses with (429 when it ever did, else the commonest); null when nothing was refused. */
  limitingStatus: number | null;
  latencyP95Ms: number | null;
  /** Undefined when the stream saw no refusal: nothing else can be measured then. */
  measured?: {
    fit: SustainedFit | null;
    sustained: number | null;
    recovery: number | null;
    drainBurst: BurstFit;
  };
  notes: string[];
}

/** With no refusal after this many requests at max_rps, a drain concludes there is no limit it may find. */
export const drainCapOf = (maxRequests: number): number => Math.max(10, Math.floor(maxRequests * 0.6));

/**
 * `drainOnly`: stop at the drain's first refusal, before the pilot streams into it.
 * `maxRefused`: stop after that many refusals (a limiter that counts them would stay shut).
 * `timedBy`: what times the rate's saturated points (estimators.ts segmentsOf); 'refusal' where the
 * shape read a bucket, which frees its capacity steadily. Timed by their acceptances, the emulator's
 * 50/s bucket read 48-49 req/s, "±1-2 %", at 19 of 120 seeds of a stalled probe (the points sent
 * fast after each stall late by little, the lean ones by a whole interval), and 48.8 behind
 * toxiproxy (CI land33r); now 0 of 120 (test/ratelimit/stalled-bucket-virtual.test.ts).
 */
export async function streamPhase(
  probe: Probe,
  options: Omit<StreamSettings, 'maxRps'> & { drainOnly?: boolean; maxRefused?: number; timedBy?: PointTiming },
): Promise<StreamFindings> {
  const { maxRps, maxRequests } = probe;
  const { drainOnly = false, maxRefused = Infinity, timedBy = 'acceptance', ...settings } = options;
  let refused = 0;
  let state = initialStream({ ...settings, maxRps });
  const drainCap = drainCapOf(maxRequests);
  const drainFrom = probe.sentSoFar();
  // A drain that met no refusal ends once it has read a line's pace (line-read.ts).
  const lineRead = lineReadTest(probe, probe.samples.length);
  await pace({
    clock: probe.clock,
    rate: () => state.rate,
    maxInFlight: () => probe.inFlightAllowed(),
    signal: probe.signal,
    done: () =>
      probe.outOfBudget() ||
      (state.stage === 'drain' && (probe.sentSoFar() - drainFrom >= drainCap || (refused === 0 && lineRead()))) ||
      state.stage === 'done' ||
      (drainOnly && state.stage !== 'drain') ||
      refused >= maxRefused,
    send: async () => {
      const phase: PhaseName = state.stage === 'drain' ? 'drain' : state.stage === 'pilot' ? 'pilot' : 'window';
      const sample = await probe.send(phase);
      if (sample.answer === 'limited') refused++;
      const before = state;
      state = reduceStream(state, sample, probe.completeUpTo());
      const news = streamNews(before, state, sample);
      if (news) probe.progress(news);
    },
  });
  return findingsOf(probe, state, timedBy);
}

/** What the stream measured, read off the probe's samples once it ended. */
function findingsOf(probe: Probe, state: StreamState, timedBy: PointTiming): StreamFindings {
  const { samples } = probe;
  const statuses = probe.refusals.statuses;
  const limitingStatus =
    statuses.size === 0 ? null : statuses.has(429) ? 429 : [...statuses.entries()].sort((a, b) => b[1] - a[1])[0]![0];
  const findings = { limitingStatus, latencyP95Ms: acceptedLatencyP95(samples), notes: [] as string[] };
  const firstRefusal = state.firstRefusal;
  if (firstRefusal === undefined) {
    if (probe.stoppedBy === undefined) findings.notes.push(noLimitObserved(probe));
    return findings;
  }

  // The sustained rate: from the window when it completed, else from everything saturated so far.
  const saturated = samples.filter(
    (s) => (s.phase === 'pilot' || s.phase === 'window') && s.client === 'primary' && s.sentMs >= firstRefusal.sentMs,
  );
  const openedMs = state.window.openedMs;
  const windowSamples = samples.filter((s) => s.phase === 'window' && openedMs !== null && s.sentMs >= openedMs);
  const fit =
    (state.stage === 'done' ? fitSustainedRate(windowSamples, timedBy) : null) ?? fitSustainedRate(saturated, timedBy);
  const sustained = fit === null ? null : fit.rps;
  if (fit?.clumpy)
    findings.notes.push(
      `requests passed in clumps (a fixed window?): the sustained rate is accepted requests over the ${round(fit.spanS, 1)} s window`,
    );
  if (fit !== null && fit.precision > 0.02)
    findings.notes.push(
      `the sustained rate rests on ${fit.accepted} accepted requests over ${round(fit.spanS, 1)} s: good to ±${round(fit.precision * 100, 1)} % only`,
    );
  const drainBurst = burstOf(
    samples.filter((s) => s.phase === 'drain'),
    sustained,
  );
  return { ...findings, measured: { fit, sustained, recovery: recoveryOf(saturated), drainBurst } };
}

/** At least this many answers sent alone before their latency stands for the service's (aloneLatencyP95). */
const ALONE_MIN_SAMPLES = 5;

/**
 * The 95th percentile of the latency of the probe's accepted answers sent while no other request of
 * its own was in flight, from its send to its answer, ms: what the answers timed one after another
 * (the pings after a refusal) wait on, without a queue the probe's own concurrency built ahead of
 * them. A queueing limiter (nginx limit_req without nodelay) makes the drain's answers wait up to its
 * burst's intervals, 0.7 s at 30 req/s and a burst of 20, while a ping sent alone waits one at most:
 * taken for the service's latency, that queue was "latency, not the limit". Null with fewer than
 * ALONE_MIN_SAMPLES such answers.
 */
export function aloneLatencyP95(samples: readonly Sample[]): number | null {
  const own = samples
    .filter((s) => s.client === 'primary' && s.answer !== 'error' && s.phase !== 'outrun')
    .sort((a, b) => a.sentMs - b.sentMs);
  const alone: number[] = [];
  let doneBefore = -Infinity;
  own.forEach((s, i) => {
    const next = own[i + 1];
    if (s.answer === 'accepted' && doneBefore <= s.sentMs && (next === undefined || next.sentMs >= s.doneMs))
      alone.push(s.doneMs - s.sentMs);
    doneBefore = Math.max(doneBefore, s.doneMs);
  });
  const p95 = alone.length >= ALONE_MIN_SAMPLES ? percentile(alone, 95) : null;
  return p95 === null ? null : round(p95, 1);
}

/** The 95th percentile of the accepted answers' latency, ms. */
export function acceptedLatencyP95(samples: readonly Sample[]): number | null {
  const p95 = percentile(
    samples
      // An outrun drain's answers waited in the service's line (outrun.ts): the probe's pace, not the service's latency.
      .filter((s) => s.answer === 'accepted' && s.client === 'primary' && s.phase !== 'outrun')
      .map((s) => s.doneMs - s.sentMs),
    95,
  );
  return p95 === null ? null : round(p95, 1);
}

function noLimitObserved(probe: Probe): string {
  const drained = probe.samples.filter((s) => s.phase === 'drain');
  const okCount = drained.filter((s) => s.answer === 'accepted').length;
  const { askedRps: maxRps, maxRequests } = probe;
  const reach = noLimitReach(probe) ?? { rps: 0, over_s: 0 };
  return (
    `no limit observed: ${okCount} of ${drained.length} requests passed, reaching the service at ${reach.rps} req/s over ${reach.over_s} s, ` +
    `without a single refusal (rate_limit.max_rps ${maxRps}, max_requests ${maxRequests}); §8 says a limit exists`
  );
}

/**
 * What a probe that met no limit covered: the rate its drain's requests actually went out at, first
 * to last, not the max_rps it asked for (a loaded machine's late timers, or answers too slow for
 * the requests in flight, send slower), or the slower one the service took them in at, and whether
 * that was enough to say anything (MIN_REACH_SHARE).
 * Only answered requests count: one that got no valid answer (a timeout, a body cut at the cap) met
 * no limit, it met nothing. Undefined when none was answered.
 */
export function noLimitReach(probe: Pick<Probe, 'samples' | 'askedRps'>): NoLimitReach | undefined {
  const answered = probe.samples.filter((s) => s.phase === 'drain' && s.client === 'primary' && s.answer !== 'error');
  const sent = answered.map((s) => s.sentMs);
  if (sent.length === 0) return undefined;
  const spanMs = sent.length < 2 ? 0 : Math.max(...sent) - Math.min(...sent);
  // Behind a queue (a single worker, a starved host) the limiter met them at the slower pace the
  // service took them in at: nothing above that was tested, however fast they went out.
  const rps = spanMs > 0 ? takenRps(((sent.length - 1) * 1000) / spanMs, answered) : 0;
  return {
    rps: round(rps, 1),
    over_s: round(spanMs / 1000, 1),
    max_rps: probe.askedRps,
    tested: rps >= MIN_REACH_SHARE * probe.askedRps,
  };
}
