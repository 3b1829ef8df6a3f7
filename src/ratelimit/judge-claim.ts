// The judge as the last gate of the probe (discover.ts): the detectors' claim stands only when
// replaying the probe's whole trace through it explains what the service answered (judge.ts).
// What the detectors could not measure is no contradiction: a window kept on the clock whose
// phase they read off a few edges is judged at every phase, and stands if one of them explains.

import { judge, judgeCandidates, traceOf, type Candidate, type Judgement, type TraceRequest } from './judge.js';
import type { LimiterModel } from './limiters/index.js';
import type { Sample } from './types.js';

/** How many phases of a window on the clock are tried beside the one the detectors read. */
const PHASES = 20;

/**
 * How many times the judge's own tolerance (judge.ts, TOLERANCE) a claim must stray by before the
 * probe withholds it. The judge ranks candidates at its tolerance; the gate is deliberately looser,
 * so that no reading the suites confirm right is lost while the candidates are still only the
 * detectors' own: over the fast tier's 1,456 identifications the worst right reading strayed by
 * 2.7 × (a bucket of burst 1 whose drain the pacing cut short, a silent 50 per 2 s counter at 2 ×,
 * a batch bucket, whose ticks fall on the limiter's own clock, at 1.1 ×). A claim of the wrong
 * shape strays by tens of times (a window twice too long over a bucket: 10 ×). The lead set it at 5,
 * not 3: the worst right reading at 2.7 × was on loopback; a real network's jitter and a busy
 * machine widen every right reading's stray, and a right claim withheld fails a conformant service.
 */
export const GROSS = 5;

/** The claim as the detectors made it, then its variants over what they may have misread (a clock window's phase). */
export function claimCandidates(model: LimiterModel): Candidate[] {
  const claimed: Candidate = { source: 'the detectors', limits: model };
  const onTheClock =
    (model.kind === 'fixed-window' && model.edges !== 'first-request') || model.kind === 'sliding-counter';
  if (!onTheClock) return [claimed];
  const phases = Array.from({ length: PHASES }, (_, i) => Math.round(((i * model.window_s) / PHASES) * 1000) / 1000);
  return [
    claimed,
    ...phases.map((phase_s) => ({ source: `the detectors, its edges at ${phase_s} s`, limits: { ...model, phase_s } })),
  ];
}

/**
 * The judge's verdict on the detectors' claim: what the trace showed when no variant of the claim
 * comes within GROSS times the judge's tolerance of it; undefined when the claim stands.
 */
export function contradiction(model: LimiterModel, samples: readonly Sample[]): string | undefined {
  const trace = traceOf(samples);
  const [claimed, ...variants] = claimCandidates(model);
  const asClaimed: Judgement = judge(claimed!, trace);
  // The claim as made, or failing that its best variant (a miss costs 20 replays, a hit one).
  const others = asClaimed.explains
    ? []
    : [
        ...judgeCandidates(variants, trace),
        ...ticksShifted(model, trace),
        spentAtStart(claimed!, trace),
        ...decidedAsAnswered(claimed!, trace),
      ];
  const best = [asClaimed, ...others].sort((a, b) => strayed(a) - strayed(b))[0]!;
  if (strayed(best) <= GROSS) return undefined;
  return `not identified: ${asClaimed.evidence}${variants.length > 0 ? ', nor at any other phase of its window' : ''}`;
}

/** How far a judgement strayed, in the judge's tolerances; a model that refused none of the service's refusals, without end. */
const strayed = (j: Judgement): number =>
  j.inStep || j.judged === j.admitted ? j.drift / j.allowed : Number.POSITIVE_INFINITY;

/**
 * A bucket refilled by a timer ticks on the limiter's own clock, which the probe's does not share
 * (its model has no phase): judged with the trace moved by each of PHASES shares of an interval.
 */
function ticksShifted(model: LimiterModel, trace: readonly TraceRequest[]): Judgement[] {
  if (model.kind !== 'bucket' || model.fill_interval_s === undefined) return [];
  const intervalMs = model.fill_interval_s * 1000;
  return Array.from({ length: PHASES }, (_, i) => {
    const byMs = (i * intervalMs) / PHASES;
    const moved = trace.map((r) => ({ ...r, sentMs: r.sentMs + byMs, doneMs: r.doneMs + byMs }));
    return judge({ source: `the detectors, its ticks ${Math.round(byMs)} ms later`, limits: model }, moved);
  });
}

/**
 * The claim replayed from a limit spent when the probe began, where the replay from rest did not
 * explain the trace (it may never have come in step). The checks before the probe may have drained it (in `check`, ratelimit.limit-enforced
 * does, seconds before), and a probe that then kept near the rate never let the limit fill: a model
 * from rest stays a whole burst ahead, admitting every request the service refused (ci-57D:
 * production's 50/s bucket, 19 refusals in 19.5 s, withheld). A replay from rest forgives refusals
 * until the model first refuses one; spent is the other end of what the limiter can have started
 * in. It has to explain the whole trace from there, as any candidate does.
 */
const spentAtStart = (claimed: Candidate, trace: readonly TraceRequest[]): Judgement =>
  judge({ ...claimed, source: `${claimed.source}, spent when the probe began` }, trace, 'spent');

/**
 * The claim replayed with every request decided when it was answered, in the order of the answers,
 * from rest and from spent: the other end of each request's time in flight. The replay from the
 * sending takes an admission as early as the model allows, which is right for a network's delays
 * but not for a limiter whose own process stalled (the emulator in a busy test process, a gateway
 * paused by its collector): what was sent during the stall reached it at the stall's end, all at
 * once, and a bucket full all through the stall had saved no more than its burst. Replayed at their
 * sending, the requests find the model refilled meanwhile, and it refuses none of the service's
 * refusals (ci-63C: production's 50/s bucket withheld, the cutover NOT TESTED).
 */
function decidedAsAnswered(claimed: Candidate, trace: readonly TraceRequest[]): Judgement[] {
  const answered = trace.map((r) => ({ ...r, sentMs: r.doneMs })).sort((a, b) => a.doneMs - b.doneMs);
  const source = `${claimed.source}, each request decided as it was answered`;
  return [judge({ ...claimed, source }, answered), judge({ ...claimed, source }, answered, 'spent')];
}
