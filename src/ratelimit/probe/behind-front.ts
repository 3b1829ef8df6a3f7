// A window behind a faster limit, found after the stream: a gateway's bucket in front of an
// application's window (a bucket of 50 per second, burst 50, before a fixed window of 200 per 10 s).
// The drain meets the bucket first, its refills trickle back at the bucket's rate, and the probe
// reads a bucket; the stream at that rate then fills the window, which shuts until its edge:
// "shut until an edge, not a bucket; not sized", and paced k6 rounds searched for the rate. Here
// the window is filled to its shut, its next edge found, and the shape read from that comeback
// (recover.ts windowFromComeback), for the window path to walk its edges as any window's.

import { probingHowTo } from '../horizon.js';
import type { Bracket } from '../identify.js';
import type { Sample } from '../types.js';
import { acceptedBoundMs } from './arrival.js';
import { edgeGapMs } from './window-edges.js';
import { pingUntilAccepted, topUp } from './ping.js';
import type { Probe } from './probe.js';
import { firstGapMs, windowFromComeback, type DrainFigures, type ShapeFindings } from './recover.js';

/** Windows the edge walk and its trial take to size a window (window-edges.ts): three to six. */
const WINDOWS_TO_SIZE = 6;
/** The shortest shut taken for a window behind a faster limit, ms. */
const LONG_SHUT_MS = 3000;

/** Runs of refused requests with nothing let through between them (the primary client's, by sending time), and the request let through after each, if any. */
function shutRuns(samples: readonly Sample[]): { fromMs: number; lastMs: number; after?: Sample }[] {
  const answered = samples
    .filter((s) => s.client === 'primary' && s.answer !== 'error')
    .sort((a, b) => a.sentMs - b.sentMs);
  const runs: { fromMs: number; lastMs: number; after?: Sample }[] = [];
  let open = false;
  for (const s of answered) {
    const run = runs.at(-1);
    if (s.answer !== 'limited') {
      if (open && run) run.after = s;
      open = false;
    } else if (open && run) run.lastMs = s.sentMs;
    else {
      runs.push({ fromMs: s.sentMs, lastMs: s.sentMs });
      open = true;
    }
  }
  return runs;
}

/** The longest the limit was seen shut, ms: from the first to the last of a run of refused requests (shutRuns). 0 when none. */
export function longestShutMs(samples: readonly Sample[]): number {
  return Math.max(0, ...shutRuns(samples).map((r) => r.lastMs - r.fromMs));
}

/** Whether the limit came back after a shut of LONG_SHUT_MS or more (lastLongShutEdge): a window of seconds, not one still shut. */
export const cameBackAfterLongShut = (samples: readonly Sample[]): boolean => lastLongShutEdge(samples) !== undefined;

/**
 * The edge that ended the last shut of LONG_SHUT_MS or more that something was let through after:
 * after its last refusal, at or before that request reached the limiter. Behind a faster limit that
 * refills far sooner, such a shut is the window's, and its end one of its edges.
 */
function lastLongShutEdge(samples: readonly Sample[]): Bracket | undefined {
  const run = shutRuns(samples)
    .filter((r) => r.after && r.lastMs - r.fromMs >= LONG_SHUT_MS)
    .at(-1);
  return run?.after && { lo: run.lastMs, hi: acceptedBoundMs(samples, run.after) };
}

/**
 * The shape of the window behind the limit the stream read (`notBucket`: why it is no bucket), or
 * undefined when none showed. What the window has left is spent first, a run at max_rps topped up
 * one request at a time for 0.9 of the longest shut seen (the window is at least that long, so it
 * shuts within that, or this is no window); then pings growing by half find its next edge.
 *
 * Or `pastBudget`: the window stayed shut longer than the rest of the budget can size a window of
 * (WINDOWS_TO_SIZE of it), so the pings stop there and the probe ends, not identified, for paced
 * rounds to search the rate (rate-bracket.ts). A gateway's bucket of 20 per second before an
 * application's log of 300 per 60 s, silent: the comeback came 35 s after the fill, the edge walk
 * then ran out of budget at 139 s with the same "not identified" (on the virtual clock: 831 s in
 * all, now 569 s, the same 5 req/s found). Claiming the front's bucket instead, for the proof
 * rounds to meet the window behind, gave 3.1 req/s: rounds refused from their start by a log the
 * round before had filled, which no set the stacked inference tries explained.
 */
export async function windowBehindFront(
  probe: Probe,
  drain: DrainFigures,
  notBucket: string,
): Promise<ShapeFindings | { pastBudget: string } | undefined> {
  const shutMs = longestShutMs(probe.samples);
  const shutEdge = lastLongShutEdge(probe.samples);
  // Only a window of seconds, with time left to walk its edges (it is at least as long as it was
  // seen shut). Short of either, the fills would only spend what a longer window behind it (a
  // minute's quota behind a 1 s counter) holds for the k6 rounds that size it then.
  if (shutMs < LONG_SHUT_MS || !sizable(probe, shutMs, probe.elapsed())) return undefined;
  const fromMs = probe.elapsed();
  const { samples: run } = await probe.burstRun('recover', drain.accepted + 5);
  const topped = run.some((s) => s.answer === 'limited')
    ? await topUp(probe, 'recover', Infinity, fromMs + 0.9 * shutMs)
    : [];
  if ((topped.at(-1) ?? run.at(-1))?.answer !== 'limited') return undefined;
  // Full from the last request it let through.
  const shutFromMs = Math.max(
    ...[...run, ...topped].filter((s) => s.answer === 'accepted').map((s) => s.sentMs),
    fromMs,
  );
  let stoppedAtMs: number | undefined;
  // With an earlier edge to place it against, the comeback is timed as the walk times its edges
  // (window-edges.ts edgeGapMs: 3 % of the shut so far, 0.2 s after a 7 s shut, not the 1-2 s of gaps
  // growing by half): the walk's next edge, bisected where the two put it, is then as narrow, and
  // three edges pin a 10 s window to ±0.2 % (window-edges.ts leadOf).
  const fine = shutEdge !== undefined;
  const next = await pingUntilAccepted(probe, 'recover', probe.elapsed(), firstGapMs(probe), (gap, last) => {
    const shutSoFarMs = last.sentMs - shutFromMs;
    if (sizable(probe, shutSoFarMs, last.sentMs)) return fine ? edgeGapMs(probe, gap * 1.5, shutSoFarMs) : gap * 1.5;
    stoppedAtMs = last.sentMs;
    return undefined;
  });
  if (stoppedAtMs !== undefined && next.refused >= 2)
    return { pastBudget: pastBudgetNote(notBucket, run, topped, shutFromMs, stoppedAtMs) };
  if (!next.accepted || next.refused < 2) return undefined;
  const found = await windowFromComeback(probe, drain, next as typeof next & { accepted: Sample }, {
    because: `${notBucket}: a window behind a faster limit? Filled until it shut, it came back ${((next.accepted.sentMs - shutFromMs) / 1000).toFixed(2)} s later`,
    shutMs,
    shutFromMs,
  });
  // The comeback that ended the last long shut was the window's edge too, some whole windows before
  // this one: the edge walk's lattice reaches back to it once its own edges say how many.
  return found && shutEdge ? { ...found, earlierEdge: shutEdge } : found;
}

/** A window at least `shutMs` long (it was seen shut that long) can be sized: WINDOWS_TO_SIZE of it fit the budget left at `atMs`. */
const sizable = (probe: Probe, shutMs: number, atMs: number): boolean =>
  WINDOWS_TO_SIZE * shutMs <= probe.maxDurationMs - atMs;

/** What the window behind showed before the pings stopped: how many it let through, and how long it stayed shut. */
function pastBudgetNote(
  notBucket: string,
  run: readonly Sample[],
  topped: readonly Sample[],
  shutFromMs: number,
  stoppedAtMs: number,
): string {
  const passed = [...run, ...topped].filter((s) => s.answer === 'accepted').length;
  const shutS = (stoppedAtMs - shutFromMs) / 1000;
  // How to size it: a budget reaching WINDOWS_TO_SIZE of the shortest window the shut allows past
  // where the pings stopped (more than this probe's, as that is why they stopped).
  const atLeastS = Math.ceil(shutS);
  const howTo = probingHowTo(atLeastS, Math.ceil(stoppedAtMs / 1000) + WINDOWS_TO_SIZE * atLeastS, false);
  return `${notBucket}: another limit behind it, ${passed > 0 ? `filled until it shut (${passed} more let through)` : 'shut already'}, then still shut ${shutS.toFixed(1)} s later: a window that long takes ${WINDOWS_TO_SIZE} of itself to size, more than the probe had left, so the probe ended there; ${howTo}`;
}
