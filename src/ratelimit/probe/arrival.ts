// When the limiter saw a request is known only to within its round trip: somewhere in [sent,
// answered]. On loopback that is a few milliseconds and the send order is the order the limiter saw;
// a network ~100 ms away with jitter swaps requests sent a few milliseconds apart, and keeps a
// round trip's worth of them in flight after the first one refused. The phases read a run through
// here so that neither a swap nor those in flight is taken for the limit.

import type { Sample } from '../types.js';

/** When the service saw a request, best estimate: the middle of its round trip. */
export const seenMs = (s: Sample): number => (s.sentMs + s.doneMs) / 2;

/**
 * How far apart two requests of a run may have been sent and still reached the limiter the other
 * way round: as much as one leg of the trip can vary, at most the spread of the run's round trips.
 */
export function reorderMs(run: readonly Sample[]): number {
  const trips = run.filter((s) => s.answer !== 'error').map((s) => s.doneMs - s.sentMs);
  return trips.length < 2 ? 0 : Math.max(...trips) - Math.min(...trips);
}

/** A run in sending order, and its first refusal (undefined when none). */
function firstRefusal(run: readonly Sample[]): { sorted: Sample[]; refusal: Sample | undefined } {
  const sorted = [...run].sort((a, b) => a.sentMs - b.sentMs);
  return { sorted, refusal: sorted.find((s) => s.answer === 'limited') };
}

/**
 * The accepted requests of a run that reached the limiter before its first refusal, as far as the
 * round trips tell: those sent before it, and those sent so soon after that they may have overtaken it.
 */
export function acceptedBeforeRefusal(run: readonly Sample[]): Sample[] {
  const { sorted, refusal } = firstRefusal(run);
  const untilMs = refusal ? refusal.sentMs + reorderMs(run) : Infinity;
  return sorted.filter((s) => s.answer === 'accepted' && s.sentMs < untilMs);
}

/**
 * When a run stopped sending what it meant to: its first refusal's send time (what followed were
 * already on their way before its answer came back), else its last request's.
 */
export function sendingEndMs(run: readonly Sample[]): number | undefined {
  const { sorted, refusal } = firstRefusal(run);
  return refusal?.sentMs ?? sorted.at(-1)?.sentMs;
}
