// Which processes belong to a client run, read from a /proc-shaped folder: the ones whose
// environment carries the run's marker, and their descendants that dropped it; never another run's,
// an unrelated one, or the harness itself.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RUN_MARKER_VARIABLE, markedProcesses } from '../../src/client/run-marker.js';

const proc = mkdtempSync(join(tmpdir(), 'ces-proc-'));
afterAll(() => rmSync(proc, { recursive: true, force: true }));

const env = (vars: Record<string, string>) =>
  Object.entries(vars)
    .map(([k, v]) => `${k}=${v}\0`)
    .join('');

/** pid, its command name (as /proc/<pid>/stat writes it, in parentheses), parent, environment. */
const PROCESSES: Array<[number, string, number, Record<string, string>]> = [
  [1, 'init', 0, {}],
  [100, 'node', 1, { PATH: '/bin' }], // the harness' parent: unrelated
  [200, 'client', 100, { [RUN_MARKER_VARIABLE]: 'run-a', HOME: '/h' }], // the client
  [201, 'worker (a) b', 200, { [RUN_MARKER_VARIABLE]: 'run-a' }], // a child, odd command name
  [202, 'sleep', 1, { [RUN_MARKER_VARIABLE]: 'run-a' }], // a setsid daemon, orphaned, still marked
  [203, 'scrubbed', 201, { PATH: '/bin' }], // a grandchild that cleared its environment
  [204, 'scrubbed-orphan', 1, {}], // cleared and orphaned: nothing leads to it
  [300, 'client', 100, { [RUN_MARKER_VARIABLE]: 'run-b' }], // another run's client
  [301, 'sleep', 1, { [RUN_MARKER_VARIABLE]: 'run-ab' }], // a marker that only starts the same
  [process.pid, 'harness', 100, { [RUN_MARKER_VARIABLE]: 'run-a' }], // never the caller itself
];

for (const [pid, name, ppid, vars] of PROCESSES) {
  mkdirSync(join(proc, String(pid)));
  writeFileSync(join(proc, String(pid), 'stat'), `${pid} (${name}) S ${ppid} ${pid} ${pid} 0 -1 4194560`);
  writeFileSync(join(proc, String(pid), 'environ'), env(vars));
}
// Entries that are not processes, and a process that vanished between the listing and the read.
mkdirSync(join(proc, 'self'));
mkdirSync(join(proc, '999'));

describe('markedProcesses', () => {
  it.each([
    { marker: 'run-a', pids: [200, 201, 202, 203] },
    { marker: 'run-b', pids: [300] },
    { marker: 'run-c', pids: [] },
  ])('$marker: $pids', ({ marker, pids }) => {
    expect(markedProcesses(marker, proc).sort((a, b) => a - b)).toEqual(pids);
  });

  it('finds nothing where there is no /proc', () => {
    expect(markedProcesses('run-a', join(proc, 'missing'))).toEqual([]);
  });
});
