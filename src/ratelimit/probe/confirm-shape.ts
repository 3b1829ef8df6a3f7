// A bucket verdict rests on one drain that filled the limit from idle. The first drain cannot be
// sure of that: the probe's set-up requests (a token, the validate method) count too, and on a busy
// machine the drain may start long after them or take longer than planned, so it can straddle
// where a smooth sliding window (HAProxy's http_req_rate) turns its period over. Such a window is
// then already sliding when the drain ends: it lets one request in soon after the refusal and one
// every period / limit after that, which is exactly a bucket's mark. So a bucket is believed only
// when a second drain, sent after a wait that empties either kind, shows the same; otherwise the
// second drain's verdict stands (nothing but the wait preceded it).

import { drainAt, drainFits } from './ping.js';
import { queueIntervalOfDrain } from './queue-wait.js';
import { drainFigures, shapePhase, trickleTimedBy, type DrainFigures, type ShapeFindings } from './recover.js';
import type { Probe } from './probe.js';

export async function confirmedShape(probe: Probe, first: ShapeFindings): Promise<ShapeFindings> {
  if (first.shape !== 'bucket') return first;
  const { figures, drain } = first;
  // Three times what the whole drain takes to come back at the trickle's pace: a bucket of that
  // size is full again, and a window whose period / limit is that pace has been idle two periods
  // (HAProxy forgets a count only then). A trickle timed late on a busy machine only lengthens it.
  // Behind a queue the trickle timed its waits: its answers' interval is the pace (queue-wait.ts).
  const queueMs = queueIntervalOfDrain(probe.samples);
  const paceMs = queueMs ?? Math.max(figures.trickleMs ?? 0, figures.recoveryMs);
  const waitMs = Math.max(3 * drain.accepted * paceMs, 300);
  const lastMs = Math.max(...probe.samples.map((s) => s.sentMs));
  // Past a quarter of the time cap the stream after it would be starved (a slow limit, a short
  // cap): a short wait still tells a bucket from a window that reset meanwhile.
  if (!drainFits(probe, lastMs, waitMs, confirmingDrain(drain), 1 / 4)) return shortConfirmation(probe, first, lastMs);
  const samples = await drainAt(probe, 'recover', lastMs + waitMs, confirmingDrain(drain));
  if (!samples) return first;
  // No set-up request precedes this drain: what passed is the whole limit.
  const again = drainFigures(samples);
  const second = again ? await shapePhase(probe, again, figures.trickleMs) : undefined;
  if (!second) return first;
  if (second.shape === 'bucket') {
    return {
      ...first,
      evidence: `${first.evidence}; the same again from idle (${second.figures.drained} passed, one back within ${Math.round(second.figures.recoveryMs)} ms)`,
    };
  }
  return { ...second, evidence: `${second.evidence} (a first drain, not from idle, had looked like a bucket)` };
}

/**
 * The drain that would confirm a bucket from idle takes too long (a large, slow limit, or a window
 * misread as one: a drain that straddled a fixed window's edge looks like a bucket refilling
 * slowly). Instead: a short wait, then a drain. Where the trickle timed the refills (a ping refused
 * before each comeback: a refill is at least the comeback's gap less the pings' own), a bucket
 * refills at most about one request per trickle: twice that and two more is all it can let
 * through; a window that reset meanwhile lets its whole limit through. Where every ping passed, a
 * round trip apart (a network), they timed the network: a bucket may refill many per trickle, so
 * the count bounds nothing (the emulator's 50/s bucket behind toxiproxy was said to refill "one
 * every 188 ms, at most 17" when 71 passed). The second drain's own shape then stands (a window
 * shows there as one: shut until its edge, then back whole), said to be no confirmation from idle.
 */
async function shortConfirmation(probe: Probe, first: ShapeFindings, lastMs: number): Promise<ShapeFindings> {
  const unconfirmed = {
    ...first,
    evidence: `${first.evidence} (not confirmed by a second drain from idle: no time for it)`,
  };
  const { figures, drain } = first;
  const refillMs = Math.min(figures.trickleMs ?? figures.recoveryMs, figures.recoveryMs);
  const waitMs = Math.max(SHORT_WAIT_REFILLS * refillMs, 300);
  if (!drainFits(probe, lastMs, waitMs, confirmingDrain(drain), 1 / 8)) return unconfirmed;
  const samples = await drainAt(probe, 'recover', lastMs + waitMs, confirmingDrain(drain));
  if (!samples) return unconfirmed;
  const passed = samples.filter((x) => x.answer === 'accepted').length;
  // Timed by refusals, the trickle bounds a bucket's refills; by round trips, nothing.
  const timed = trickleTimedBy(first) === 'refusals';
  const bucketAtMost = (2 * (probe.elapsed() - lastMs)) / refillMs + 2;
  if (timed && passed <= bucketAtMost) {
    return {
      ...first,
      evidence: `${first.evidence}; ${Math.round(waitMs)} ms after, ${passed} passed, no more than a bucket refills (not confirmed from idle: no time for it)`,
    };
  }
  // More came back than any bucket of that pace refills (the limit reset), or the pace is unknown:
  // the shape read from this drain.
  const again = drainFigures(samples);
  const second = again ? await shapePhase(probe, again) : undefined;
  if (!second) return unconfirmed;
  if (!timed) {
    const read = `${passed} passed a second drain ${Math.round(waitMs)} ms after the first, not from idle (no time for a full refill's wait); no bound on a bucket's refills: the trickle's pings, none refused, timed round trips`;
    return second.shape === 'bucket'
      ? { ...second, evidence: `${second.evidence} (${read}; the first drain read the same)` }
      : { ...second, evidence: `${second.evidence} (${read}; a first drain, not from idle, had looked like a bucket)` };
  }
  const why = `${passed} requests passed ${Math.round(waitMs)} ms after a drain, where a bucket refilling one every ${Math.round(refillMs)} ms lets through at most ${Math.floor(bucketAtMost)}`;
  return { ...second, evidence: `${second.evidence} (${why}; a first drain, not from idle, had looked like a bucket)` };
}

/** The confirming drain's cap: room for three times what the first drain let through (a window misread as a bucket may hold more). */
const confirmingDrain = (drain: DrainFigures): number => 3 * drain.accepted + 20;

/** Refills the short confirmation waits for: a bucket lets a few through, a window that reset its whole limit. */
const SHORT_WAIT_REFILLS = 5;
