// The probe's timeline for the report's chart: requests sent, accepted and limited per slot, each
// slot named by the part of the probe that sent most of it. Whole seconds hid what an SRE looks
// for: a 6 s probe drains, times the refill, measures the sustained rate, waits and bursts within
// a second or two each, so the chart showed six points and no phase. 100 ms slots show them;
// a long probe (a window limiter, up to minutes) keeps 1 s slots, so the chart and its data table
// stay a few hundred points.

import type { PhaseName, Sample } from './types.js';

export interface ProbePoint {
  /** Seconds since the probe started, the slot's start. */
  t: number;
  offered: number;
  accepted: number;
  limited: number;
  /** The chart's name for the part of the probe that sent most of this slot; `wait` when it sent nothing. */
  phase: string;
}

/** The probe's own phases in the words the report uses. */
const PHASE_LABEL: Record<PhaseName, string> = {
  drain: 'drain',
  outrun: 'drain, outran',
  shut: 'still shut',
  pilot: 'refill',
  window: 'sustained',
  'retry-after': 'retry-after',
  'idle-burst': 'burst',
  scope: 'scope',
  recover: 'recover',
  edges: 'window edges',
  period: 'period',
  'counts-refused': 'counts refused',
  advertised: 'advertised limit',
  announced: 'announced limit',
};

const FINE_UP_TO_MS = 30_000;
/** The fine slot, ms: the chart's for a short probe, and every replay's (chartSlotMs). */
export const FINE_SLOT_MS = 100;

/** The chart's slot for a probe whose last request went out at `lastMs`: fine up to 30 s, else whole seconds. */
export const chartSlotMs = (lastMs: number): number => (lastMs <= FINE_UP_TO_MS ? FINE_SLOT_MS : 1000);

/** The probe's requests per slot: the chart's slot (chartSlotMs) unless `slotMs` is given. */
export function probeTimeline(samples: readonly Sample[], slotMs?: number): ProbePoint[] {
  if (samples.length === 0) return [];
  const lastMs = Math.max(...samples.map((s) => s.sentMs));
  slotMs ??= chartSlotMs(lastMs);
  const slots = Array.from({ length: Math.floor(lastMs / slotMs) + 1 }, (_, i) => ({
    t: Math.round((i * slotMs!) / 100) / 10,
    offered: 0,
    accepted: 0,
    limited: 0,
    byPhase: new Map<PhaseName, number>(),
  }));
  for (const s of samples) {
    const slot = slots[Math.floor(s.sentMs / slotMs!)]!;
    slot.offered++;
    if (s.answer === 'accepted') slot.accepted++;
    else if (s.answer === 'limited') slot.limited++;
    slot.byPhase.set(s.phase, (slot.byPhase.get(s.phase) ?? 0) + 1);
  }
  return slots.map(({ byPhase, ...counts }) => {
    const top = [...byPhase.entries()].sort((a, b) => b[1] - a[1])[0];
    return { ...counts, phase: top ? PHASE_LABEL[top[0]] : 'wait' };
  });
}

/** Every request a timeline's slots let through. */
export const acceptedIn = (timeline: ReadonlyArray<{ accepted: number }>): number =>
  timeline.reduce((n, p) => n + p.accepted, 0);
