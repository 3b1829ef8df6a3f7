// Child processes for the bench: running a tool with a hard time limit, finding it on PATH, and
// reading CPU time from /proc so a rate comes with who was busy producing it.

import { execFileSync } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { superviseChild } from '../src/toolkit/supervise-child.js';

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
  timedOut: boolean;
}

/** Output kept per stream: enough for sslscan's report and wrk's summary, bounded all the same. */
const OUTPUT_CAP = 256 * 1024;

/** Between SIGTERM and SIGKILL at the time limit: wrk and k6 print their summary on SIGTERM. */
const TERM_GRACE_MS = 1_000;

/**
 * Runs a command to completion under the shared supervisor: past `timeoutMs` its whole process
 * group is stopped (a shell's or k6's grandchildren too, which a kill of the child alone left
 * running, holding the pipes and the CPU the next measurement reads). Wall time is spawn to exit.
 */
export async function runCommand(
  file: string,
  args: readonly string[],
  opts: { timeoutMs: number; env?: NodeJS.ProcessEnv; cwd?: string },
): Promise<CommandResult> {
  const started = performance.now();
  const output = { stdout: '', stderr: '' };
  const child = superviseChild<never>({
    argv: [file, ...args],
    env: opts.env ?? process.env,
    cwd: opts.cwd,
    timeLimitMs: opts.timeoutMs,
    termGraceMs: TERM_GRACE_MS,
    onOutput: (chunk, stream) => {
      if (output[stream].length < OUTPUT_CAP) output[stream] += chunk.toString('utf8');
    },
  });
  const outcome = await child.done;
  return {
    code: outcome.exitCode,
    ...output,
    wallMs: performance.now() - started,
    timedOut: outcome.stopped === 'time-limit',
  };
}

export function which(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // keep looking
    }
  }
  return undefined;
}

let ticks: number | undefined;
function clockTicks(): number {
  if (ticks === undefined) {
    try {
      ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', timeout: 5_000 }).trim()) || 100;
    } catch {
      ticks = 100; // what Linux reports on every common architecture
    }
  }
  return ticks;
}

/** Fields of /proc/<pid>/stat after the command name (which may itself hold spaces and parens). */
function statFields(pid: number | 'self'): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined; // not Linux, or the process is gone
  }
}

/** user + system CPU seconds a process has used so far. */
export function cpuSeconds(pid: number): number | undefined {
  const f = statFields(pid);
  // After the name: state is field 3 (index 0), utime 14 (index 11), stime 15 (index 12).
  if (f === undefined) return undefined;
  return (Number(f[11]) + Number(f[12])) / clockTicks();
}

/**
 * CPU seconds of this process's children that have exited and been reaped (cutime + cstime).
 * The delta across one tool run is that tool's CPU, as long as nothing else exits meanwhile.
 */
export function reapedChildrenCpuSeconds(): number | undefined {
  const f = statFields('self');
  if (f === undefined) return undefined;
  return (Number(f[13]) + Number(f[14])) / clockTicks();
}

export const delta = (after: number | undefined, before: number | undefined): number | undefined =>
  after === undefined || before === undefined ? undefined : after - before;

/** This process plus its reaped children, CPU seconds. */
export function ownCpuSeconds(): number | undefined {
  const f = statFields('self');
  if (f === undefined) return undefined;
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / clockTicks();
}

/** Busy CPU seconds of the whole machine so far (every core; idle and iowait excluded), from /proc/stat. */
export function machineBusySeconds(): number | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    // cpu  user nice system idle iowait irq softirq steal guest guest_nice (guest is inside user)
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = line
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    return (user + nice + system + irq + softirq + steal) / clockTicks();
  } catch {
    return undefined;
  }
}
