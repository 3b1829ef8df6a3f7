// A probe whose requests went out far slower than it planned them. The recovery's clump is sent at
// max_rps so that a bucket, which refills one request every 1 / rate, lets through only the few it
// refilled, while a window that reset lets its whole limit through. Sent at barely more than a
// bucket's rate, a clump gets through a bucket nearly whole too, and looks like a window that came
// back: golang.org/x/time/rate 50/s burst 10 across toxiproxy, its drain sent at 54.6 req/s of the
// 200 planned beside three other precision runs on two cores, "nothing passed for 373 ms, then 21
// requests passed back to back" (CI ci-59F); virtually, with every timer up to 20 ms late, 25 of 30.
// No rule on the counts tells them apart then: a window's clump sent as slowly is as whole, so
// such a clump is not read as a bucket's either (tried: fixed windows and logs then read as buckets).
// What the probe can say is why: this machine held its requests back, and how to get a reading.

import { round } from '../estimators.js';

/** Under this share of the planned pace, the drain's sends say more of this machine than of the limit. */
export const SLOW_SENDS_SHARE = 0.5;

/**
 * Why a limit that looked as if it came back whole, and was not pinned down, may be this machine's
 * slow sending: said when the drain went out at under SLOW_SENDS_SHARE of `plannedRps` up to its
 * first refusal (`drainRps`, rate-bracket.ts reads it); undefined otherwise.
 */
export function slowSendsNote(drainRps: number | undefined, plannedRps: number): string | undefined {
  if (drainRps === undefined || drainRps >= SLOW_SENDS_SHARE * plannedRps) return undefined;
  return (
    `the drain went out at ${round(drainRps, 1)} req/s of the ${round(plannedRps, 1)} planned ` +
    `(this machine held its requests back, a busy CPU or its own stalls, or slow answers held it to its requests in flight); ` +
    `a bucket whose rate is near that pace lets a clump sent as slowly through as a window that came back whole does, ` +
    `so the two were not told apart: run it again on a quieter machine`
  );
}
