// Waits, bounded, for the machine to be quiet before a precision run's file starts: the precise
// phase starts its four files at once, and each worker first transforms and imports its file's
// graph (several CPU seconds each on two cores). A probe started in that burst reads the machine's
// stalls, not the limiter: golang.org/x/time/rate across toxiproxy, the first probe of the phase's
// longest file, "a resetting window ... not pinned down" with five edge trials sent late (CI land92
// and land96). Not a retry: nothing is run twice, only started once the imports beside it are done.

import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** Idle and total CPU time over all cores, in the kernel's ticks; null where /proc/stat is not. */
function cpuTicks(): { idle: number; total: number } | null {
  let line: string | undefined;
  try {
    line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
  } catch {
    return null;
  }
  const fields = line?.startsWith('cpu ') ? line.trim().split(/\s+/).slice(1).map(Number) : [];
  if (fields.length < 5 || fields.some((n) => !Number.isFinite(n))) return null;
  // user nice system idle iowait irq softirq steal: idle and iowait are what no process used.
  return { idle: fields[3]! + fields[4]!, total: fields.slice(0, 8).reduce((a, b) => a + b, 0) };
}

export interface QuietOptions {
  /** The share of all cores' time that must be idle over one sample. */
  idleShare: number;
  sampleMs: number;
  /** Gives up after this long and lets the run start anyway. */
  maxMs: number;
}

/** Resolves once one sample saw at least `idleShare` of the CPU idle, or after `maxMs`; with how long it waited, ms, and whether it was quiet. */
export async function untilQuiet(o: QuietOptions): Promise<{ waitedMs: number; quiet: boolean }> {
  const start = Date.now();
  let before = cpuTicks();
  if (before === null) return { waitedMs: 0, quiet: true };
  while (Date.now() - start < o.maxMs) {
    await sleep(o.sampleMs);
    const after = cpuTicks();
    if (after === null) break;
    const total = after.total - before.total;
    if (total > 0 && (after.idle - before.idle) / total >= o.idleShare)
      return { waitedMs: Date.now() - start, quiet: true };
    before = after;
  }
  return { waitedMs: Date.now() - start, quiet: false };
}
