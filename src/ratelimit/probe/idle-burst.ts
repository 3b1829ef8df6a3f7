// Phase 4: the burst from idle. Wait until the limit must have refilled (twice the time the guessed
// burst needs at the sustained rate), send at max_rps until the first refusal; repeat, waiting
// longer while it grows, until two rounds agree. A stalled sender or a limit that had not refilled
// shows up as a round that disagrees, and is measured again.

import { burstOf, round, type BurstFit } from '../estimators.js';
import type { Probe } from './probe.js';

/** The burst note's clause that takes away a refill at the sustained rate read (burstOf). */
const REFILL_TAKEN = 'after taking away what the limit refilled meanwhile';

/**
 * The burst note without its figure taken at the sustained rate read, once a proof refuted that
 * reading (refuted.ts): what passed back-to-back stands, what the limit refilled meanwhile is no
 * longer known. Null for any other note.
 */
export function burstNoteWithoutRefill(note: string): string | null {
  const clause = new RegExp(`; \\d+ ${REFILL_TAKEN}$`);
  return note.startsWith('burst: ') && clause.test(note)
    ? note.replace(
        clause,
        '; the burst itself is not identified: what the limit refilled meanwhile was reckoned at the refuted reading\u2019s rate',
      )
    : null;
}

/** Rounds of "wait, burst again" before the burst is reported as not verified from idle. */
export const IDLE_ROUNDS = 5;

export interface IdleBurstFindings {
  /** What a client may send at once; null when no request ever passed back-to-back. */
  burst: number | null;
  /** What passed back-to-back before the first refusal, before the refill meanwhile is taken away; null with no burst. */
  passed: number | null;
  fromIdle: boolean;
  notes: string[];
}

export async function idleBurstPhase(
  probe: Probe,
  sustained: number | null,
  recovery: number | null,
  drainBurst: BurstFit,
): Promise<IdleBurstFindings> {
  const notes: string[] = [];
  const { fit, fromIdle, waited } =
    sustained !== null && sustained > 0
      ? await roundsFromIdle(probe, sustained, recovery, drainBurst, notes)
      : { fit: drainBurst, fromIdle: false, waited: false };
  // No round waited for a refill: the drain alone followed whatever used the limit before the probe
  // (run's checks and load stages), so what it let through is no burst. `run` against a bucket of
  // 2 req/s, burst 4 reported "burst 0" that way, its 30 s cap spent on the rate (30 Nov).
  if (sustained !== null && !waited) {
    notes.push(
      `burst not measured: no round waited for the limit to refill, and the first drain (${fit.raw} passed back-to-back) followed whatever used the limit before the probe, ` +
        'so no limiter is claimed (the sustained rate stands); `ces-harness ratelimit`, with a longer probe, measures it from idle',
    );
    return { burst: null, passed: null, fromIdle: false, notes };
  }
  // A round nothing refused never emptied the limit: what passed less the refill is no capacity.
  // A starved machine's probe, sending little faster than the rate, saw 253 pass from a bucket of
  // 50 that way and reported "burst 24" (virtually, 25 ms late).
  if (!fit.limited && fit.raw > 0) {
    notes.push(
      `burst not measured: no round was refused (the last let ${fit.raw} through back-to-back), so the limit was never emptied; no limiter is claimed (the sustained rate stands)`,
    );
    return { burst: null, passed: null, fromIdle: false, notes };
  }
  const burst = fit.limited ? fit.capacity : null;
  if (burst !== null) {
    notes.push(
      `burst: ${fit.raw} requests passed back-to-back at ${probe.maxRps} req/s${fromIdle ? ' from idle' : ''}; ` +
        `${burst} ${REFILL_TAKEN}`,
    );
  }
  return { burst, passed: burst !== null ? fit.raw : null, fromIdle, notes };
}

/** Waits and bursts until two rounds agree (or rounds, time or budget run out): the last round's fit. */
async function roundsFromIdle(
  probe: Probe,
  sustained: number,
  recovery: number | null,
  drainBurst: BurstFit,
  notes: string[],
): Promise<{ fit: BurstFit; fromIdle: boolean; waited: boolean }> {
  let last = drainBurst;
  // The drain is the first reference: when it started from idle, one round confirms it.
  let previous = drainBurst.limited ? drainBurst.capacity : undefined;
  let guess = Math.max(1, drainBurst.capacity);
  const measured: number[] = [];
  // The last round the limit refused: a later one cut short by the budget never emptied it.
  let lastLimited: BurstFit | undefined;
  // The least a round sends: raised when one ended with nothing refused.
  let cap = 0;
  for (let roundNo = 0; roundNo < IDLE_ROUNDS && !probe.outOfBudget(); roundNo++) {
    // Twice what a limit of `guess` needs to refill at the sustained rate, and never less than
    // two recoveries: long enough to be idle, short enough to keep the probe brief.
    const waitMs = Math.max((2 * guess * 1000) / sustained, 2 * (recovery ?? 0) * 1000, 200);
    const size = Math.max(50, 3 * guess + 20, cap);
    const burstMs = (size * 1000) / probe.maxRps;
    if (probe.elapsed() + waitMs + burstMs > probe.maxDurationMs) {
      notes.push(
        `no time left to wait ${round(waitMs / 1000, 1)} s for a full refill; the burst was not measured from idle`,
      );
      break;
    }
    probe.progress(`waiting ${round(waitMs / 1000, 1)} s for the limit to refill, then measuring the burst from idle`);
    await probe.clock.sleep(waitMs, probe.signal);
    if (probe.signal?.aborted) break;
    const fit = burstOf((await probe.burstRun('idle-burst', size)).samples, sustained);
    last = fit;
    if (!fit.limited) {
      // Nothing refused within the cap: the limit holds more than guessed (what passed less the
      // refill meanwhile, at least), or the sender went little faster than the refill. Wait for that
      // much, and send twice as many: waiting for all that passed, 176 of a bucket of 50 sent at
      // 60 req/s by a starved machine, left no time for another round (virtually, 20 ms late).
      guess = Math.max(guess + 1, fit.capacity);
      cap = 2 * Math.max(size, fit.raw);
      previous = undefined;
      continue;
    }
    lastLimited = fit;
    measured.push(fit.capacity);
    if (previous !== undefined && Math.abs(fit.capacity - previous) <= 0.15 * Math.max(fit.capacity, previous) + 1)
      return { fit, fromIdle: true, waited: true };
    previous = fit.capacity;
    guess = Math.max(guess, fit.capacity);
  }
  if (!probe.stoppedBy && measured.length > 0)
    notes.push(`the burst differed from round to round (${measured.join(', ')}); reported as measured last`);
  return { fit: lastLimited ?? last, fromIdle: false, waited: last !== drainBurst };
}
