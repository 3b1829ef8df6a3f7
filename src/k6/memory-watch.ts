// k6 reads every answer body whole, with no size cap of its own (k6 has none to set): a service
// whose bodies never end fills k6's memory for as long as the request timeout lets each call run.
// Against such a body at --request-timeout 2 s, 2 VUs and 3 req/s, k6 reached 7 GB resident in
// 38 s; at the default 10 s it would take the machine. So the harness watches k6's resident memory
// and stops it past a cap, shared among the k6 processes running at once, which the run then
// reports as k6 failing, not the service's figures.

import { readFile } from 'node:fs/promises';

const POLL_MS = 250;

/** VmRSS of /proc/<pid>/status in bytes; undefined once the process is gone or off Linux. */
export async function residentBytes(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/** The k6 processes watched now: the cap is shared among them (load runs scenarios and segments side by side). */
const watched = new Set<number>();

/**
 * Calls `over` with its share of `limitBytes` once the process's resident memory passes that share:
 * the cap divided among the processes watched at that moment, so k6 processes side by side cannot
 * hold the cap each. Polled every 250 ms (k6 grew by some 300 MB a second on the endless body).
 * Returns the function that stops watching.
 */
export function watchResident(
  pid: number | undefined,
  limitBytes: number,
  over: (shareBytes: number) => void,
  /** The share never falls below this, however many are watched. */
  floorBytes = 0,
): () => void {
  if (pid === undefined) return () => undefined;
  let done = false;
  watched.add(pid);
  const stop = () => {
    done = true;
    watched.delete(pid);
    clearInterval(timer);
  };
  const timer = setInterval(() => {
    void residentBytes(pid).then((bytes) => {
      const share = Math.max(floorBytes, limitBytes / Math.max(1, watched.size));
      if (done || bytes === undefined || bytes <= share) return;
      stop();
      over(share);
    });
  }, POLL_MS);
  timer.unref();
  return stop;
}
