// The judge of models (issue 35, item 8): a limiter is claimed only when replaying the whole trace
// through it (src/ratelimit/limiters/, which models every kind and any set of them) predicts what
// the service answered. Detectors and announcements only propose candidates; the judge decides
// which of them the evidence leaves standing. Pure: the trace carries its own times, no clock is read.
//
// Timing uncertainty: the limiter decided each request somewhere between its sending and its
// answer (a network, a queue, a busy machine in between). Every kind here frees up as time passes
// and nothing arrives (a bucket refills, a window ends, a log ages out, a queue drains), so an
// admission is explained when the model admits it by the answer's time, and a refusal when the
// model refuses it at the sending. The replay takes each request at the moment in its interval that
// best explains it, on a clock that never runs backwards (a limiter's state only moves forward);
// a request the model mispredicts is then taken as the service took it, so one slip of a model
// measured to ±1 % does not become a run of them.

import { createLimiter, describeLimiter, type Limiter, type Limits } from './limiters/index.js';
import type { Sample } from './types.js';

/** One request as the judge sees it: when it left, when its answer came, and whether the limit let it through. */
export interface TraceRequest {
  sentMs: number;
  doneMs: number;
  admitted: boolean;
}

/** One request the model answered otherwise than the service did. */
export interface Contradiction {
  sentMs: number;
  doneMs: number;
  /** What the service answered: true when it let the request through. */
  admitted: boolean;
}

/** What replaying a trace through one candidate gave. */
export interface Replay {
  /** Requests judged (answers that were neither an admission nor a refusal are left out). */
  judged: number;
  /** Of them, admitted by the service. */
  admitted: number;
  /** Admitted by the service, refused by the model even at the answer's time. */
  admittedRefused: number;
  /** Refused by the service, admitted by the model even at the sending. */
  refusedAdmitted: number;
  /**
   * How far the model's count of admissions strayed from the service's over the trace: the range of
   * (model's admissions − service's) so far. A model a little off in its rate admits a request a
   * moment earlier or later than the service now and then, each slip undone by the next (the
   * replay takes every request as the model decides it); a model of the wrong shape, or missing a
   * limit, admits tens more or fewer over a stretch.
   */
  drift: number;
  /**
   * The model refused a request the service refused: counted from there (before, the limiter's
   * unknown state when the trace began). A model that never does predicts none of the refusals.
   */
  inStep: boolean;
  /** The first few contradictions, in the trace's order, for the evidence line. */
  first: Contradiction[];
}

export interface Candidate {
  /** Where it came from, for the evidence: "the detectors", "announced", … */
  source: string;
  limits: Limits;
}

export interface Judgement extends Replay {
  candidate: Candidate;
  /** The drift the trace's noise and the figures' precision allow (see TOLERANCE). */
  allowed: number;
  explains: boolean;
  /** One line a person reads: which model, how many requests, how many it mispredicted. */
  evidence: string;
}

/**
 * How far a right model's count may stray (Replay.drift): `atLeast` requests, or `share` of what the
 * service admitted. The figures are measured, not exact: a window's period read 0.5 % short, whose
 * refused requests count, slips a request on nearly every refusal and never comes back in step, and
 * over the virtual-clock suites the identifications that were right strayed by up to 8 % (a silent
 * counter across a network) and mostly by under 2 %. A model of the wrong shape, or missing a
 * limit, strays by its burst at every trial from idle, or by everything the missing limit refused.
 */
export const TOLERANCE = { atLeast: 8, share: 0.1 } as const;

/** How many contradictions of each replay the evidence line quotes. */
const QUOTED = 3;

/**
 * The primary client's admissions and refusals, in the order they were sent. A second client's
 * requests (the scope phase, last) may spend the same limit: the trace ends where they begin, since
 * what they did to the primary's limit is what the scope phase tests, not what the model predicts.
 */
export function traceOf(samples: readonly Sample[]): TraceRequest[] {
  const sorted = [...samples].sort((a, b) => a.sentMs - b.sentMs);
  const secondAt = sorted.findIndex((s) => s.client === 'second');
  return (secondAt < 0 ? sorted : sorted.slice(0, secondAt))
    .filter((s) => s.answer !== 'error')
    .map((s) => ({ sentMs: s.sentMs, doneMs: Math.max(s.sentMs, s.doneMs), admitted: s.answer === 'accepted' }));
}

/**
 * Where the replay's limiter starts: at rest (a fresh limiter, as after a long idle), or spent (as
 * right after a drain: the checks before the probe emptied it).
 */
export type Start = 'rest' | 'spent';

/** Enough takes to spend any limit the models hold at one instant. */
const SPEND_AT_MOST = 100_000;

/** Replays `trace` through a limiter of `limits` from `start`, each request at the moment that best explains it. */
export function replay(limits: Limits, trace: readonly TraceRequest[], start: Start = 'rest'): Replay {
  const limiter = createLimiter(limits);
  if (start === 'spent' && trace[0]) {
    const atMs = trace[0].sentMs;
    for (let n = 0; n < SPEND_AT_MOST && limiter.take(atMs).ok; n += 1);
  }
  const result: Replay = {
    judged: 0,
    admitted: 0,
    admittedRefused: 0,
    refusedAdmitted: 0,
    drift: 0,
    inStep: false,
    first: [],
  };
  // The model's admissions less the service's, so far, and the range it has moved in.
  let ahead = 0;
  let [lowest, highest] = [0, 0];
  // The limiter's state when the trace began is unknown (set-up requests before it, a window part
  // spent): until the model first refuses a request the service refused, the model and the service
  // are coming into step, and how far apart they started is no contradiction. Counted from then.
  let inStep = false;
  // From a spent start the model refuses at first because it was made to: no evidence of step.
  // It is in step only at a refusal it explains once it has admitted a request again.
  let leftStart = start === 'rest';
  // Admissions taken ahead of their turn: they reached the limiter before a request sent earlier.
  const takenAhead = new Set<number>();
  let clockMs = -Infinity;
  trace.forEach((request, i) => {
    result.judged += 1;
    if (takenAhead.has(i)) return;
    const earliest = Math.max(request.sentMs, clockMs);
    let explained: boolean;
    if (request.admitted) {
      clockMs = earliestAdmission(limiter, earliest, Math.max(request.doneMs, earliest));
      explained = limiter.take(clockMs).ok;
      leftStart ||= explained;
      result.admitted += 1;
      if (!explained) [result.admittedRefused, ahead] = [result.admittedRefused + 1, ahead - 1];
    } else {
      clockMs = earliest;
      explained = refusalExplained(limiter, trace, i, earliest, takenAhead);
      // Before the model is in step, the service refusing what the model admits is the limiter's
      // unknown start (forgiven); admitting what a fresh model refuses is not: no state the
      // service began in lets more through than its limit at rest.
      if (!explained && inStep) [result.refusedAdmitted, ahead] = [result.refusedAdmitted + 1, ahead + 1];
      else if (!explained) result.refusedAdmitted += 1;
      else if (!inStep && leftStart) inStep = true;
    }
    [lowest, highest] = [Math.min(lowest, ahead), Math.max(highest, ahead)];
    result.drift = highest - lowest;
    result.inStep = inStep;
    if (!explained && result.first.length < QUOTED)
      result.first.push({ sentMs: request.sentMs, doneMs: request.doneMs, admitted: request.admitted });
  });
  return result;
}

/** How many moments of a request's time in flight an admission is tried at, earliest first. */
const STEPS = 8;

/**
 * The earliest moment in [fromMs, toMs] the model admits at, else `toMs`: tried forward only, since
 * a look moves a limiter's clock (a bucket refills up to it) and a clock never runs backwards. The
 * earliest, so a refusal that follows is judged as close to its own sending as the trace allows.
 */
function earliestAdmission(limiter: Limiter, fromMs: number, toMs: number): number {
  for (let step = 0; step < STEPS; step += 1) {
    const atMs = fromMs + ((toMs - fromMs) * step) / STEPS;
    if (limiter.test(atMs).ok) return atMs;
  }
  return toMs;
}

/**
 * Whether the model refuses request `i` (refused by the service) at `atMs`. Where the model would
 * still admit it, the requests sent after it but before its answer, which the service let through,
 * may have reached the limiter first (answers come back out of order): they take their turn ahead
 * of it, one at a time, until the model refuses it or none is left. Either way the request is then
 * taken: a refusal the model explains counts as its own (a limit that counts refused requests
 * counts it), and one it would have admitted spends what the service's limit had no more of, so a
 * model a little ahead of the service (a rate 1 % fast) is brought back in step instead of
 * mispredicting every refusal after.
 */
function refusalExplained(
  limiter: Limiter,
  trace: readonly TraceRequest[],
  i: number,
  atMs: number,
  takenAhead: Set<number>,
): boolean {
  const request = trace[i]!;
  let j = i + 1;
  while (limiter.test(atMs).ok) {
    const later = trace[j];
    if (later === undefined || later.sentMs > request.doneMs) break;
    if (later.admitted && !takenAhead.has(j)) {
      limiter.take(atMs);
      takenAhead.add(j);
    }
    j += 1;
  }
  return !limiter.take(atMs).ok;
}

/** How far a right model's count may stray from a trace in which the service admitted `admitted` requests. */
export const allowedDrift = (admitted: number): number =>
  Math.max(TOLERANCE.atLeast, Math.ceil(TOLERANCE.share * admitted));

/** One candidate judged against the trace (its limiter from `start`): does it explain what the service answered? */
export function judge(candidate: Candidate, trace: readonly TraceRequest[], start: Start = 'rest'): Judgement {
  const replayed = replay(candidate.limits, trace, start);
  const allowed = allowedDrift(replayed.admitted);
  const refusals = replayed.judged - replayed.admitted;
  const explains = replayed.drift <= allowed && (replayed.inStep || refusals === 0);
  return { ...replayed, candidate, allowed, explains, evidence: evidenceLine(candidate, replayed, explains, allowed) };
}

/**
 * Every candidate judged, best first: those that explain the trace before those that do not, then
 * by fewest contradictions, then (between equals) the one with fewer limits: the simpler explanation.
 */
export function judgeCandidates(candidates: readonly Candidate[], trace: readonly TraceRequest[]): Judgement[] {
  const limitCount = (j: Judgement) => (Array.isArray(j.candidate.limits) ? j.candidate.limits.length : 1);
  const wrong = (j: Judgement) => j.admittedRefused + j.refusedAdmitted;
  return candidates
    .map((c) => judge(c, trace))
    .sort((a, b) => Number(b.explains) - Number(a.explains) || wrong(a) - wrong(b) || limitCount(a) - limitCount(b));
}

function evidenceLine(candidate: Candidate, replayed: Replay, explains: boolean, allowed: number): string {
  const model = `${describeLimiter(candidate.limits)} (${candidate.source})`;
  const wrong = replayed.admittedRefused + replayed.refusedAdmitted;
  if (explains)
    return `replayed over the probe's ${replayed.judged} answers, ${model} predicts all but ${wrong} of them, within their timing`;
  const at = replayed.first
    .map(
      (c) =>
        `${c.admitted ? 'admitted' : 'refused'} at ${(c.sentMs / 1000).toFixed(3)}–${(c.doneMs / 1000).toFixed(3)} s`,
    )
    .join(', ');
  const strayed = replayed.inStep
    ? `its count of admissions strayed from the service's by ${replayed.drift}, more than the ${allowed} its precision allows`
    : 'it refused none of the requests the service refused';
  return `replayed over the probe's ${replayed.judged} answers, ${model} mispredicts ${wrong} of them even allowing each its time in flight (${replayed.admittedRefused} it would have refused were admitted, ${replayed.refusedAdmitted} it would have admitted were refused; first: ${at}): ${strayed}`;
}
