// A limiter not identified while the probe's own process was busy says so in the line the stage
// quotes as its reason (discover.ts withBusyMachine): CI ci-61C read the emulator's bucket, starved
// beside the heavy tier, as "not identified: … a sliding window", with no word of the machine.

import { describe, expect, it } from 'vitest';
import { BUSY_MACHINE, withBusyMachine } from '../../src/ratelimit/discover.js';
import { NOT_IDENTIFIED } from '../../src/ratelimit/evidence.js';
import type { Estimate } from '../../src/ratelimit/types.js';

const BUSY = 'this process used 93 % of a core and its timers ran up to 412 ms late (p99)';
const notIdentified = {
  limiter: null,
  notes: ['scope not measured', `${NOT_IDENTIFIED}the limiter looks like a sliding window`, `${NOT_IDENTIFIED}again`],
} as unknown as Estimate;

describe('a limiter not identified on a busy machine', () => {
  it('says so in its first not-identified line, with how busy, and what to do', () => {
    const said = withBusyMachine(notIdentified, BUSY);
    expect(said.notes).toEqual([
      'scope not measured',
      `${NOT_IDENTIFIED}the limiter looks like a sliding window (${BUSY_MACHINE}: ${BUSY}; run it again on a quieter machine)`,
      `${NOT_IDENTIFIED}again`,
    ]);
  });

  it('says nothing of the machine when it was quiet, or when the limiter was identified', () => {
    expect(withBusyMachine(notIdentified, undefined)).toBe(notIdentified);
    const identified = { ...notIdentified, limiter: { kind: 'bucket', rate_rps: 50, burst: 50 } } as Estimate;
    expect(withBusyMachine(identified, BUSY)).toBe(identified);
  });
});
