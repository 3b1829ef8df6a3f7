// When a client stopped at the time limit had stalled rather than being at work. A service never
// exits by itself, so being stopped is no fault; going quiet is. The quiet a client may keep is
// what the run asked of it (CES_RUN_SECONDS: a client that goes that long without a call is not
// keeping up the calls it was asked for) plus the longest wait the scenario may impose on a correct
// client (a Retry-After, a backoff through a 429 storm, a slow answer).

import type { ClientScenario } from '../emulator/scenarios/index.js';
import type { ClientRunRecord } from './record.js';

/** Going this long without a request, ms, the client has stalled. */
export const stallAfterMs = (runSeconds: number, scenario: ClientScenario): number =>
  runSeconds * 1000 + (scenario.longestWaitMs ?? 0);

/**
 * How long the client had been quiet when the time limit stopped it: from the last moment it was
 * seen at work (a request arriving, or waiting on an answer, which counts up to the stop) to the
 * stop. Null when it was not stopped at the time limit.
 */
export function quietAtStop(record: ClientRunRecord): number | null {
  const { stopped, stoppedMs } = record.process;
  if (stopped !== 'time-limit' || stoppedMs === null) return null;
  const lastSeenMs = Math.max(
    0,
    ...record.requests.filter((r) => r.atMs <= stoppedMs).map((r) => Math.min(r.answeredMs, stoppedMs)),
  );
  return stoppedMs - lastSeenMs;
}

/** Stopped at the time limit: whether it was still working then (true) or had stalled (false). Null when not stopped there. */
export function workingAtStop(record: ClientRunRecord): boolean | null {
  const quiet = quietAtStop(record);
  if (quiet === null) return null;
  return record.requests.length > 0 && quiet <= record.limits.stallAfterMs;
}
