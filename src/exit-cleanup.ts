// What must not outlive the process even when it ends at once (a second Ctrl-C or SIGTERM calls
// process.exit, and no `finally` runs then): temp folders holding certificates and keys, and k6
// children that would otherwise keep loading the target. Each task is synchronous, as 'exit'
// handlers must be, and is unregistered by its owner once the normal cleanup has done its job.

const tasks = new Set<() => void>();

function runAll(): void {
  for (const task of tasks) {
    try {
      task();
    } catch {
      // best effort: the process is ending either way
    }
  }
  tasks.clear();
}

/** Runs `task` when the process exits, unless the returned function is called first. */
export function atExit(task: () => void): () => void {
  if (tasks.size === 0) process.on('exit', runAll);
  tasks.add(task);
  return () => {
    tasks.delete(task);
    if (tasks.size === 0) process.off('exit', runAll);
  };
}
