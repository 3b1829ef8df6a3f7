// Real business endpoints do real work (a credit evaluation calls bureaus and scoring models):
// two seconds an answer is unremarkable there, while the token endpoints stay quick. §6 asks for
// no latency, so a client that paces and sizes its concurrency for quick answers must not read
// slow ones as a limit, a failure or a hang.

import { defineProfile } from './types.js';

export const profile = defineProfile({
  name: 'slow-business',
  description:
    'business endpoints take about 2 s to answer (the token endpoints stay quick), as a service whose evaluation calls out to bureaus and scoring models does',
  transport: { businessLatencyMs: 2_000 },
});
