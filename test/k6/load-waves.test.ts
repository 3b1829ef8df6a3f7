// Which k6 scenarios share their time: the light ones (behaviour, not pace, and little sent with the
// client's credentials) run together; each scenario that drives the client's limiter or measures
// its pace has the target to itself.

import { describe, expect, it } from 'vitest';
import { K6_SCENARIO_NAMES, loadWaves } from '../../src/k6/scenarios.js';

describe('loadWaves', () => {
  it('runs token-lifecycle beside tls, then rate-limit and throughput each alone', () => {
    expect(loadWaves(K6_SCENARIO_NAMES)).toEqual([['token-lifecycle', 'tls'], ['rate-limit'], ['throughput']]);
  });

  it.each([
    [
      ['throughput', 'tls'],
      [['tls'], ['throughput']],
    ],
    [
      ['rate-limit', 'throughput'],
      [['rate-limit'], ['throughput']],
    ],
    [['tls'], [['tls']]],
  ] as const)('%j → %j', (names, waves) => {
    expect(loadWaves(names)).toEqual(waves);
  });
});
