// A sliding window's period, to about 1 %, without feeding it refusals: trials of "wait until the
// window is surely empty, send exactly the limit at max_rps, then one request x after the first":
// that request passes exactly when x is past the period. Each trial halves the bracket the period
// lies in (bisection), so a few trials pin it; the only refused requests are the half of the
// trials' single requests that came too early. Then one more trial with a few refused requests
// inside the period tells whether refused requests count: if they do, a request just past the
// period is refused too.
//
// "Surely empty" is twice the period's upper bound since the last request: HAProxy's
// http_req_rate starts afresh only after two idle periods (before that the previous period's count
// still weighs in); a sliding log is empty after one.

import { midpoint, type Bracket } from '../identify.js';
import type { SlidingWindowModel } from '../limiters/index.js';
import type { Sample } from '../types.js';
import { pingAt } from './ping.js';
import type { Probe } from './probe.js';

/** Half-width of the period's bracket, relative, at which the bisection stops: ±1.5 %, inside the 2 % goal with a trial fewer than ±1 %. */
export const PERIOD_PRECISION = 0.015;
/** Trials at most, whatever the precision: each is two or three periods of waiting. */
const MAX_TRIALS = 10;
/** How far short of the period an upper end no trial confirmed may be (a quarter). */
const UNCONFIRMED_SHORT = 0.8;
/** Counts-refused trials at most: one whose requests went out late (a busy machine) proves nothing and is sent again. */
const COUNTS_ATTEMPTS = 3;

export interface PeriodFindings {
  model: SlidingWindowModel | null;
  evidence: string[];
  notes: string[];
}

interface Trial {
  /** Send time of the clump's first request: the window's start. */
  startMs: number;
  /** All of the clump passed. */
  whole: boolean;
  lastMs: number;
}

/** Where the period lies before the trials, and how sure its upper end is. */
export interface InitialPeriod extends Bracket {
  /** The upper end was seen (a window's edges), not inferred from a drain whose window may have opened before it. */
  hiSure?: boolean;
  /** A period surely no longer than this (ms): the wait before a trial allows for it while the upper end is unconfirmed. */
  longest?: number;
}

export async function slidingPeriodPhase(probe: Probe, limit: number, initial: InitialPeriod): Promise<PeriodFindings> {
  const notes: string[] = [];
  const evidence: string[] = [];
  let { lo, hi } = initial;
  // The lower end comes from requests refused while the window was being pinged; if refused
  // requests count, it may lie past the period. Until a trial refuses a request it is unconfirmed.
  let loConfirmed = false;
  // The upper end is measured from the drain's first request, but the set-up requests before it
  // counted too and may have opened the window earlier (long before, on a busy machine): it may lie
  // short of the period. Until a trial lets a request through it is unconfirmed, and the wait
  // before each trial allows it to be a quarter short.
  let hiConfirmed = initial.hiSure ?? false;
  let lastMs = probe.elapsed();
  let trials = 0;
  while (trials < MAX_TRIALS && !probe.outOfBudget()) {
    if (loConfirmed && hiConfirmed && midpoint({ lo, hi }).precision <= PERIOD_PRECISION) break;
    // A bracket narrowed to an end nobody saw: look past that end too.
    if (hi - lo <= 2 * PERIOD_PRECISION * hi) {
      if (!hiConfirmed) hi *= 1 / UNCONFIRMED_SHORT;
      else if (!loConfirmed) lo *= 0.75;
    }
    const x = (lo + hi) / 2;
    // A trial that is not from idle lets its last request in early and confirms too short an end,
    // which then shortens every later wait: until an end is seen, wait for the longest period.
    const trial = await clumpFromIdle(probe, limit, lastMs, hiConfirmed ? hi : Math.max(hi / UNCONFIRMED_SHORT, initial.longest ?? 0));
    if (!trial) break;
    trials++;
    lastMs = trial.lastMs;
    if (!trial.whole) {
      notes.push(`a clump of ${limit} from idle was refused in part: the window had not emptied, or the limit is smaller; the trial was not counted`);
      continue;
    }
    const s = await pingAt(probe, 'period', trial.startMs + x);
    if (!s) break;
    lastMs = s.sentMs;
    const after = s.sentMs - trial.startMs;
    if (s.answer === 'accepted') {
      // A seen bound replaces a guessed one even when it is wider.
      hi = hiConfirmed ? Math.min(hi, after) : after;
      hiConfirmed = true;
    } else if (s.answer === 'limited') {
      // Refused past an upper end seen before: that end was wrong (its trial was not from idle).
      if (after >= hi) {
        hi = after / UNCONFIRMED_SHORT;
        hiConfirmed = false;
      }
      lo = Math.max(lo, after);
      loConfirmed = true;
    }
  }
  const period = midpoint({ lo, hi });
  if (!loConfirmed || !hiConfirmed || period.precision > 2 * PERIOD_PRECISION) {
    notes.push(`the sliding window's period was not pinned down (between ${fmt(lo)} and ${fmt(hi)} after ${trials} trials)`);
    return { model: null, evidence, notes };
  }
  evidence.push(
    `${trials} trials of ${limit} requests from idle: one more request passed ${fmt(hi)} after the first and was refused ${fmt(lo)} after it: the window slides over ${fmt(period.value)}`,
  );
  let counted = await countsRefusedTrial(probe, limit, { lo, hi }, lastMs);
  for (let attempt = 1; counted.disturbed && attempt < COUNTS_ATTEMPTS && !probe.outOfBudget(); attempt++) {
    counted = await countsRefusedTrial(probe, limit, { lo, hi }, probe.elapsed());
  }
  if (counted.disturbed) counted.notes.push(`whether refused requests count was not tested: ${counted.disturbed} in each of ${COUNTS_ATTEMPTS} trials`);
  if (counted.evidence) evidence.push(counted.evidence);
  const periodS = Math.round(period.value) / 1000;
  return { model: { kind: 'sliding-window', limit, period_s: periodS, counts_refused: counted.counts ?? false }, evidence, notes: [...notes, ...counted.notes] };
}

/** Waits until the window is surely empty (twice `periodHiMs` after `sinceMs`), then sends exactly `limit` at max_rps. */
async function clumpFromIdle(probe: Probe, limit: number, sinceMs: number, periodHiMs: number): Promise<Trial | undefined> {
  const readyMs = sinceMs + 2 * periodHiMs + 20;
  // The trial needs the wait, the clump and one more period for its last request.
  if (readyMs + (limit * 1000) / probe.maxRps + 1.1 * periodHiMs > probe.maxDurationMs) {
    probe.outOfTime();
    return undefined;
  }
  const wait = readyMs - probe.elapsed();
  if (wait > 0) await probe.clock.sleep(Math.ceil(wait), probe.signal);
  if (probe.outOfBudget()) return undefined;
  const { samples } = await probe.burstRun('period', limit, { exact: true });
  if (samples.length === 0) return undefined;
  const sorted = [...samples].sort((a, b) => a.sentMs - b.sentMs);
  return { startMs: sorted[0]!.sentMs, whole: samples.length === limit && samples.every((s) => s.answer === 'accepted'), lastMs: sorted[sorted.length - 1]!.sentMs };
}

/**
 * One trial with refused requests inside the period: a clump of the limit, then `k` single
 * requests halfway through (all refused), then one request safely past the period. A limiter that
 * counts refusals still holds the window full then (HAProxy's usual stick-table recipe; a
 * sliding log of every request); one that counts admissions only lets it through.
 */
async function countsRefusedTrial(probe: Probe, limit: number, period: Bracket, sinceMs: number): Promise<{ counts?: boolean; evidence?: string; notes: string[]; disturbed?: string }> {
  const interval = 1000 / probe.maxRps;
  // Enough refusals to outweigh what ages out of the window between the period and the final
  // request (a sliding log forgets the oldest first), and a twentieth of the limit for HAProxy's
  // interpolated count.
  const k = Math.max(3, Math.ceil(0.05 * limit), Math.ceil((2 * (period.hi - period.lo)) / interval) + 2);
  const trial = await clumpFromIdle(probe, limit, sinceMs, period.hi);
  if (!trial || !trial.whole) return { notes: ['whether refused requests count was not tested (no time left, or the clump was refused)'] };
  let refused = 0;
  let s: Sample | undefined;
  for (let i = 0; i < k; i++) {
    s = await pingAt(probe, 'counts-refused', trial.startMs + period.lo / 2 + i * interval);
    if (!s) return { notes: ['whether refused requests count was not tested (the budget ran out)'] };
    if (s.answer === 'limited') refused++;
  }
  // Every one of them falls mid-period when sent on time: one let through went out late, after
  // the period, and refused nothing the final request could feel.
  if (refused < k) return { notes: [], disturbed: `only ${refused} of ${k} requests meant for mid-period were refused (sent late)` };
  const finalAtMs = trial.startMs + period.hi + (period.hi - period.lo) + interval;
  const final = await pingAt(probe, 'counts-refused', finalAtMs);
  if (!final || (final.answer !== 'accepted' && final.answer !== 'limited')) return { notes: ['whether refused requests count was not tested (no clear answer)'] };
  // Sent much later than planned, a window that counts refusals may have let them age out too.
  const lateMs = final.sentMs - finalAtMs;
  if (lateMs > period.hi - period.lo + 2 * interval) return { notes: [], disturbed: `the request past the period went out ${Math.round(lateMs)} ms late` };
  const counts = final.answer === 'limited';
  return {
    counts,
    evidence: `after ${refused} requests refused mid-period, a request ${fmt(final.sentMs - trial.startMs)} after the window's first (past its period) was ${counts ? 'refused: refused requests count against the client' : 'let through: refused requests do not count'}`,
    notes: [],
  };
}

const fmt = (ms: number) => `${(ms / 1000).toFixed(3)} s`;
