// From the client's third business call on, every request is refused with 429 for 2 s, each
// refusal saying truthfully in Retry-After how many whole seconds are left (§7: wait and retry).

import { stormLimit, stormWaitMs, type Storm } from './storm.js';
import { defineScenario } from './types.js';

const STORM: Storm = { startAtCall: 3, lengthMs: 2_000 };

export const scenario = defineScenario({
  name: 'rate-limit-storm',
  spec: '§7, §8',
  description: '2 s of 429 with Retry-After from the third business call on: the client must wait as told',
  longestWaitMs: stormWaitMs(STORM),
  override: (base) => ({ limit: stormLimit(base, STORM) }),
});
