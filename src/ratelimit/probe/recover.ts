// Right after the drain's first refusal: what shape the limit has (identify.ts says how to read
// it). No stream is sent into the refusal: single requests with growing gaps find when the limit
// lets one through again; then one clump at max_rps shows whether it came back whole (a window
// that reset) or one request at a time; if one at a time, three more single-request recoveries
// give the interval between admissions.

import {
  SLIDING_RECOVERY_RATIO,
  resetWhole,
  shapeOf,
  shutAtLeastMs,
  type Bracket,
  type RecoveryShape,
  type ShapeFigures,
} from '../identify.js';
import type { Sample } from '../types.js';
import { acceptedBeforeRefusal, reorderMs, sendingEndMs, lateForItsMomentMs } from './arrival.js';
import { firstGapMs, pingUntilAccepted, topUp, toppedEndMs, type Recovery } from './ping.js';
import { tailSingles } from './drain-tail.js';
import type { Probe } from './probe.js';

/** Single-request recoveries timed after the first one, for the interval between admissions. */
const TRICKLE_RECOVERIES = 3;

export interface DrainFigures {
  /** Requests that passed before the first refusal. */
  accepted: number;
  /** Send time of the first of them, ms. */
  firstMs: number;
  /** Send time of the last of them, ms. */
  lastMs: number;
  refusal: Sample;
  /**
   * The limit the drain shows: what passed plus the probe's set-up requests (a token, the validate
   * method) sent just before it, which the limit counted too.
   */
  limit: number;
}

export interface ShapeFindings {
  shape: RecoveryShape;
  evidence: string;
  figures: ShapeFigures;
  drain: DrainFigures;
  /** The first recovery after the drain. */
  recovery: Recovery & { accepted: Sample };
  /**
   * What the first recovery and its clump let through before the clump's first refusal; undefined
   * when the clump was never refused (it ran past the next edge, or the limit is larger).
   */
  clumpCount?: WindowCount;
  /**
   * The spacing of the ticks a timer's staircase timed before it told a fixed window on the clock
   * (batch-staircase.ts), ms: where the edge walk looks for the edge after `recovery`.
   */
  tickPeriodMs?: Bracket;
  /**
   * The staircase told a fixed window from a bucket refilled by a timer (its drain from idle no more
   * than a batch a tick, batch-staircase.ts): the window path need not tell them apart again.
   */
  batchTold?: true;
  /** Requests refused before each single-request recovery timed after the clump, in order (none timed: empty). */
  trickleRefused: number[];
  /** Send times of those recoveries, ms, in order. */
  trickleAdmittedMs: number[];
  /**
   * A faster limit in front was seen (resetAfterSingle): it refuses a run at max_rps a few short of
   * the window's count and lets them through a refill later, so the window's count is what passed
   * until the window shut, refills included (window-edges.ts tops its fills up the same way).
   */
  frontLimit?: true;
  /**
   * An edge of the window seen before `recovery`, some whole windows before it: behind a faster
   * limit, the comeback after the last long shut the stream saw (behind-front.ts). The edge walk takes it
   * into its lattice once its own edges say how many windows lie between (window-edges.ts).
   */
  earlierEdge?: Bracket;
}

/**
 * What timed the trickle's comebacks after the clump: 'refusals' when a ping was refused before
 * each (a token found after a refusal: the limit's own pace), 'round trips' when none was (each
 * came back to its first ping, as far apart as the pings were: across a network, round trips, and
 * a bucket may refill many meanwhile), 'mixed' otherwise; null when none was timed.
 */
export function trickleTimedBy(
  shape: Pick<ShapeFindings, 'trickleRefused'>,
): 'refusals' | 'round trips' | 'mixed' | null {
  const refused = shape.trickleRefused;
  if (refused.length === 0) return null;
  if (refused.every((n) => n > 0)) return 'refusals';
  return refused.every((n) => n === 0) ? 'round trips' : 'mixed';
}

/** The drain's figures from its samples (and the set-up requests before it); undefined when nothing was refused or nothing passed. */
export function drainFigures(samples: readonly Sample[], setupRequests = 0): DrainFigures | undefined {
  const refusal = [...samples].sort((a, b) => a.sentMs - b.sentMs).find((s) => s.answer === 'limited');
  if (!refusal) return undefined;
  const passed = acceptedBeforeRefusal(samples);
  if (passed.length === 0) return undefined;
  return {
    accepted: passed.length,
    firstMs: passed[0]!.sentMs,
    lastMs: passed[passed.length - 1]!.sentMs,
    refusal,
    limit: passed.length + setupRequests,
  };
}

// The recovery searches' first gap, where the phases that time a comeback look for it.
export { firstGapMs } from './ping.js';

/**
 * `knownTrickleMs`: the interval a first shape phase timed, when this one only confirms it. A
 * recovery shorter than a smooth window's (SLIDING_RECOVERY_RATIO of them) then needs no timing
 * again: only a long one could change the verdict. `behindFront`: read again from a comeback behind
 * a faster limit (windowFromComeback), which is not looked for again.
 */
export async function shapePhase(
  probe: Probe,
  drain: DrainFigures,
  knownTrickleMs: number | null = null,
  found?: Recovery,
  behindFront = false,
): Promise<ShapeFindings | undefined> {
  // `found`: the first recovery, already searched for this way (probe/silent-window.ts).
  const recovery = found ?? (await firstRecovery(probe, drain));
  if (!recovery.accepted) return undefined;
  const first = recovery.accepted;
  const recoveryMs = first.sentMs - drain.refusal.sentMs;
  const refusalLateMs = lateForItsMomentMs(probe.samples, drain.refusal);
  const { samples: clumpRun } = await probe.burstRun('recover', drain.accepted + 5);
  const clump = 1 + countUntilRefused(clumpRun);
  const counted = countedToShut(first, clumpRun);
  const lastRefusedMs = recovery.lastRefused?.sentMs ?? drain.refusal.sentMs;
  const clumpCount = counted && { ...counted, before: admittedBefore(probe.samples, lastRefusedMs, first) };
  // What a smooth window could have freed by the comeback counts from when the limit was last seen shut.
  const shutMs = lastSeenShutMs(probe.samples, drain, lastRefusedMs, first);
  let trickleMs: number | null = null;
  const trickleRefused: number[] = [];
  const admitted: number[] = [];
  // Read again behind a faster limit (windowFromComeback): the singles were that limit's refills.
  const singles = behindFront ? 0 : tailSingles(probe.samples, drain.refusal.sentMs, first.sentMs);
  const whole = resetWhole({
    clump,
    drained: drain.accepted,
    lateMs: first.sentMs - shutMs,
    beforeMs: shutMs - drain.firstMs,
    tailSingles: singles,
  });
  if (
    !whole &&
    knownTrickleMs !== null &&
    shutAtLeastMs({ recoveryMs, refusalLateMs }) < SLIDING_RECOVERY_RATIO * knownTrickleMs
  )
    trickleMs = knownTrickleMs;
  else if (!whole) {
    // Gaps from a fraction of what one admission of the drained limit takes, so pings never run
    // ahead of a smooth window's pace (a limit that counts refusals would be held shut by them).
    const gap = Math.max(firstGapMs(probe), recoveryMs / (2 * drain.accepted));
    let from = lastSent(clumpRun) ?? first.sentMs;
    // Shut this long after the comeback, the limit is no bucket that refills as fast (shutLong).
    const longMs = SLIDING_RECOVERY_RATIO * Math.max(recoveryMs, gap);
    for (let i = 0; i < TRICKLE_RECOVERIES && !probe.outOfBudget(); i++) {
      const next = await pingUntilAccepted(probe, 'recover', from, gap, behindFront ? 2 : finerWhenLong(from, longMs));
      if (!next.accepted) break;
      const reset =
        admitted.length === 0 && !behindFront && shutLong(next, from, longMs)
          ? await resetAfterSingle(probe, drain, next as Recovery & { accepted: Sample }, { recoveryMs, clump })
          : undefined;
      if (reset) return reset;
      admitted.push(next.accepted.sentMs);
      trickleRefused.push(next.refused);
      from = next.accepted.sentMs;
    }
    if (admitted.length > 0) trickleMs = (admitted[admitted.length - 1]! - first.sentMs) / admitted.length;
  }
  const figures: ShapeFigures = {
    drained: drain.accepted,
    recoveryMs,
    clump,
    trickleMs,
    lateMs: first.sentMs - shutMs,
    beforeMs: shutMs - drain.firstMs,
    // Only of pings sent here, from the refusal on: a recovery found elsewhere waited on purpose.
    ...(!found && recovery.overdueMs ? { overdueMs: recovery.overdueMs } : {}),
    ...(singles > 0 ? { tailSingles: singles } : {}),
    ...(refusalLateMs > 0 ? { refusalLateMs } : {}),
  };
  const { shape, evidence } = shapeOf(figures);
  const recovered = { ...recovery, accepted: first };
  return {
    shape,
    evidence,
    figures,
    drain,
    recovery: recovered,
    ...(clumpCount ? { clumpCount } : {}),
    trickleRefused,
    trickleAdmittedMs: admitted,
  };
}

/**
 * Refused for far longer than the first comeback took: the refused pings before `next` span
 * SLIDING_RECOVERY_RATIO of `comebackMs` or more. A bucket that let one through `comebackMs` after
 * the drain refills as fast again; a limit shut that long after it is another one, or a window.
 */
const shutLong = (next: Recovery, fromMs: number, comebackMs: number): boolean =>
  next.refused >= 2 &&
  next.lastRefused !== undefined &&
  next.lastRefused.sentMs - fromMs > SLIDING_RECOVERY_RATIO * comebackMs;

/**
 * A trickle's ping gaps: doubling, as a bucket's refill is found within a few; once shut past
 * `longMs` after `fromMs`, growing by half, as the first recovery's (firstRecovery): a window whose
 * edge comes then is found within a third of the wait, so what comes back at once tells a window
 * that reset from one that slides (resetWhole).
 */
const finerWhenLong =
  (fromMs: number, longMs: number) =>
  (gap: number, last: Sample): number =>
    last.sentMs - fromMs > longMs ? gap * 1.5 : gap * 2;

/**
 * One request let through right after the drain, then the limit shut long, then back (`next`): two
 * limits, a fast bucket in front of a window (a bucket of 100 per second before a fixed window of 200
 * per 10 s: the drain at 200 req/s met the bucket at 197, one request passed 10 ms later, then the
 * window was full until its edge). Read as a bucket, the trickle's three comebacks averaged 1.72 s,
 * and the probe spent its budget on a slow bucket that was none: not identified.
 */
async function resetAfterSingle(
  probe: Probe,
  drain: DrainFigures,
  next: Recovery & { accepted: Sample },
  first: { recoveryMs: number; clump: number },
): Promise<ShapeFindings | undefined> {
  const shutMs = next.accepted.sentMs - drain.refusal.sentMs;
  return windowFromComeback(probe, drain, next, {
    shutFromMs: drain.refusal.sentMs,
    because: `${first.clump === 1 ? 'one request' : `${first.clump} requests`} passed ${Math.round(first.recoveryMs)} ms after the drain's first refusal, then ${next.refused} in a row were refused until ${(shutMs / 1000).toFixed(2)} s after it: another limit, shut until it reset, not a bucket's refill`,
    shutMs,
  });
}

/**
 * The shape read again from a comeback after a long shut (`next`), a clump sent at once, behind a
 * faster limit in front: only a window that came back whole stands. The clump that limit cut short
 * is topped up (ping.ts topUp) for as long again as it ran, or 0.9 of `shutMs` (a window shut that
 * long is at least that long, so no admission by then is the next window's), whichever is longer;
 * a clump still let through then is no window's count, and nothing is read. `shutFromMs`: when
 * the window was seen full, what its comeback is timed from.
 */
export async function windowFromComeback(
  probe: Probe,
  drain: DrainFigures,
  next: Recovery & { accepted: Sample },
  { because, shutMs, shutFromMs }: { because: string; shutMs: number; shutFromMs: number },
): Promise<ShapeFindings | undefined> {
  const again = await shapePhase(probe, drain, null, next, true);
  if (again?.shape !== 'resetting-window') return undefined;
  const clumpMs = probe.elapsed() - next.accepted.sentMs;
  const untilMs = next.accepted.sentMs + Math.max(2 * clumpMs, 0.9 * shutMs);
  const topped = again.clumpCount ? await topUp(probe, 'recover', Infinity, untilMs) : [];
  // Still letting requests through when the bound came (the window came back while the bucket in
  // front was short: a clump of 114 of 200 an edge 0.6 s after the drain), the count is not the
  // window's: read as before.
  if (topped.at(-1)?.answer === 'accepted') return undefined;
  const more = topped.filter((s) => s.answer === 'accepted').length;
  return {
    ...again,
    figures: { ...again.figures, clump: again.figures.clump + more, recoveryMs: next.accepted.sentMs - shutFromMs },
    ...(again.clumpCount
      ? {
          clumpCount: {
            ...again.clumpCount,
            count: again.clumpCount.count + more,
            lastCountedMs: Math.max(again.clumpCount.lastCountedMs, toppedEndMs(topped)),
          },
        }
      : {}),
    frontLimit: true,
    evidence: `${because}; ${again.evidence}`,
  };
}

/**
 * Gaps growing by half: the ping that finds the recovery is at most a third late, so a smooth
 * sliding window (which frees limit × lateness / period by then) lets through well under half
 * the limit at once, where a window that resets lets it all through. `growth`: the gaps another way.
 */
export const firstRecovery = (
  probe: Probe,
  drain: DrainFigures,
  growth: Parameters<typeof pingUntilAccepted>[4] = 1.5,
) => pingUntilAccepted(probe, 'recover', drain.refusal.sentMs, firstGapMs(probe), growth);

/** Accepted requests of a run before its first refusal (arrival.ts: as far as the round trips tell). */
export function countUntilRefused(run: readonly Sample[]): number {
  return acceptedBeforeRefusal(run).length;
}

/** A window's count from the request that opened it to a run's first refusal, and the last request that count rests on. */
export interface WindowCount {
  count: number;
  /**
   * Send time of the last request counted (or of the refusal, if later), ms: the count is the
   * window's limit only if the window's next edge is after it. A busy machine's late timers can
   * stretch a clump past that edge, and then the next window's admissions are counted too.
   */
  lastCountedMs: number;
  /**
   * Requests the window let through before its opener, sent after the refusal before it by more
   * than the round trips can swap (so in this window, not the last one): the drain's tail, in
   * flight when its edge passed, on a busy machine. The count is then short of the limit, and a
   * limit read short fills each window short, its edges read early (a rate above the true one).
   */
  before: number;
}

/** `opener` (the request that opened the window) and what `run` passed until its first refusal; undefined when it was never refused. */
export function countedToShut(opener: Sample, run: readonly Sample[]): Omit<WindowCount, 'before'> | undefined {
  if (!run.some((s) => s.answer === 'limited')) return undefined;
  const passed = acceptedBeforeRefusal(run);
  return {
    count: 1 + passed.length,
    lastCountedMs: Math.max(opener.sentMs, sendingEndMs(run)!, ...passed.map((s) => s.sentMs)),
  };
}

/**
 * When the limit was last seen shut before `comeback` (the request that found it back), ms: the
 * last refusal answered before that request went out, from `refusedMs` on (the drain's first
 * refusal, or the last refused ping). The drain's requests still in flight after its first refusal
 * count: across a network ~100 ms away the first ping waits for their answers, and when the edge
 * came in those two round trips no ping was refused. Taken from the first refusal, that wait made a
 * fixed window 50 per 1 s, whole again right after its refused tail, look like what a smooth window
 * frees over two round trips (1.5 × 48 × 213 ms / 245 ms: 62 ≥ its 50), so a bucket's shape
 * (test/ratelimit/stalled-window-virtual.test.ts). Answered before the comeback went out, each
 * surely reached the limiter before it. Only when none of them was let through past what the drain
 * counted (`drain.lastMs`: those that may have overtaken its refusal): a tail let through in part
 * came back before the comeback and took some of it, the clump after is short of a window's
 * limit, and the shape stays read from `refusedMs` (a second drain decides then, confirm-shape.ts).
 */
function lastSeenShutMs(samples: readonly Sample[], drain: DrainFigures, refusedMs: number, comeback: Sample): number {
  const tail = samples.filter(
    (s) => s.client === 'primary' && s.sentMs > refusedMs && s.sentMs < comeback.sentMs && s.doneMs <= comeback.sentMs,
  );
  if (tail.some((s) => s.answer === 'accepted' && s.sentMs > drain.lastMs)) return refusedMs;
  return tail.reduce((last, s) => (s.answer === 'limited' ? Math.max(last, s.sentMs) : last), refusedMs);
}

/** Requests let through that were sent between `afterMs` (a refusal's send time) and `opener`, past what the round trips can swap. */
export function admittedBefore(samples: readonly Sample[], afterMs: number, opener: Sample): number {
  const swapMs = reorderMs(samples.filter((s) => s.sentMs > afterMs && s.sentMs < opener.sentMs));
  return samples.filter((s) => s.answer === 'accepted' && s.sentMs > afterMs + swapMs && s.sentMs < opener.sentMs)
    .length;
}

const lastSent = (run: readonly Sample[]): number | undefined =>
  run.length === 0 ? undefined : Math.max(...run.map((s) => s.sentMs));
