// How the client ended. It may exit 0 by itself or, like a service, keep working until the harness
// stops it at the time limit: both pass, judged on what they did. It fails when it crashed (a
// non-zero exit, or a signal the harness did not send), stalled (stopped at the limit after going
// longer without a request than the scenario allows: neither working nor exiting), flooded the
// emulator or printed its secret.

import { quietAtStop, workingAtStop } from '../stall.js';
import { at, judged, type ClientCheck } from './types.js';

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

export const check: ClientCheck = {
  id: 'client.exit-code',
  title: 'The client exits 0 by itself, or keeps working until the time limit',
  spec: 'exit status',
  level: 'must',
  judgesSilentRuns: true,
  description:
    'the client exits 0 on its own, or is still working (calling) when stopped at `--time-limit`; a crash, a stall, a flood or a printed secret fails',
  judge(record) {
    const p = record.process;
    const took = seconds(p.durationMs);
    const { timeLimitS, maxRequests, stallAfterMs } = record.limits;
    switch (p.stopped) {
      case 'time-limit': {
        const quiet = seconds(quietAtStop(record) ?? 0);
        const stall = `${seconds(stallAfterMs)} without one is a stall in this scenario`;
        if (workingAtStop(record))
          return judged(
            'pass',
            `the client was stopped at the ${timeLimitS} s time limit while still working (its last request ${quiet} before; ${stall}): judged on what it did`,
          );
        const last =
          record.requests.length === 0 ? 'it made no request at all' : `no request in the last ${quiet} (${stall})`;
        return judged(
          'fail',
          `the client stalled: ${last}, and it had not exited when the ${timeLimitS} s time limit stopped it`,
          [{ request: 'client process', note: `stopped at ${at(p.stoppedMs ?? p.durationMs)}` }],
        );
      }
      case 'flood':
        return judged(
          'fail',
          `the client sent more requests than one run allows (${maxRequests}): stopped as a flood`,
          [{ request: 'client process', note: `after ${took}` }],
        );
      case 'secret-printed':
        return judged('fail', 'the client printed its client secret: stopped', [
          { request: 'client process', note: `after ${took}` },
        ]);
      case 'interrupted':
        return judged('skip', `the client was interrupted by the user after ${took}, before it ended: not judged`);
      case null:
        break;
    }
    if (p.exitCode === 0)
      return record.requests.length === 0
        ? judged('skip', `the client exited 0 after ${took} without a request: nothing it did was tested`)
        : judged('pass', `exited 0 after ${took}`);
    const how =
      p.signal !== null
        ? `was killed by ${p.signal}, a signal the harness did not send`
        : `exited with code ${String(p.exitCode)}`;
    return judged('fail', `the client ${how} after ${took}`, [{ request: 'client process', note: how }]);
  },
};
