// The same storm, but the 429s carry no Retry-After (§7 and §8 do not promise one), so the client
// must choose its own waits, and they must grow rather than hammer.

import { errorReply } from '../replies.js';
import { stormLimit, stormWaitMs, type Storm } from './storm.js';
import { defineScenario } from './types.js';

const STORM: Storm = { startAtCall: 3, lengthMs: 3_000 };

export const scenario = defineScenario({
  name: 'rate-limit-no-retry-after',
  spec: '§7, §8',
  description:
    '3 s of 429 without Retry-After from the third business call on: the client must back off with growing waits',
  longestWaitMs: stormWaitMs(STORM),
  override: (base) => ({
    limit: stormLimit(base, STORM),
    rateLimited: () => errorReply(429, 'rate_limit_exceeded'),
  }),
});
