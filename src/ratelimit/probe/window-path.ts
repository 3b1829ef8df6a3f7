// The probe once the limit showed itself a window (probe/recover.ts): a fixed window's edges
// (window-edges.ts) or a sliding window's period (sliding-period.ts), and the figures the
// Estimate reports from the identified model. A window has no refill to subtract: the burst is
// the limit, the sustained rate limit / window, and a refused client may wait up to a window.

import { round } from '../estimators.js';
import { sustainedRate, type LimiterModel } from '../limiters/index.js';
import type { Probe } from './probe.js';
import type { ShapeFindings } from './recover.js';
import { slidingPeriodPhase, PERIOD_PRECISION } from './sliding-period.js';
import { windowEdgesPhase, EDGE_PRECISION } from './window-edges.js';

export interface WindowFindings {
  limiter: LimiterModel | null;
  evidence: string[];
  notes: string[];
}

export async function windowPhase(probe: Probe, found: ShapeFindings): Promise<WindowFindings> {
  const { drain, recovery } = found;
  const notes: string[] = [];
  if (found.shape === 'resetting-window') {
    const limit = found.figures.clump;
    const firstEdge = { lo: recovery.lastRefused?.sentMs ?? drain.refusal.sentMs, hi: recovery.accepted.sentMs };
    const clumpEnd = Math.max(...probe.samples.filter((s) => s.phase === 'recover').map((s) => s.sentMs));
    const edges = await windowEdgesPhase(probe, limit, firstEdge, clumpEnd);
    // After the drain filled a fixed window, its next edge came within one window (the ping that
    // found it up to half as late again): a much longer first recovery says the edges were not a
    // fixed window's (HAProxy's counter forgetting a period at once looks like one for a while).
    if (edges.model && found.figures.recoveryMs > 1.6 * edges.model.window_s * 1000) {
      const note = `edges came every ${edges.model.window_s} s, but the first recovery took ${(found.figures.recoveryMs / 1000).toFixed(2)} s: not a fixed window; not sized`;
      return { limiter: null, evidence: [], notes: [...edges.notes, note] };
    }
    if (edges.model) return { limiter: edges.model, evidence: edges.evidence, notes: edges.notes };
    if (!edges.slidingPeriod) return { limiter: null, evidence: [], notes: edges.notes };
    notes.push(...edges.notes);
    // A sliding log counted from idle in the drain; windows later may have held earlier refusals.
    const period = await slidingPeriodPhase(probe, Math.max(limit, drain.limit), edges.slidingPeriod);
    return { limiter: period.model, evidence: [...edges.evidence, ...period.evidence], notes: [...notes, ...period.notes] };
  }
  // A smooth sliding window: the drain from idle passed the whole limit; it came back about a
  // period after the drain's first request (later, if the pings meanwhile counted).
  const limit = drain.limit;
  // The lower end is only a guess when refused requests count (they delayed the recovery).
  const initial = { lo: (recovery.lastRefused?.sentMs ?? drain.refusal.sentMs) - drain.firstMs, hi: recovery.accepted.sentMs - drain.firstMs };
  const period = await slidingPeriodPhase(probe, limit, initial);
  return { limiter: period.model, evidence: period.evidence, notes: period.notes };
}

/** The Estimate's figures from an identified window. */
export function windowFigures(model: LimiterModel & { kind: 'fixed-window' | 'sliding-window' }) {
  const windowS = model.kind === 'fixed-window' ? model.window_s : model.period_s;
  return {
    sustained_rps: round(sustainedRate(model), 2),
    // The window's length is pinned to ±1 % (the limit is counted exactly).
    sustained_precision: model.kind === 'fixed-window' ? EDGE_PRECISION : PERIOD_PRECISION,
    burst: model.limit,
    burst_from_idle: true,
    // A client refused just after the window filled waits up to the whole window.
    recovery_s: windowS,
    refill_s: windowS,
  };
}
