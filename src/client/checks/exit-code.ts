// The client's own verdict: it exits 0 by itself within the time limit. A client that crashes on
// a slow answer or a 429, hangs, floods the emulator or prints its secret (and is stopped) fails.

import { judged, type ClientCheck } from './types.js';

const REASONS = {
  'time-limit': (s: number) => `was still running at the ${s} s time limit: stopped (its process group killed)`,
  flood: () => 'sent more requests than one run allows: stopped as a flood',
  'secret-printed': () => 'printed its client secret: stopped',
  interrupted: () => 'was interrupted by the user: stopped',
} as const;

export const check: ClientCheck = {
  id: 'client.exit-code',
  title: 'The client finishes by itself with exit code 0',
  spec: 'exit status',
  level: 'must',
  description: 'the client exits 0 on its own within `--time-limit`; a crash, a hang, a flood or a printed secret fails',
  judge(record) {
    const p = record.process;
    const took = `${(p.durationMs / 1000).toFixed(1)} s`;
    if (p.stopped !== null) {
      const why = p.stopped === 'time-limit' ? REASONS[p.stopped](record.limits.timeLimitS) : p.stopped === 'flood' ? `${REASONS.flood()} (${record.limits.maxRequests} requests)` : REASONS[p.stopped]();
      return judged('fail', `the client ${why}`, [{ request: 'client process', note: `after ${took}` }]);
    }
    if (p.exitCode === 0) return judged('pass', `exited 0 after ${took}`);
    const how = p.signal !== null ? `was killed by ${p.signal}` : `exited with code ${String(p.exitCode)}`;
    return judged('fail', `the client ${how} after ${took}`, [{ request: 'client process', note: how }]);
  },
};
