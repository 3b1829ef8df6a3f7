// k6 reads every answer body whole, with no size cap of its own (k6 has none to set): a service
// whose bodies never end fills k6's memory for as long as the request timeout lets each call run.
// Against such a body at --request-timeout 2 s, 2 VUs and 3 req/s, k6 reached 7 GB resident in
// 38 s; at the default 10 s it would take the machine. So the harness watches k6's resident memory
// and stops it past a cap, which the run then reports as k6 failing, not the service's figures.

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

/**
 * Calls `over` once when the process's resident memory passes `limitBytes`, polled every 250 ms
 * (k6 grew by about 200 MB a second on the endless body, so it is stopped within some 50 MB of the cap).
 * Returns the function that stops watching.
 */
export function watchResident(pid: number | undefined, limitBytes: number, over: () => void): () => void {
  if (pid === undefined) return () => undefined;
  let done = false;
  const timer = setInterval(() => {
    void residentBytes(pid).then((bytes) => {
      if (done || bytes === undefined || bytes <= limitBytes) return;
      done = true;
      clearInterval(timer);
      over();
    });
  }, POLL_MS);
  timer.unref();
  return () => {
    done = true;
    clearInterval(timer);
  };
}
