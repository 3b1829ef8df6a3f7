// The probe once the limit showed itself a window (probe/recover.ts): a fixed window's edges
// (window-edges.ts) or a sliding window's period (sliding-period.ts), and the figures the
// Estimate reports from the identified model. A window has no refill to subtract: the burst is
// the limit, the sustained rate limit / window, and a refused client may wait up to a window.

import { round } from '../estimators.js';
import { sustainedRate, type LimiterModel } from '../limiters/index.js';
import { longestSmoothPeriod } from './period-longest.js';
import type { Sample } from '../types.js';
import type { Probe } from './probe.js';
import type { ShapeFindings } from './recover.js';
import { slidingPeriodPhase, PERIOD_PRECISION, type InitialPeriod } from './sliding-period.js';
import { windowEdgesPhase, EDGE_PRECISION } from './window-edges.js';
import { acceptedBoundMs } from './arrival.js';

export interface WindowFindings {
  limiter: LimiterModel | null;
  evidence: string[];
  notes: string[];
  /** The trials from idle refused in part (sliding-period.ts), on the paths that measured from idle; else 0 or unset. */
  partClumps?: number;
  /** The trials from idle let through whole, on the path that measured a window without edges from idle. */
  wholeClumps?: number;
  /** The longest quiet before one of those (sliding-period.ts refusedAfterQuietMs), on every path that ran the trials. */
  refusedAfterQuietMs?: number;
  /** How far the window's length or a sliding window's period (and so its rate) may be off, relative (window-edges.ts statedWindowPrecision, sliding-period.ts statedPrecision). */
  precision?: number;
  /** The edges were walked but no clump showed the limit (window-edges.ts): discover checks the limit shut often enough to read any. */
  limitUnseen?: true;
}

export async function windowPhase(probe: Probe, found: ShapeFindings): Promise<WindowFindings> {
  const { drain, recovery } = found;
  if (found.shape === 'resetting-window') {
    const limit = found.figures.clump;
    const firstEdge = {
      lo: recovery.lastRefused?.sentMs ?? drain.refusal.sentMs,
      hi: acceptedBoundMs(probe.samples, recovery.accepted),
    };
    const recover = probe.samples.filter((s) => s.phase === 'recover');
    const clumpEnd = Math.max(...recover.map((s) => s.sentMs));
    // The next edge is after the clump's last refusal, not after its end: a clump that went out
    // late (a busy machine) can cross the next edge unseen, its tail let through by the next window.
    const clumpFull = Math.max(
      recovery.accepted.sentMs,
      ...recover.filter((s) => s.answer === 'limited').map((s) => s.sentMs),
    );
    const edges = await windowEdgesPhase(
      probe,
      limit,
      firstEdge,
      {
        afterMs: clumpEnd,
        beforeEdgeMs: clumpFull,
        ...(found.clumpCount ? { counted: found.clumpCount } : {}),
      },
      drain.limit,
      // A sliding log (or a window that counts refusals) came back no sooner than a period after the
      // drain's first request; behind a faster limit, after the last request the window let through.
      found.frontLimit ? found.figures.recoveryMs : recovery.accepted.sentMs - drain.firstMs,
      { tickPeriodMs: found.tickPeriodMs, frontLimit: found.frontLimit === true, earlierEdge: found.earlierEdge },
    );
    // After the drain filled a window, it came back within one window (the ping that found it up
    // to half as late again): a much longer first recovery says the edges were not a window's own
    // (HAProxy's counter, forgetting a period at once, looks like one for a while).
    const edgeMs = edges.model
      ? edges.model.window_s * 1000
      : edges.slidingPeriod
        ? (edges.slidingPeriod.lo + edges.slidingPeriod.hi) / 2
        : null;
    // A clump stretched past a fixed window's edge: the window is not measured again as anything else.
    if (edges.limitUnseen === 'fixed') return { limiter: null, evidence: [], notes: edges.notes, limitUnseen: true };
    const contradicted = edgeMs !== null && found.figures.recoveryMs > 1.6 * edgeMs;
    if (edges.model && !contradicted)
      return { limiter: edges.model, evidence: edges.evidence, notes: edges.notes, ...precisionOf(edges) };
    if (edges.slidingPeriod && !contradicted) {
      // A sliding log counted from idle in the drain; windows later may have held earlier refusals.
      // Its edges moved with the clump: a log that forgets each request a period after it. The
      // edges' spacing bounds the period from above (the clumps' own pings came late, never early;
      // sure only when the edges were read off the clock); from below the drain bounds it (the
      // limit was still shut then), unseen.
      const lo = Math.min(edges.slidingPeriod.lo, drainLowerEnd(found));
      const period = await slidingPeriodPhase(probe, Math.max(limit, drain.limit), {
        lo,
        hi: edges.slidingPeriod.hi,
        hiSure: edges.slidingPeriod.hiSure,
        forgetsInOnePeriod: true,
      });
      return {
        limiter: period.model,
        evidence: [...edges.evidence, ...period.evidence],
        notes: [...edges.notes, ...period.notes],
        refusedAfterQuietMs: period.refusedAfterQuietMs,
        ...precisionOf(period),
      };
    }
    // No window of its own (or one the first recovery contradicts): measure it as a sliding window from idle.
    // Unless the trial that tells them apart did not decide: a clump from idle comes back a period
    // after it from a window opened at the first request as from a log, so what is measured is
    // either, and said so (CI land38 named rate-limiter-flexible's opened windows a sliding window).
    const why = contradicted
      ? `edges came every ${(edgeMs! / 1000).toFixed(3)} s, but the first recovery took ${(found.figures.recoveryMs / 1000).toFixed(2)} s: not a window of that length; measured from idle as a sliding window`
      : edges.anchorUntested !== undefined
        ? 'measured from idle as a window of the client’s own requests: opened at its first request, or sliding (not told apart)'
        : 'no fixed edges: measured from idle as a sliding window';
    const period = await slidingPeriodPhase(probe, drain.limit, drainPeriodBracket(found, probe.samples));
    const untold = !contradicted && edges.anchorUntested !== undefined && period.model?.kind === 'sliding-window';
    return {
      limiter: untold ? { ...period.model!, or_opened_window: true } : period.model,
      evidence: period.evidence,
      notes: [...edges.notes, why, ...period.notes],
      partClumps: period.partClumps,
      wholeClumps: period.wholeClumps,
      refusedAfterQuietMs: period.refusedAfterQuietMs,
      ...precisionOf(period),
      ...(edges.limitUnseen ? { limitUnseen: true as const } : {}),
    };
  }
  // A smooth sliding window: the drain from idle passed the whole limit; it came back about a
  // period after the drain's first request (later, if the pings meanwhile counted).
  const period = await slidingPeriodPhase(probe, drain.limit, drainPeriodBracket(found, probe.samples));
  const { partClumps, refusedAfterQuietMs } = period;
  return {
    limiter: period.model,
    evidence: period.evidence,
    notes: period.notes,
    partClumps,
    refusedAfterQuietMs,
    ...precisionOf(period),
  };
}

/** The stated precision of the window or period sized, when one was. */
const precisionOf = ({ precision }: { precision?: number }) => (precision === undefined ? {} : { precision });

/**
 * Where a sliding window's period lies, from the drain's start: the limit came back by the first
 * recovery, not before the last refused request (only a guess when refused requests count: they
 * delay the recovery).
 */
function drainPeriodBracket(found: ShapeFindings, samples: readonly Sample[]): InitialPeriod {
  const { drain, recovery, figures } = found;
  const lo = drainLowerEnd(found);
  const hi = recovery.accepted.sentMs - drain.firstMs;
  if (figures.trickleMs === null) return { lo, hi };
  // A smooth window admits one request per period / limit once it slides, and pings sent late only
  // space the trickle out: the limit times the trickle is a period at least as long as the true one.
  // What passed after the recovery bounds it too, usually far tighter (period-longest.ts).
  const fromRecovery = longestSmoothPeriod(samples, drain.limit, recovery);
  return { lo, hi, longest: Math.min(drain.limit * figures.trickleMs, fromRecovery ?? Infinity) };
}

/** The last refused request before the first recovery, from the drain's start (ms): the limit was still shut. */
const drainLowerEnd = ({ drain, recovery }: ShapeFindings): number =>
  (recovery.lastRefused?.sentMs ?? drain.refusal.sentMs) - drain.firstMs;

/** The Estimate's figures from an identified window. */
/** A limiter with a window (or period) and a limit counted in it: every kind but the bucket. */
export type WindowModel = Exclude<LimiterModel, { kind: 'bucket' } | { kind: 'queue' }>;

/** The window's length, or the sliding log's period, seconds. */
export const windowLengthS = (model: WindowModel): number =>
  model.kind === 'sliding-window' ? model.period_s : model.window_s;

/**
 * `precision`: what the window's edges (window-edges.ts statedWindowPrecision) or the trials that
 * sized a sliding window's period (sliding-period.ts statedPrecision) say it may be off by.
 */
export function windowFigures(model: WindowModel, precision?: number) {
  const windowS = windowLengthS(model);
  return {
    sustained_rps: round(sustainedRate(model), 2),
    // The window's length is pinned to ±1 % at least (the limit is counted exactly), a sliding
    // window's period to what its trials say: across a network, more than either's own precision.
    sustained_precision: round(precision ?? (model.kind === 'fixed-window' ? EDGE_PRECISION : PERIOD_PRECISION), 4),
    burst: model.limit,
    burst_from_idle: true,
    // A client refused just after the window filled waits up to the whole window.
    recovery_s: windowS,
    refill_s: windowS,
  };
}
