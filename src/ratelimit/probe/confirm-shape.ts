// A bucket verdict rests on one drain that filled the limit from idle. The first drain cannot be
// sure of that: the probe's set-up requests (a token, the validate method) count too, and on a busy
// machine the drain may start long after them or take longer than planned, so it can straddle
// where a smooth sliding window (HAProxy's http_req_rate) turns its period over. Such a window is
// then already sliding when the drain ends: it lets one request in soon after the refusal and one
// every period / limit after that, which is exactly a bucket's mark. So a bucket is believed only
// when a second drain, sent after a wait that empties either kind, shows the same; otherwise the
// second drain's verdict stands (nothing but the wait preceded it).

import { drainFigures, shapePhase, type ShapeFindings } from './recover.js';
import type { Probe } from './probe.js';

export async function confirmedShape(probe: Probe, first: ShapeFindings): Promise<ShapeFindings> {
  if (first.shape !== 'bucket') return first;
  const { figures, drain } = first;
  // Three times what the whole drain takes to come back at the trickle's pace: a bucket of that
  // size is full again, and a window whose period / limit is that pace has been idle two periods
  // (HAProxy forgets a count only then). A trickle timed late on a busy machine only lengthens it.
  const paceMs = Math.max(figures.trickleMs ?? 0, figures.recoveryMs);
  const waitMs = Math.max(3 * drain.accepted * paceMs, 300);
  const lastMs = Math.max(...probe.samples.map((s) => s.sentMs));
  const drainMs = ((3 * drain.accepted + 20) * 1000) / probe.maxRps;
  // Past a quarter of the time cap the stream after it would be starved (a slow limit, a short
  // cap): the verdict stands unconfirmed, and says so.
  if (waitMs + drainMs > probe.maxDurationMs / 4 || lastMs + waitMs + drainMs > probe.maxDurationMs) {
    return { ...first, evidence: `${first.evidence} (not confirmed by a second drain from idle: no time for it)` };
  }
  const wait = lastMs + waitMs - probe.elapsed();
  if (wait > 0) await probe.clock.sleep(Math.ceil(wait), probe.signal);
  if (probe.outOfBudget()) return first;
  const { samples } = await probe.burstRun('recover', 3 * drain.accepted + 20);
  // No set-up request precedes this drain: what passed is the whole limit.
  const again = drainFigures(samples);
  const second = again ? await shapePhase(probe, again, figures.trickleMs) : undefined;
  if (!second) return first;
  if (second.shape === 'bucket') {
    return { ...first, evidence: `${first.evidence}; the same again from idle (${second.figures.drained} passed, one back within ${Math.round(second.figures.recoveryMs)} ms)` };
  }
  return { ...second, evidence: `${second.evidence} (a first drain, not from idle, had looked like a bucket)` };
}
