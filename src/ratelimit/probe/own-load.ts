// How busy the probe's own process was while it ran. A line of answers, each later than the one
// before, may be this machine's: its event loop reading 100 KB bodies beside other work took 71 a
// second and no more, and the line looked like a service's pace (CI ci-59A, hostile-server.test.ts).
// A process that used most of a core, or whose timers ran late, is not evidence of the service's
// pace (probe/queued-pace.ts). Tests on a virtual clock give their own meter.

import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Clock } from '../../time/clock.js';

export interface OwnLoad {
  /** The share of one core this process used since the meter began (CPU time over the clock's time). */
  cpuShare(): number;
  /** The event loop's 99th-percentile delay since the meter began, ms: how late its timers ran. */
  lagP99Ms(): number;
  /** Stops measuring (the loop monitor's timer). */
  stop(): void;
}

/** A process past either bound may have set any pace the probe saw itself. */
export const BUSY_CPU_SHARE = 0.5;
export const LATE_LOOP_MS = 100;

/** Whether the meter says the probe's own process may have made a line: with how busy it was, for the note. */
export function ownBusy(load: OwnLoad): string | undefined {
  const cpu = load.cpuShare();
  const lag = load.lagP99Ms();
  if (cpu < BUSY_CPU_SHARE && lag < LATE_LOOP_MS) return undefined;
  return `this process used ${Math.round(cpu * 100)} % of a core and its timers ran up to ${Math.round(lag)} ms late (p99)`;
}

/** The real meter: process.cpuUsage and the event loop's delay, from now on `clock`. */
export function processLoad(clock: Clock): OwnLoad {
  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const [cpuAtMs, startedMs] = [cpuMs(), clock.now()];
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  return {
    cpuShare: () => (cpuMs() - cpuAtMs) / Math.max(1, clock.now() - startedMs),
    // The histogram is in nanoseconds; less the sampling resolution it adds to every reading.
    lagP99Ms: () => Math.max(0, loop.percentile(99) / 1e6 - 10),
    stop: () => loop.disable(),
  };
}

/** A process that did nothing else: the virtual clock's probes, whose machine is the model's. */
export const IDLE_LOAD: OwnLoad = { cpuShare: () => 0, lagP99Ms: () => 0, stop: () => undefined };
