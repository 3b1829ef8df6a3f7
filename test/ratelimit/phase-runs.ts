// A probe's requests as runs of one phase, for seeing where it spends its time: a new run starts
// when the phase changes or after 150 ms of silence, so each trial's clump, its single requests and
// the waits between them come apart. Pure; bench/ratelimit-phases.ts prints them, tests measure the
// waits between trials with them.

import type { Sample } from '../../src/ratelimit/types.js';

export interface PhaseRun {
  phase: string;
  sent: number;
  refused: number;
  firstMs: number;
  lastMs: number;
  /** Silence before this run, since the previous run's last request. */
  quietBeforeMs: number;
}

/** Silence that splits one phase's requests into two runs: longer than any pacing gap at 10 req/s and up. */
const RUN_GAP_MS = 150;

/** The samples as runs of one phase, in sending order. */
export function phaseRuns(samples: readonly Sample[]): PhaseRun[] {
  const runs: PhaseRun[] = [];
  for (const s of [...samples].sort((a, b) => a.sentMs - b.sentMs)) {
    const last = runs[runs.length - 1];
    if (last && last.phase === s.phase && s.sentMs - last.lastMs <= RUN_GAP_MS) {
      last.sent++;
      last.refused += s.answer === 'limited' ? 1 : 0;
      last.lastMs = s.sentMs;
      continue;
    }
    runs.push({
      phase: s.phase,
      sent: 1,
      refused: s.answer === 'limited' ? 1 : 0,
      firstMs: s.sentMs,
      lastMs: s.sentMs,
      quietBeforeMs: last ? s.sentMs - last.lastMs : s.sentMs,
    });
  }
  return runs;
}

/** Per phase: requests, refusals, and the time from the end of the previous phase's last run to the end of its own (its waits included). */
export function phaseTotals(
  runs: readonly PhaseRun[],
): Array<{ phase: string; sent: number; refused: number; ms: number }> {
  const totals = new Map<string, { phase: string; sent: number; refused: number; ms: number }>();
  for (const r of runs) {
    const t = totals.get(r.phase) ?? { phase: r.phase, sent: 0, refused: 0, ms: 0 };
    t.sent += r.sent;
    t.refused += r.refused;
    t.ms += r.quietBeforeMs + (r.lastMs - r.firstMs);
    totals.set(r.phase, t);
  }
  return [...totals.values()];
}
