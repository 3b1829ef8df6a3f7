// The candidates' waits after a refusal, and the fleet run a k6 scenario reads from JSON.

import { describe, expect, it } from 'vitest';
import { backoffMs, describePolicy, type FleetPolicy } from '../../../src/ratelimit/fleet/policy.js';
import { parseFleetRun } from '../../../src/ratelimit/fleet/parse-run.js';
import { seededRandom } from '../../../src/ratelimit/fleet/random.js';

const p = (name: FleetPolicy['name']): FleetPolicy => ({
  name,
  base_ms: 50,
  cap_ms: 1_000,
  max_retries: 6,
  honour_retry_after: false,
});

describe('backoffMs', () => {
  it('without jitter: base·2ⁿ up to the cap, the same for everyone', () => {
    expect([0, 1, 2, 3, 4, 5].map((n) => backoffMs(p('no-jitter'), n, 50, Math.random))).toEqual([
      50, 100, 200, 400, 800, 1_000,
    ]);
  });

  it('full jitter: uniform within [0, base·2ⁿ], capped', () => {
    const random = seededRandom(3);
    for (let n = 0; n < 8; n++) {
      const waits = Array.from({ length: 200 }, () => backoffMs(p('full-jitter'), n, 50, random));
      const window = Math.min(1_000, 50 * 2 ** n);
      expect(Math.min(...waits)).toBeGreaterThanOrEqual(0);
      expect(Math.max(...waits)).toBeLessThanOrEqual(window);
      // Spread over the window, not bunched: the draws reach into both halves.
      expect(Math.max(...waits)).toBeGreaterThan(window / 2);
      expect(Math.min(...waits)).toBeLessThan(window / 2);
    }
  });

  it('decorrelated jitter: within [base, 3 × the previous wait], capped', () => {
    const random = seededRandom(5);
    let previous = 50;
    for (let n = 0; n < 50; n++) {
      const wait = backoffMs(p('decorrelated-jitter'), n, previous, random);
      expect(wait).toBeGreaterThanOrEqual(50);
      expect(wait).toBeLessThanOrEqual(Math.min(1_000, 3 * previous));
      previous = wait;
    }
  });

  it('describes a policy in one line', () => {
    expect(describePolicy({ ...p('client-bucket'), rate_rps: 2.5, burst: 1, honour_retry_after: true })).toBe(
      'client-bucket at 2.5 req/s, burst 1, backoff 50–1000 ms, ≤ 6 retries, honours Retry-After',
    );
  });
});

describe('parseFleetRun', () => {
  const good = { instances: 4, policy: p('full-jitter'), offered_rps: 60, backlog: 0, duration_s: 8, seed: 1 };

  it('takes a well-formed run as it is', () => {
    expect(parseFleetRun(JSON.parse(JSON.stringify(good)), 'CES_FLEET_JSON')).toEqual(good);
  });

  it.each([
    [[1, 2], /^CES_FLEET_JSON must be a JSON object/],
    [{ ...good, instances: 0 }, /^CES_FLEET_JSON\.instances must be a whole number ≥ 1, got 0$/],
    [{ ...good, duration_s: 'long' }, /^CES_FLEET_JSON\.duration_s must be a number ≥ 0\.1, got "long"$/],
    [
      { ...good, policy: { ...good.policy, name: 'yolo' } },
      /^CES_FLEET_JSON\.policy\.name must be one of no-jitter, full-jitter/,
    ],
    [
      { ...good, policy: { ...good.policy, honour_retry_after: 'yes' } },
      /^CES_FLEET_JSON\.policy\.honour_retry_after must be true or false$/,
    ],
    [
      { ...good, policy: { ...good.policy, max_retries: 1.5 } },
      /^CES_FLEET_JSON\.policy\.max_retries must be a whole number ≥ 0, got 1\.5$/,
    ],
  ])('%j is refused in one line naming the field', (input, message) => {
    expect(() => parseFleetRun(input, 'CES_FLEET_JSON')).toThrow(message);
  });
});
