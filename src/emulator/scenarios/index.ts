// The client scenarios: one typed list, from which --scenario values of `ces-harness client`, the
// name type and the README table come. Each entry is a file of its own.

import { scenario as steady } from './steady.js';
import { scenario as shortTokenLifetime } from './short-token-lifetime.js';
import { scenario as rateLimitStorm } from './rate-limit-storm.js';
import { scenario as rateLimitNoRetryAfter } from './rate-limit-no-retry-after.js';
import { scenario as slowBusiness } from './slow-business.js';

export type { ClientScenario } from './types.js';

export const CLIENT_SCENARIOS = [
  steady,
  shortTokenLifetime,
  rateLimitStorm,
  rateLimitNoRetryAfter,
  slowBusiness,
] as const;

export type ClientScenarioName = (typeof CLIENT_SCENARIOS)[number]['name'];

export const clientScenario = (name: string) => CLIENT_SCENARIOS.find((s) => s.name === name);
