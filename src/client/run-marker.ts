// Finds what a client run left running where its process group cannot reach: a daemon that called
// setsid is in a session and group of its own, and once its parent exits it hangs from init, so
// neither the group nor the parent links lead to it. Every process of the run carries the run's
// marker in its environment (inherited unless a program clears it), and a process whose parent chain
// leads to a marked one is the run's too. Linux /proc only; elsewhere nothing is found and the group
// kill is all there is.

import { readFileSync, readdirSync } from 'node:fs';

/** Set in the client's environment, a new value per run; documented so nobody is surprised by it. */
export const RUN_MARKER_VARIABLE = 'CES_CLIENT_RUN_ID';

/** Past the command name (which may hold spaces and parentheses), field 4 of /proc/<pid>/stat is the parent. */
const parentOf = (stat: string): number | undefined => {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(fields[1]);
  return Number.isInteger(ppid) ? ppid : undefined;
};

const readOr = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    // Gone meanwhile, or another user's (EACCES): not ours either way.
    return undefined;
  }
};

/**
 * The pids of the run marked `marker` in `variable` (and their descendants), the caller's own
 * process never among them. The tests' spawned CLIs carry a marker of their own (test/helpers/bounded-child.ts).
 */
export function markedProcesses(marker: string, procDir = '/proc', variable = RUN_MARKER_VARIABLE): number[] {
  let entries: string[];
  try {
    entries = readdirSync(procDir).filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const needle = `\0${variable}=${marker}\0`;
  const parents = new Map<number, number>();
  const marked = new Set<number>();
  for (const name of entries) {
    const pid = Number(name);
    if (pid === process.pid) continue;
    const stat = readOr(`${procDir}/${name}/stat`);
    const ppid = stat === undefined ? undefined : parentOf(stat);
    if (ppid !== undefined) parents.set(pid, ppid);
    const environ = readOr(`${procDir}/${name}/environ`);
    if (environ !== undefined && `\0${environ}\0`.includes(needle)) marked.add(pid);
  }
  // Descendants of a marked process that cleared their environment still belong to the run.
  const ofRun = (pid: number): boolean => {
    for (
      let at: number | undefined = pid, hops = 0;
      at !== undefined && at > 1 && hops < 64;
      at = parents.get(at), hops++
    )
      if (marked.has(at)) return true;
    return false;
  };
  return [...parents.keys()].filter(ofRun);
}
