// Every announced limit as a candidate of the judge (issue 35, items 2 and 8): each policy of an
// IETF RateLimit-Policy list, each Kong X-RateLimit-Limit-<unit>, each `w=`, that the probe's own
// phases left unproven is replayed over the probe's whole trace beside the set it measured
// (judge.ts, through src/ratelimit/limiters/), a fixed window of its quota at every phase its edges
// may have. Three outcomes, each said with its count:
// - contradicted: at every phase the announced window would have refused requests the service let
//   through, more than a count's slack, and so would a bucket of its quota refilled over its window
//   (the header does not say how it counts): the service let more through than it announces. Reported as disagreeing, never dropped (a recommendation still stays within its rate).
// - verified: beside the set, at some phase, it explains refusals the set alone cannot, and refuses
//   nothing the service let through: it joins the set, whose sustained rate is then the lowest.
// - untested: the trace never reached its quota (or reached it without settling anything): it stays
//   "announced, not proven", and the recommendation stays within its rate (recommend.ts).
// Pure: the trace carries its own times; `epochMs` places the probe's clock on the wall clock's.

import type { AdvertisedLimit } from '../report/model.js';
import { countSlack, round } from './estimators.js';
import { allowedDrift, judge, traceOf, type Judgement, type TraceRequest } from './judge.js';
import { describeLimiter, limitsOf, sustainedRate, type FixedWindowModel, type LimiterSet } from './limiters/index.js';
import type { Estimate, Sample } from './types.js';

/** Phases of an announced window tried: a minute's edge placed within a second, as a request's timing allows. */
const PHASES = 60;
/** Of them, how many are replayed: those whose busiest window comes nearest the quota. */
const REPLAYED = 6;

/** What the judge made of one announced limit over the trace. */
export interface AnnouncedJudgement {
  outcome: 'contradicted' | 'verified' | 'untested';
  /**
   * Contradicted: the most the service let through within one of its windows wherever its edges
   * fall (at the phase that puts the fewest in its busiest window). Otherwise: the most within one,
   * at the phase that puts the most there.
   */
  most: number;
  /** The announced window at the phase that explains the trace best. */
  model: FixedWindowModel;
  /** One sentence a person reads: what was replayed, and what it showed. */
  evidence: string;
}

const announcedLimit = (m: LimiterSet[number]): number => (m.kind === 'fixed-window' ? m.limit : 1);

/**
 * Judges `announced` (a limit with a window) beside `set` over `trace` (probe ms, `epochMs` its start
 * on the wall clock, where announced windows keep their edges).
 */
export function judgeAnnounced(
  set: LimiterSet,
  announced: Pick<AdvertisedLimit, 'limit' | 'window_s' | 'source_header'>,
  trace: readonly TraceRequest[],
  epochMs = 0,
): AnnouncedJudgement {
  const windowS = announced.window_s!;
  const onClock = trace.map((r) => ({ ...r, sentMs: r.sentMs + epochMs, doneMs: r.doneMs + epochMs }));
  const asIs = judge({ source: 'measured', limits: set }, onClock);
  const window = (phase_s: number): FixedWindowModel => ({
    kind: 'fixed-window',
    limit: announced.limit,
    window_s: windowS,
    phase_s,
    counts_refused: false,
  });
  const said = `${announced.limit} per ${windowS} s (${announced.source_header})`;
  // Every phase counted (cheap), and the few whose busiest window comes nearest the quota replayed
  // (a replay is a few hundred times a count): the truth is among them, since at its phase the
  // busiest window holds the quota when the trace reached it, and less when it did not.
  const phases = Array.from({ length: PHASES }, (_, i) => round((i * windowS) / PHASES, 3));
  const busiest = new Map(phases.map((p) => [p, mostInOneWindow(onClock, windowS, p)]));
  const replayedPhases = [...phases]
    .sort((a, b) => Math.abs(busiest.get(a)! - announced.limit) - Math.abs(busiest.get(b)! - announced.limit))
    .slice(0, REPLAYED);
  const judged = replayedPhases.map((phase_s) =>
    judge({ source: `announced, its edges at ${phase_s} s`, limits: [...set, window(phase_s)] }, onClock),
  );
  // Its own refusals of what the service let through, beyond what the set alone mispredicts.
  const over = (j: Judgement) => j.admittedRefused - asIs.admittedRefused;
  const best = judged.reduce((a, b) =>
    over(b) < over(a) || (over(b) === over(a) && b.refusedAdmitted < a.refusedAdmitted) ? b : a,
  );
  const bestPhase = replayedPhases[judged.indexOf(best)]!;
  // Wherever its edges fall, one window held at least `least`; placed at its busiest, one held `most`.
  const least = Math.min(...busiest.values());
  const most = Math.max(...busiest.values());
  const replayed = `replayed over the probe's ${asIs.judged} answers beside ${describeLimiter(set)}`;
  const slack = countSlack(announced.limit);
  // The header says a quota and a window, not how they are counted: a bucket of the quota refilled
  // over the window lets up to twice the quota through in one window. Contradicted only when that
  // reading too refuses what the service let through, so a conformant service counting so is
  // never said to disagree.
  const asBucket = judge(
    {
      source: 'announced, as a bucket',
      limits: [...set, { kind: 'bucket', rate_rps: announced.limit / windowS, burst: announced.limit }],
    },
    onClock,
  );
  if (least > announced.limit + slack && over(best) > slack && over(asBucket) > slack)
    return {
      outcome: 'contradicted',
      most: least,
      model: window(bestPhase),
      evidence: `${replayed}, ${said} refuses at least ${over(best)} requests the service let through wherever its edges fall: the service let ${least} through within one ${windowS} s window, more than the ${announced.limit} announced`,
    };
  const explainsMore = asIs.refusedAdmitted - best.refusedAdmitted > slack && best.explains;
  if (explainsMore)
    return {
      outcome: 'verified',
      most: busiest.get(bestPhase)!,
      model: window(bestPhase),
      evidence: `${replayed}, ${said} with its edges at ${bestPhase} s explains ${asIs.refusedAdmitted - best.refusedAdmitted} refusals the set alone does not, refusing ${Math.max(0, over(best))} of what the service let through: verified`,
    };
  const reached = most >= announced.limit - slack;
  return {
    outcome: 'untested',
    most,
    model: window(bestPhase),
    evidence: reached
      ? `${replayed}, ${said} contradicts nothing, and explains nothing the set does not: not proven`
      : `${replayed}, ${said} contradicts nothing; the probe let at most ${most} through within one of its windows, short of its quota, so it could not be tested`,
  };
}

/** The most admissions sent within one window of `windowS` with edges at `phaseS` + k × windowS (ms on the trace's clock). */
function mostInOneWindow(trace: readonly TraceRequest[], windowS: number, phaseS: number): number {
  const counts = new Map<number, number>();
  for (const r of trace)
    if (r.admitted) {
      const index = Math.floor((r.sentMs - phaseS * 1000) / (windowS * 1000));
      counts.set(index, (counts.get(index) ?? 0) + 1);
    }
  return Math.max(0, ...counts.values());
}

/**
 * The estimate with every announced limit the probe left unproven judged over its whole trace
 * (`samples`, `epochMs` the probe's start on the wall clock): a contradicted one disagrees, with its
 * count; a verified one joins the set; an untested one stays unproven, the judge's reading added
 * to its note. Unchanged when nothing was identified or nothing announced is unproven.
 */
export function withAnnouncementsJudged(e: Estimate, samples: readonly Sample[], epochMs = 0): Estimate {
  if (e.limiter === null || e.sustained_rps === null) return e;
  const unproven = (a: AdvertisedLimit) => a.agrees === null && a.window_s !== null && a.window_s > 0;
  const all = e.announced ?? (e.advertised ? [e.advertised] : []);
  if (!all.some(unproven)) return e;
  const trace = traceOf(samples);
  const measured: LimiterSet =
    e.limiters && e.limiters.length > 1 ? [e.limiters[0]!, ...e.limiters.slice(1)] : [e.limiter];
  let set = measured;
  const verdicts = new Map<AdvertisedLimit, AnnouncedJudgement>();
  // Shortest window first: one verified joins the set the longer ones are judged beside.
  for (const a of all.filter(unproven).sort((x, y) => x.window_s! - y.window_s!)) {
    const verdict = judgeAnnounced(set, a, trace, epochMs);
    verdicts.set(a, verdict);
    if (verdict.outcome === 'verified') set = [...set, verdict.model];
  }
  const judged = (a: AdvertisedLimit): AdvertisedLimit => {
    const v = verdicts.get(a);
    if (v === undefined) return a;
    if (v.outcome === 'contradicted')
      return { ...a, agrees: false, note: `the probe's trace disagrees: ${v.evidence}` };
    if (v.outcome === 'verified') return { ...a, agrees: true, note: `verified: ${v.evidence}` };
    // The judge's reading goes before what the recommendation does about it, where a note says so.
    const tail = '; a recommendation stays within its rate';
    const [said, after] = a.note.endsWith(tail) ? [a.note.slice(0, -tail.length), tail] : [a.note, ''];
    return { ...a, note: `${said}; ${v.evidence}${after}` };
  };
  const same = (x: AdvertisedLimit, y: AdvertisedLimit) => x.limit === y.limit && x.window_s === y.window_s;
  const announced = e.announced?.map(judged);
  const advertised = e.advertised && judged(all.find((a) => same(a, e.advertised!)) ?? e.advertised);
  const grown = set.length > measured.length;
  const binding = set.reduce((low, m) => (sustainedRate(m) < sustainedRate(low) ? m : low));
  return {
    ...e,
    ...(announced ? { announced } : {}),
    ...(advertised ? { advertised } : {}),
    ...(grown
      ? {
          sustained_rps: round(sustainedRate(set), 2),
          limiter: binding,
          limiters: [...set],
          // Counted to the request against a quota said in whole requests, when the window joined binds.
          sustained_precision:
            set.indexOf(binding) >= measured.length ? 1 / announcedLimit(binding) : e.sustained_precision,
          notes: e.notes.map((n) =>
            n.startsWith(`identified: ${describeLimiter(measured)}`)
              ? `identified: ${describeLimiter(set)}, a set: ${n.slice(n.indexOf(': ') + 2)}`
              : n,
          ),
          limiter_evidence: [
            ...e.limiter_evidence,
            ...[...verdicts.values()].filter((v) => v.outcome === 'verified').map((v) => v.evidence),
          ],
        }
      : {}),
  };
}
