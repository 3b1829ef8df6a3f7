// A sliding window the period trials sized, checked at another phase before it is believed. A log
// (or HAProxy's counter, its period opened by the clump) lets nothing back before a period after a
// clump from idle, and lets the next request in a period after it, wherever the clump fell. A
// silent sliding-window counter fools the trials: each clump is let back at the counter's next
// edge on the clock, so they time where their clumps fell in its window, not a period (httprate
// 50 per 1 s read as a log 50 per 0.56–0.85 s: up to 44 % fast, a recommendation far above the
// limit). One more clump from idle, a third of a period off the trials' rhythm, pinged at 94 % and
// 108 % of the period: let back at the first, or not at the second, and the window is not the log
// the trials sized. A counter's edge can fall there too, so a second clump half a period off the
// first's phase must be let back a period after it as well, and a third, a quarter off the second's.

import type { SlidingWindowModel } from '../limiters/index.js';
import { round } from '../estimators.js';
import { usualTrip } from './arrival.js';
import { drainAt, drainFits, pingAt } from './ping.js';
import { lastSentMs } from './counter-edge.js';
import type { Probe } from './probe.js';

/** Two idle periods (HAProxy starts afresh only then) and a tenth to spare. */
const QUIET_PERIODS = 2.1;
/** And a third off the trials' rhythm. */
const IDLE_PERIODS = QUIET_PERIODS + 1 / 3;
/** A ping this share of the period after the clump began: a log (or HAProxy) still refuses it. */
const EARLY = 0.94;
/**
 * And one this share after: a log has freed the clump's first slots (also when it counted the
 * refused ping: the clump went out over some ms), HAProxy's weight of the clump has faded by 8 %.
 */
const LATE = 1.08;
/**
 * The second clump this many periods after the first began: past the first's late ping, two quiet
 * periods and a tenth to spare, and half a period off the first's phase.
 */
const SHIFT_PERIODS = 3.5;
/**
 * The third clump this many periods after the second began. A counter whose window is a whole
 * fraction of the second's shift (3.5 / 2 = 1.75 periods: httprate 50 per 1 s read as a log 50 per
 * 0.566 s, 88 r/s, 2 phases in 237) meets the second clump at the first's phase on its clock and is
 * let back a period after both; 3.25 is no such multiple of those windows (1.75, 1.17 periods).
 */
const THIRD_SHIFT_PERIODS = 3.25;
/** Clumps refused in part before the check gives up: the trials' own refusals may have kept the window full once. */
const CLUMP_ATTEMPTS = 2;

export interface LogPhaseFindings {
  /**
   * The clump was let back a period after it began: the trials' period stands. False: it was not,
   * the trials timed a counter's edges. Null: no clump fitted in the budget (or proved anything).
   */
  holds: boolean | null;
  evidence: string;
}

/**
 * Whether the trials' log holds at another phase. Not one clump checked (the budget), a log is not
 * told from a silent counter whose edges the trials timed, and is not claimed: a silent httprate
 * 50 per 1 s in a 25 s probe, no clump checked, read as a log of 50 per 0.586 s (85 req/s) and
 * 0.838 s (59.67 req/s), the second proven at 47 req/s and reported so (30 Nov 2026). A second or
 * third clump cut short leaves the first's finding: a true log of 50 per 1 s in 25 s gets one.
 */
export async function logPhaseCheck(probe: Probe, model: SlidingWindowModel): Promise<LogPhaseFindings> {
  if (probe.outOfBudget()) return unchecked(model);
  const first = await clumpCheck(probe, model, IDLE_PERIODS, 0);
  if (!first) return unchecked(model);
  if (!first.findings.holds) return first.findings;
  // A counter whose next edge happened to fall a period after the first clump is let back there
  // too (36 of 237 phases of httprate 50 per 1 s read as a log 20–47 % fast): half a period later
  // on the clock its edge is elsewhere, a log's is a period after the clump wherever it falls.
  const second = await clumpCheck(probe, model, QUIET_PERIODS, first.startMs + SHIFT_PERIODS * model.period_s * 1000);
  if (!second?.findings.holds) return second?.findings ?? first.findings;
  const third = await clumpCheck(
    probe,
    model,
    QUIET_PERIODS,
    second.startMs + THIRD_SHIFT_PERIODS * model.period_s * 1000,
  );
  if (!third?.findings.holds) return third?.findings ?? first.findings;
  return {
    holds: true,
    evidence: `${first.findings.evidence}; and again ${SHIFT_PERIODS} and ${SHIFT_PERIODS + THIRD_SHIFT_PERIODS} periods later`,
  };
}

/** A log the trials sized that no clump at another phase checked. */
const unchecked = (model: SlidingWindowModel): LogPhaseFindings => ({
  holds: null,
  evidence: `a sliding window ${model.limit} per ${round(model.period_s, 3)} s by its trials from idle, but no clump at another phase fitted in the budget to tell it from a silent sliding-window counter whose edges the trials timed; not sized: a longer --max-duration checks it`,
});

/** One clump from idle, sent no earlier than `notBeforeMs`, and the two pings that tell where it was let back. */
async function clumpCheck(
  probe: Probe,
  model: SlidingWindowModel,
  idlePeriods: number,
  notBeforeMs: number,
): Promise<{ findings: LogPhaseFindings; startMs: number } | undefined> {
  const periodMs = model.period_s * 1000;
  const s = (ms: number) => `${round(ms / 1000, 2)} s`;
  for (let attempt = 1; attempt <= CLUMP_ATTEMPTS; attempt++) {
    const idleMs = Math.max(lastSentMs(probe.samples), probe.elapsed()) + idlePeriods * periodMs;
    const atMs = Math.max(idleMs, notBeforeMs);
    if (!drainFits(probe, probe.elapsed(), atMs - probe.elapsed() + LATE * periodMs, model.limit, 1)) return undefined;
    // Exactly the limit: requests still in flight when the limit's answers came back would be sent
    // on top, refused by a log too, and taken for a window that had not emptied.
    const clump = await drainAt(probe, 'edges', atMs, model.limit, { exact: true });
    if (!clump || clump.length === 0) return undefined;
    // Refused in part after more than two idle periods: the trials' refusals (or one of their
    // requests that reached the limiter late, on a jittery network) kept the window from emptying,
    // and proves nothing; HAProxy's counter, sized right, does so too. The clump is sent once more.
    if (clump.some((x) => x.answer === 'limited')) continue;
    const startMs = clump[0]!.sentMs;
    const early = await pingAt(probe, 'edges', startMs + EARLY * periodMs);
    if (!early) return undefined;
    // Sent a period or more after the clump began (a busy machine's late timer: real HAProxy 40 per
    // 0.5 s pinged at 0.53 s), a log lets it through too: it proves nothing, the clump goes again.
    if (early.sentMs - startMs >= periodMs) continue;
    // Let through on a stretched round trip (a leg 100 ms long on a jittery network), it may have
    // reached the limiter a period after the clump: that proves nothing either.
    if (early.answer === 'accepted' && !usualTrip(probe.samples, early)) continue;
    const notAPeriod = (what: string) => ({
      startMs,
      findings: {
        holds: false,
        evidence: `a clump of ${model.limit} from idle was ${what} after it began, which a window sliding over the ${s(periodMs)} the trials timed does not do: where a clump falls decides when it is let back (windows on the clock, as a sliding-window counter's), not a period`,
      },
    });
    if (early.answer === 'accepted') return notAPeriod(`let back ${s(early.sentMs - startMs)}`);
    const late = await pingAt(probe, 'edges', startMs + LATE * periodMs);
    if (!late) return undefined;
    // Refused there after a clump whose first request took longer than usual by more than the ping's
    // margin past the period (a stalled limiter or process decided it that late), the log's first
    // slot frees late too: it proves nothing, the clump goes again (a log of 50 per 1 s across
    // 50 ± 10 ms with 50-200 ms stalls: 5 of 100 seeds). A trip stretched less explains no refusal,
    // and a counter's refusal here is what tells it from a log: not set aside.
    if (late.answer !== 'accepted' && !usualTrip(probe.samples, clump[0]!, (LATE - 1) * periodMs)) continue;
    if (late.answer !== 'accepted') return notAPeriod(`still refused ${s(late.sentMs - startMs)}`);
    return {
      startMs,
      findings: {
        holds: true,
        evidence: `a clump from idle at another phase was refused ${s(early.sentMs - startMs)} after it began and let back ${s(late.sentMs - startMs)} after: the window slides from the client's own requests`,
      },
    };
  }
  return undefined;
}
